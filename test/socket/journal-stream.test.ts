/**
 * The journal stream over a real socket (#29): many readers at once, a plain EventSource without a
 * token, the filters, the admin token, and the server closing under open streams.
 */
import { EventSource } from 'eventsource'
import { afterAll, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { type SseReader, openSseReader } from '../support/sse-reader.js'

const PLANT_HEADERS = { authorization: 'Bearer t', 'content-type': 'application/json' }
const servers: MockServer[] = []
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()))
})

async function started(options: Parameters<typeof startMockServer>[0] = {}): Promise<MockServer> {
  const server = await startMockServer({ port: 0, logger: silentLogger, ...options })
  servers.push(server)
  return server
}

const addPlant = (server: MockServer, n: number) =>
  fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: PLANT_HEADERS,
    body: JSON.stringify({ id: n, name: `Fern ${n}` }),
  }).then((r) => r.arrayBuffer())

describe('GET /__mock/requests/stream over a socket', () => {
  it('gives each of 20 open readers every one of 60 requests, once and in order', async () => {
    const server = await started()
    const readers: SseReader[] = []
    for (let n = 0; n < 20; n++) readers.push(await openSseReader(`${server.url}/__mock/requests/stream`))
    for (let batch = 0; batch < 6; batch++)
      await Promise.all(Array.from({ length: 10 }, (_, n) => addPlant(server, batch * 10 + n)))
    await Promise.all(readers.map((reader) => reader.waitFor((events) => events.length >= 60)))
    for (const reader of readers) {
      const ids = reader.entries().map((entry) => entry.id)
      expect(ids).toEqual(Array.from({ length: 60 }, (_, n) => n + 1))
    }
    for (const reader of readers) reader.close()
  })

  it('is read by a plain EventSource, which sends no token', async () => {
    const server = await started()
    const source = new EventSource(`${server.url}/__mock/requests/stream`)
    try {
      const entry = new Promise<{ operation: string; status: number }>((resolve) =>
        source.addEventListener('request', (event) => resolve(JSON.parse(event.data))),
      )
      await new Promise((resolve) => source.addEventListener('open', resolve))
      await addPlant(server, 1)
      expect(await entry).toMatchObject({ operation: 'addPlant', status: 200 })
    } finally {
      source.close()
    }
  })

  it("takes the listing's filters and replays after Last-Event-ID", async () => {
    const server = await started()
    await addPlant(server, 1)
    await fetch(`${server.url}/nowhere`).then((r) => r.arrayBuffer())
    const replayed = await openSseReader(`${server.url}/__mock/requests/stream?status=4xx`, { 'last-event-id': '0' })
    const live = await openSseReader(`${server.url}/__mock/requests/stream?operation=addPlant`)
    await addPlant(server, 2)
    await fetch(`${server.url}/elsewhere`).then((r) => r.arrayBuffer())
    await replayed.waitFor((events) => events.length >= 2)
    await live.waitFor((events) => events.length >= 1)
    expect(replayed.entries().map((e) => e.path)).toEqual(['/nowhere', '/elsewhere'])
    expect(live.entries().map((e) => [e.id, e.operation])).toEqual([[3, 'addPlant']])
    replayed.close()
    live.close()
  })

  it('needs the admin token when the mock has one', async () => {
    const server = await started({ adminToken: 'admin-s3cret' })
    const without = await openSseReader(`${server.url}/__mock/requests/stream`)
    expect(without.response.status).toBe(401)
    const reader = await openSseReader(`${server.url}/__mock/requests/stream`, {
      authorization: 'Bearer admin-s3cret',
    })
    expect(reader.response.status).toBe(200)
    expect(reader.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    reader.close()
  })

  it('ends its streams when the server closes, and close does not wait for their readers', async () => {
    const server = await startMockServer({ port: 0, logger: silentLogger })
    const reader = await openSseReader(`${server.url}/__mock/requests/stream`)
    await server.close()
    await reader.ended
    expect(reader.response.status).toBe(200)
  })
})
