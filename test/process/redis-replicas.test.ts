/**
 * Several replicas, one mock (#32): mock processes started with `--store redis://…` on one real
 * redis-server (test/support/redis-server.ts, no mock of Redis), and what happens when Redis is not
 * there at start-up, stops answering, or is lost and comes back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { type RedisServer, startRedisServer } from '../support/redis-server.js'
import { freePort, startCli, startedUrl, stopProcesses, waitForOutput } from '../support/processes.js'
import { gardenSpec } from '../support/stateful.js'
import { expectStartupError } from '../support/startup-error.js'

const auth = { authorization: 'Bearer t', 'content-type': 'application/json' }

let redis: RedisServer
let prefixes = 0

beforeAll(async () => {
  redis = await startRedisServer()
})
afterAll(async () => {
  await redis?.stop()
})
afterEach(stopProcesses)

/** A mock process on the shared store, stateful on the Garden description; its URL once it listens. */
async function replica(prefix: string, extra: string[] = []) {
  const spawned = startCli([
    gardenSpec,
    '--port',
    '0',
    '--stateful',
    '--store',
    redis.url,
    '--store-prefix',
    prefix,
    ...extra,
  ])
  return { spawned, url: await startedUrl(spawned, 10_000) }
}

const freshPrefix = () => `replicas-${process.pid}-${++prefixes}`

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/plants`, { method: 'POST', headers: { ...auth, ...headers }, body: JSON.stringify(body) })

describe('two replicas on one Redis (#32)', () => {
  it('a plant created through A is read, listed and deleted through B', async () => {
    const prefix = freshPrefix()
    const [a, b] = await Promise.all([replica(prefix), replica(prefix)])
    const created = await post(a.url, { name: 'Fern' })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: number }
    const read = await fetch(`${b.url}/plants/${id}`, { headers: auth })
    expect(read.status).toBe(200)
    expect(await read.json()).toMatchObject({ id, name: 'Fern' })
    const listed = (await (await fetch(`${b.url}/plants`, { headers: auth })).json()) as { items: unknown[] }
    expect(listed.items).toMatchObject([{ id, name: 'Fern' }])
    expect((await fetch(`${b.url}/plants/${id}`, { method: 'DELETE', headers: auth })).status).toBe(204)
    expect((await fetch(`${a.url}/plants/${id}`, { headers: auth })).status).toBe(404)
  }, 30_000)

  it('concurrent creates of one id through both replicas: exactly one is answered 2xx', async () => {
    const prefix = freshPrefix()
    const [a, b] = await Promise.all([replica(prefix), replica(prefix)])
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => post(n % 2 ? a.url : b.url, { id: 77, name: `Race ${n}` })),
    )
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status < 300)).toHaveLength(1)
    expect(statuses.filter((status) => status === 409 || status === 400)).toHaveLength(19)
  }, 30_000)

  it('keyless creates through both replicas at once get distinct ids, and every one is kept', async () => {
    const prefix = freshPrefix()
    const [a, b] = await Promise.all([replica(prefix), replica(prefix)])
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, n) => post(n % 2 ? a.url : b.url, { name: `P${n}` })),
    )
    const ids = await Promise.all(answers.map(async (answer) => ((await answer.json()) as { id: number }).id))
    expect(answers.every((answer) => answer.status === 201)).toBe(true)
    expect(new Set(ids).size).toBe(30)
    const listed = (await (await fetch(`${a.url}/plants?limit=100`, { headers: auth })).json()) as { items: unknown[] }
    expect(listed.items).toHaveLength(30)
  }, 30_000)
})

describe('when Redis fails (#32)', () => {
  it('Redis down at start-up: the mock refuses to start with store_unreachable, naming the URL', async () => {
    const url = `redis://127.0.0.1:${await freePort()}/0`
    const error = await expectStartupError(
      createApp({ spec: gardenSpec, stateful: true, store: url }),
      'store_unreachable',
    )
    expect(error.message).toContain('redis://127.0.0.1:')
  })

  it('the command line names the URL and the code, and leaves a password out', async () => {
    const spawned = startCli([
      gardenSpec,
      '--stateful',
      '--port',
      '0',
      '--store',
      `redis://u:secret@127.0.0.1:${await freePort()}`,
    ])
    const code = await spawned.exited
    expect(code).not.toBe(0)
    expect(spawned.stderr()).toContain('[store_unreachable]')
    expect(spawned.stderr()).toContain('redis://u:***@127.0.0.1:')
    expect(spawned.stderr()).not.toContain('secret')
  }, 20_000)

  it('Redis frozen mid-run: stateful requests answer 503 in the Error shape, plain answers go on, nothing acknowledged is lost', async () => {
    const { url } = await replica(freshPrefix())
    const acknowledged: number[] = []
    for (let n = 0; n < 10; n++) {
      const answer = await post(url, { name: `Before ${n}` })
      expect(answer.status).toBe(201)
      acknowledged.push(((await answer.json()) as { id: number }).id)
    }
    redis.pause()
    try {
      const refused = await post(url, { name: 'While frozen' })
      expect(refused.status).toBe(503)
      const body = (await refused.json()) as { error: number; message: string }
      expect(body.message).toMatch(/store at redis:\/\/127\.0\.0\.1:\d+.* does not answer/)
      // An operation that keeps no data answers as ever.
      const plain = await fetch(`${url}/status`, { headers: auth })
      expect(plain.status).toBeLessThan(500)
    } finally {
      redis.resume()
    }
    for (const id of acknowledged) expect((await fetch(`${url}/plants/${id}`, { headers: auth })).status).toBe(200)
  }, 30_000)

  it('Redis lost and back: 503s while it is gone, logged once, then served again without a restart', async () => {
    const { spawned, url } = await replica(freshPrefix())
    expect((await post(url, { name: 'Before' })).status).toBe(201)
    await redis.stop()
    const during: number[] = []
    for (let n = 0; n < 20; n++) during.push((await post(url, { name: `During ${n}` })).status)
    expect(during.every((status) => status === 503)).toBe(true)
    await redis.restart()
    await waitForOutput(spawned, /the store at redis:\/\/127\.0\.0\.1:\d+\/? is back/, 15_000)
    // The loss is a warning (stderr), written once however many reconnection attempts fail.
    expect(spawned.stderr().match(/lost the store at/g) ?? []).toHaveLength(1)
    const after = await post(url, { name: 'After' })
    expect(after.status).toBe(201)
    const { id } = (await after.json()) as { id: number }
    expect((await fetch(`${url}/plants/${id}`, { headers: auth })).status).toBe(200)
    expect(spawned.child.exitCode).toBeNull()
  }, 40_000)
})
