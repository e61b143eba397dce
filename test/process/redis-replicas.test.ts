/**
 * Several replicas, one mock (#32): mock processes started with `--store redis://…` on one real
 * redis-server (test/support/redis-server.ts, no mock of Redis), and what happens when Redis is not
 * there at start-up, stops answering, or is lost and comes back.
 */
import { readFileSync } from 'node:fs'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { Redis } from 'ioredis'
import { createApp } from '../../src/index.js'
import { APPEND_WRITE as APPEND } from '../../src/redis/replica-scripts.js'
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

/** A replica of the default description (the Plant Store), stateless: scenarios, stubs and the journal. */
async function plainReplica(prefix: string, extra: string[] = []) {
  const spawned = startCli(['--port', '0', '--store', redis.url, '--store-prefix', prefix, ...extra])
  return { spawned, url: await startedUrl(spawned, 10_000) }
}

let plantIds = 0
const addPlant = (url: string) => post(url, { id: ++plantIds, name: 'Fern' })
const admin = (url: string, method: string, path: string, body?: unknown) =>
  fetch(`${url}/__mock${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

describe('scenarios, stubs and the journal shared by the replicas (#32)', () => {
  it('a scenario switched through A is in force on B for the very next request, every time', async () => {
    const prefix = freshPrefix()
    const [a, b] = await Promise.all([plainReplica(prefix), plainReplica(prefix)])
    for (let n = 0; n < 20; n++) {
      const name = n % 2 ? 'default' : 'error'
      expect((await admin(a.url, 'PUT', '/scenario', { name })).status).toBe(200)
      expect((await addPlant(b.url)).status, `switch ${n} to ${name}`).toBe(name === 'error' ? 400 : 200)
    }
    const session = await fetch(`${a.url}/__mock/scenario`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-mock-session': 's1' },
      body: JSON.stringify({ name: 'error' }),
    })
    expect(session.status).toBe(200)
    expect((await post(b.url, { id: ++plantIds, name: 'Fern' }, { 'x-mock-session': 's1' })).status).toBe(400)
    expect((await addPlant(b.url)).status).toBe(200)
  }, 40_000)

  it('a times: 1 stub answers once over both replicas, even under concurrent requests; its hits are summed', async () => {
    const prefix = freshPrefix()
    const [a, b] = await Promise.all([plainReplica(prefix), plainReplica(prefix)])
    const made = await admin(a.url, 'POST', '/stubs', { operation: 'POST /plants', times: 1, status: 400 })
    expect(made.status).toBe(201)
    const { id } = (await made.json()) as { id: number }
    const statuses = (await Promise.all(Array.from({ length: 20 }, (_, n) => addPlant(n % 2 ? a.url : b.url)))).map(
      (answer) => answer.status,
    )
    expect(statuses.filter((status) => status === 400)).toHaveLength(1)
    expect(statuses.filter((status) => status === 200)).toHaveLength(19)
    // The same stub, under the same id, on both; its one hit counted once.
    for (const url of [a.url, b.url]) {
      const listed = (await (await admin(url, 'GET', '/stubs')).json()) as {
        stubs: Array<{ id: number; hits: number }>
      }
      expect(listed.stubs).toEqual([expect.objectContaining({ id, hits: 1 })])
    }
  }, 40_000)

  it('a sequence advances one step per answer, whichever replica gives it; a reset through B starts it again', async () => {
    const prefix = freshPrefix()
    const [a, b] = await Promise.all([plainReplica(prefix), plainReplica(prefix)])
    const sequence = [{ status: 400 }, { status: 200 }, { status: 200 }]
    expect((await admin(b.url, 'POST', '/stubs', { operation: 'addPlant', sequence, cycle: true })).status).toBe(201)
    const statuses: number[] = []
    for (let n = 0; n < 6; n++) statuses.push((await addPlant(n % 2 ? a.url : b.url)).status)
    expect(statuses).toEqual([400, 200, 200, 400, 200, 200])
    expect((await admin(b.url, 'POST', '/reset')).status).toBe(200)
    // The reset removed the stub everywhere: the default answer again.
    expect((await addPlant(a.url)).status).toBe(200)
    expect((await (await admin(a.url, 'GET', '/stubs')).json()) as unknown).toEqual({ stubs: [] })
  }, 40_000)

  it("both replicas' journals list both replicas' requests, each entry naming its replica, with the same ids", async () => {
    const prefix = freshPrefix()
    const [a, b] = await Promise.all([plainReplica(prefix), plainReplica(prefix)])
    for (let n = 0; n < 3; n++) {
      await (await addPlant(a.url)).arrayBuffer()
      await (await addPlant(b.url)).arrayBuffer()
    }
    type Listed = { requests: Array<{ id: number; replica: string; path: string }> }
    const fromA = (await (await admin(a.url, 'GET', '/requests')).json()) as Listed
    const fromB = (await (await admin(b.url, 'GET', '/requests')).json()) as Listed
    expect(fromA.requests).toHaveLength(6)
    expect(fromB.requests.map((entry) => entry.id)).toEqual(fromA.requests.map((entry) => entry.id))
    const replicas = new Set(fromA.requests.map((entry) => entry.replica))
    expect(replicas.size).toBe(2)
    for (const name of replicas) expect(name).toMatch(/^.+:\d+$/)
    expect(new Set(fromA.requests.map((entry) => entry.id)).size).toBe(6)
    const count = (await (await admin(b.url, 'GET', '/requests/count?operation=addPlant')).json()) as { count: number }
    expect(count.count).toBe(6)
    // One entry, asked for by id through the replica that did not serve it.
    const other = fromA.requests.find((entry) => entry.replica !== fromA.requests[0]!.replica)!
    for (const url of [a.url, b.url]) {
      const one = await admin(url, 'GET', `/requests/${other.id}`)
      expect(one.status).toBe(200)
      expect(((await one.json()) as { replica: string }).replica).toBe(other.replica)
    }
    // A clear through A empties both.
    expect((await admin(a.url, 'DELETE', '/requests')).status).toBe(204)
    expect(((await (await admin(b.url, 'GET', '/requests')).json()) as Listed).requests).toEqual([])
  }, 40_000)

  it('a replica that starts later applies the earlier admin writes before it serves: the same stubs, ids and scenario', async () => {
    const prefix = freshPrefix()
    const a = await plainReplica(prefix)
    expect((await admin(a.url, 'POST', '/stubs', { operation: 'addPlant', status: 400 })).status).toBe(201)
    expect((await admin(a.url, 'POST', '/stubs', { operation: 'addPlant', status: 200, priority: 1 })).status).toBe(201)
    expect((await admin(a.url, 'DELETE', '/stubs/2')).status).toBe(204)
    const switched = await fetch(`${a.url}/__mock/scenario`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-mock-session': 'late' },
      body: JSON.stringify({ name: 'error' }),
    })
    expect(switched.status).toBe(200)
    const c = await plainReplica(prefix)
    const listed = (await (await admin(c.url, 'GET', '/stubs')).json()) as { stubs: Array<{ id: number }> }
    expect(listed.stubs.map((stub) => stub.id)).toEqual([1])
    expect((await addPlant(c.url)).status).toBe(400)
    const scenario = (await (
      await fetch(`${c.url}/__mock/scenario`, { headers: { 'x-mock-session': 'late' } })
    ).json()) as {
      active: string
    }
    expect(scenario.active).toBe('error')
    // A stub added now gets the next id on both.
    const third = await admin(c.url, 'POST', '/stubs', { operation: 'addPlant', status: 200 })
    expect(((await third.json()) as { id: number }).id).toBe(3)
  }, 40_000)

  it('two mocks with different prefixes on one Redis do not see each other', async () => {
    const [a, b] = await Promise.all([plainReplica(freshPrefix()), plainReplica(freshPrefix())])
    expect((await admin(a.url, 'PUT', '/scenario', { name: 'error' })).status).toBe(200)
    expect((await addPlant(b.url)).status).toBe(200)
    expect((await addPlant(a.url)).status).toBe(400)
  }, 30_000)

  it('--workers 2 with --store: each worker is a replica on the store, and a third process on it sees their stubs', async () => {
    const prefix = freshPrefix()
    const workers = await plainReplica(prefix, ['--workers', '2'])
    const other = await plainReplica(prefix)
    expect((await admin(workers.url, 'POST', '/stubs', { operation: 'addPlant', times: 2, status: 400 })).status).toBe(
      201,
    )
    const statuses = (
      await Promise.all(Array.from({ length: 12 }, (_, n) => addPlant(n % 3 ? workers.url : other.url)))
    ).map((answer) => answer.status)
    expect(statuses.filter((status) => status === 400)).toHaveLength(2)
    const listed = (await (await admin(other.url, 'GET', '/requests')).json()) as {
      requests: Array<{ replica: string }>
    }
    expect(listed.requests).toHaveLength(12)
    expect(new Set(listed.requests.map((entry) => entry.replica)).size).toBeGreaterThanOrEqual(2)
  }, 40_000)
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

describe('the admin log (#32)', () => {
  it('keeps its last bytes only: appending past the bound drops the oldest writes, never the newest', async () => {
    const client = new Redis(redis.url)
    try {
      const key = `${freshPrefix()}:admin`
      const write = (n: number) => JSON.stringify({ n, pad: 'x'.repeat(90) })
      for (let n = 0; n < 30; n++) await client.eval(APPEND, 2, key, `${key}:bytes`, write(n), 1000, 60_000)
      const kept = (await client.xrange(key, '-', '+')).map(([, fields]) => JSON.parse(fields[1]!).n as number)
      expect(kept.length).toBeGreaterThan(0)
      expect(kept.length).toBeLessThan(11)
      expect(kept[kept.length - 1]).toBe(29)
      expect(kept).toEqual(kept.map((_, index) => 30 - kept.length + index))
      const bytes = Number(await client.get(`${key}:bytes`))
      expect(bytes).toBe(kept.reduce((sum, n) => sum + write(n).length, 0))
      expect(bytes).toBeLessThanOrEqual(1000)
      expect(await client.pttl(key)).toBeGreaterThan(0)
    } finally {
      client.disconnect()
    }
  })
})

describe('Redis killed under load (#32)', () => {
  let durable: RedisServer
  beforeAll(async () => {
    durable = await startRedisServer({ durable: true })
  })
  afterAll(async () => {
    await durable?.stop()
  })

  it('503s while it is down, none slower than the command timeout, no crash, no queue; afterwards every acknowledged record is there', async () => {
    const spawned = startCli([
      gardenSpec,
      '--port',
      '0',
      '--stateful',
      '--store',
      durable.url,
      '--store-prefix',
      freshPrefix(),
    ])
    const url = await startedUrl(spawned, 10_000)
    const rssBefore = rssKiB(spawned.child.pid!)
    const acknowledged: number[] = []
    const statuses = new Map<number, number>()
    let slowest = 0
    const deadline = Date.now() + 5000
    // Eight clients, each sending one request after another until the deadline (at most 5 s).
    const client = async () => {
      for (let n = 0; n < 5000 && Date.now() < deadline; n++) {
        const started = Date.now()
        const answer = await post(url, { name: `Load ${n}` })
        slowest = Math.max(slowest, Date.now() - started)
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
        if (answer.status === 201) acknowledged.push(((await answer.json()) as { id: number }).id)
        else await answer.arrayBuffer()
      }
    }
    const load = Promise.all(Array.from({ length: 8 }, client))
    await new Promise((resolve) => setTimeout(resolve, 1000))
    await durable.crash()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    await durable.restart()
    await load
    expect([...statuses.keys()].sort()).toEqual([201, 503])
    expect(statuses.get(503)).toBeGreaterThan(0)
    // Commands are never queued while Redis is away: each fails at once or within the 2 s command timeout.
    expect(slowest).toBeLessThan(3000)
    expect(spawned.child.exitCode).toBeNull()
    expect(rssKiB(spawned.child.pid!) - rssBefore).toBeLessThan(64 * 1024)
    await waitForOutput(spawned, /the store at redis:\/\/127\.0\.0\.1:\d+\/? is back/, 15_000)
    // Served again, and every create that was answered 201 is in Redis.
    expect((await post(url, { name: 'After' })).status).toBe(201)
    const lost: number[] = []
    for (let start = 0; start < acknowledged.length; start += 50) {
      const batch = acknowledged.slice(start, start + 50)
      const reads = await Promise.all(batch.map((id) => fetch(`${url}/plants/${id}`, { headers: auth })))
      reads.forEach((read, index) => read.status !== 200 && lost.push(batch[index]!))
      await Promise.all(reads.map((read) => read.arrayBuffer()))
    }
    expect(acknowledged.length).toBeGreaterThan(0)
    expect(lost).toEqual([])
  }, 40_000)
})

/** Resident memory of a process, from /proc. */
function rssKiB(pid: number): number {
  return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
}
