/**
 * The server's own lane writes the pipeline's reply to Node's response itself, with no fetch Response
 * and no @hono/node-server in between (#34 §6); the fetch lane makes a Response of the same reply and
 * @hono/node-server writes it. Both must answer alike: each request here goes over a real socket to
 * two servers over one mock, one taking its requests on its own lane (`ReloadingApp.take`) and one
 * handing every request to the fetch lane (`ReloadingApp.handler`), and the two answers and journal
 * entries are compared: the status, the headers a client reads, the bytes of the body, or the error
 * the client sees when a fault sends none.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { type IncomingHttpHeaders, request as httpRequest, Agent } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../src/common/log.js'
import { errors } from '../../src/errors/index.js'
import type { AppOptions } from '../../src/http/create-app.js'
import { OpenConnections } from '../../src/node/connection-caps.js'
import { type ReloadingApp, createReloadingApp } from '../../src/node/reloading-app.js'
import { type ListeningServer, listen } from '../../src/node/server.js'
import type { JournalEntry } from '../../src/journal/journal-entry.js'
import { createReceivers } from '../support/receivers.js'

const descriptions = join(import.meta.dirname, '../descriptions')
const auth = { authorization: 'Bearer t', 'content-type': 'application/json' }
const VALID = '{"id":1,"name":"Fern"}'
const receivers = createReceivers()

interface Answer {
  status?: number
  headers?: IncomingHttpHeaders
  body?: string
  /** The error the client saw instead of a whole answer (ECONNRESET, a timeout). */
  error?: string
}

interface Sent {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string
  /** The client gives up after this long (a hanging answer). */
  timeoutMs?: number
  agent?: Agent
}

/** One request with node:http, bounded; resolves with what the client saw, an error included. */
function send(origin: string, sent: Sent): Promise<Answer> {
  return new Promise((resolve) => {
    const outgoing = httpRequest(
      origin + sent.path,
      {
        method: sent.method ?? 'POST',
        headers: sent.headers ?? auth,
        agent: sent.agent,
        signal: AbortSignal.timeout(sent.timeoutMs ?? 5_000),
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        const done = (error?: string) =>
          resolve({
            status: response.statusCode,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('latin1'),
            ...(error ? { error } : {}),
          })
        response.on('end', () => done())
        response.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.name))
        response.on('aborted', () => done('aborted'))
      },
    )
    outgoing.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.name }))
    outgoing.end(sent.body)
  })
}

/** What a client reads of an answer, where the two lanes must agree; the Date and the connection's own headers apart. */
function seen(answer: Answer, { length = true } = {}) {
  const { date: _date, 'keep-alive': _keepAlive, 'content-length': contentLength, ...headers } = answer.headers ?? {}
  return { ...answer, headers: length ? { ...headers, 'content-length': contentLength } : headers }
}

const strip = ({ id: _id, time: _time, durationMs: _ms, headers: _h, ...rest }: JournalEntry) => rest

interface Lanes {
  mock: ReloadingApp
  /** The server that takes the described API's requests on its own lane. */
  own: ListeningServer
  /** The server that hands every request to the fetch lane. */
  fetched: ListeningServer
  /** Sends to both, one after the other, and gives both answers with the journal entry each made. */
  both(sent: Sent): Promise<{ own: Answer; fetched: Answer; entries: JournalEntry[] }>
  close(): Promise<void>
}

async function lanes(options: AppOptions, caps?: { connections: number; described: number }): Promise<Lanes> {
  const mock = await createReloadingApp({ logger: silentLogger, seed: 1, ...options }, silentLogger)
  const server = async (take: boolean) => {
    const connections = new OpenConnections(caps ?? { connections: 1000, described: 900 })
    const crowded = errors.tooManyConnections(connections.caps.described, connections.caps.descriptorLimit)
    const handle = mock.handler({ connections, crowded })
    return listen(
      { fetch: handle },
      { port: 0, host: '127.0.0.1', connections, take: take ? mock.take({ connections, crowded }) : undefined },
    )
  }
  const own = await server(true)
  const fetched = await server(false)
  const journal = () => mock.live().state.journal
  return {
    mock,
    own,
    fetched,
    async both(sent) {
      journal().clearRequests()
      const ownAnswer = await send(own.url, sent)
      const fetchedAnswer = await send(fetched.url, sent)
      return { own: ownAnswer, fetched: fetchedAnswer, entries: journal().listRequests() }
    },
    async close() {
      await mock.close(async () => {
        await own.close()
        await fetched.close()
      })
    },
  }
}

describe('the server lane writes what the fetch lane writes (#34 §6)', () => {
  let plants: Lanes
  let scenarios: string
  beforeAll(async () => {
    scenarios = mkdtempSync(join(tmpdir(), 'lanes-scenarios-'))
    writeFileSync(
      join(scenarios, 'scenarios.yaml'),
      [
        'reset:\n  rules:\n    addPlant: { fault: reset }',
        'empty:\n  rules:\n    addPlant: { fault: empty }',
        'malformed:\n  rules:\n    addPlant: { fault: malformed }',
        'hang:\n  rules:\n    addPlant: { fault: hang }',
        'slow:\n  rules:\n    addPlant: { delay: 150 }',
      ].join('\n'),
    )
    plants = await lanes({ fixtures: scenarios, maxBodyBytes: 1024 })
  })
  afterAll(async () => {
    await plants.close()
    await receivers.closeAll()
    rmSync(scenarios, { recursive: true, force: true })
  })

  const PLANT_CASES: Array<[string, Sent]> = [
    ['a valid request', { path: '/plants', body: VALID }],
    ['an invalid body', { path: '/plants', body: '{"name":42}' }],
    ['no credential', { path: '/plants', headers: { 'content-type': 'application/json' }, body: VALID }],
    ['a Prefer that picks the status', { path: '/plants', headers: { ...auth, prefer: 'code=400' }, body: VALID }],
    ['a body over the limit (413, the connection closed)', { path: '/plants', body: `{"name":"${'x'.repeat(2000)}"}` }],
    ['an unknown path', { method: 'GET', path: '/trees', headers: {} }],
    ['the index page', { method: 'GET', path: '/', headers: {} }],
    ['HEAD of the index page', { method: 'HEAD', path: '/', headers: {} }],
    ['the malformed fault', { path: '/plants', headers: { ...auth, 'x-mock-scenario': 'malformed' }, body: VALID }],
    ['a delay', { path: '/plants', headers: { ...auth, 'x-mock-scenario': 'slow' }, body: VALID }],
  ]

  it.each(PLANT_CASES)('%s', async (_name, sent) => {
    const { own, fetched, entries } = await plants.both(sent)
    expect(own.status).toBeGreaterThan(0)
    // A HEAD's Content-Length is the GET's on the server's lane, as RFC 9110 §9.3.2 allows; none on the fetch lane.
    const length = sent.method !== 'HEAD'
    expect(seen(own, { length })).toEqual(seen(fetched, { length }))
    // The mock's own pages are not journaled, on either lane.
    expect(entries).toHaveLength(sent.path === '/' ? 0 : 2)
    if (entries.length) expect(strip(entries[0]!)).toEqual(strip(entries[1]!))
  })

  it.each([
    ['reset', 'ECONNRESET'],
    ['empty', 'ECONNRESET'],
  ])('the %s fault sends no answer on either lane', async (fault) => {
    const { own, fetched, entries } = await plants.both({
      path: '/plants',
      headers: { ...auth, 'x-mock-scenario': fault },
      body: VALID,
    })
    expect(own.status).toBeUndefined()
    expect(own.error).toBe(fetched.error)
    expect(entries.map((entry) => entry.status)).toEqual([0, 0])
    expect(strip(entries[0]!)).toEqual(strip(entries[1]!))
  })

  it('the hang fault answers neither lane until the client gives up', async () => {
    const { own, fetched, entries } = await plants.both({
      path: '/plants',
      headers: { ...auth, 'x-mock-scenario': 'hang' },
      body: VALID,
      timeoutMs: 300,
    })
    expect(own).toEqual({ error: 'ABORT_ERR' })
    expect(fetched).toEqual(own)
    // The client gone, each hanging answer ends, and is journaled with no response.
    await expect.poll(() => plants.mock.live().state.journal.listRequests().length, { timeout: 3000 }).toBe(2)
    expect(entries.length).toBeLessThanOrEqual(2)
  })

  it('a delayed answer is held on the server lane as on the fetch lane', async () => {
    const started = performance.now()
    await send(plants.own.url, { path: '/plants', headers: { ...auth, 'x-mock-scenario': 'slow' }, body: VALID })
    expect(performance.now() - started).toBeGreaterThanOrEqual(148)
  })

  describe('bodies of other kinds', () => {
    let files: Lanes
    let streams: Lanes
    beforeAll(async () => {
      files = await lanes({
        spec: join(descriptions, 'file-fixtures.yaml'),
        fixtures: join(descriptions, 'file-fixtures'),
      })
      streams = await lanes({ spec: join(descriptions, 'streams.yaml') })
    })
    afterAll(async () => {
      await files.close()
      await streams.close()
    })

    it.each([
      ['a binary file fixture', { method: 'GET', path: '/export', headers: {} }],
      ['an image with its headers sidecar', { method: 'GET', path: '/logo', headers: {} }],
      ['a CSV file fixture', { method: 'GET', path: '/report', headers: {} }],
    ] as Array<[string, Sent]>)('%s', async (_name, sent) => {
      const { own, fetched, entries } = await files.both(sent)
      expect(own.status).toBe(200)
      expect(own.body!.length).toBeGreaterThan(0)
      expect(seen(own)).toEqual(seen(fetched))
      expect(strip(entries[0]!)).toEqual(strip(entries[1]!))
    })

    it('HEAD of a file fixture: the same headers, no body', async () => {
      const { own, fetched } = await files.both({ method: 'HEAD', path: '/export', headers: {} })
      expect(own.body).toBe('')
      expect(seen(own, { length: false })).toEqual(seen(fetched, { length: false }))
      expect(Number(own.headers!['content-length'])).toBeGreaterThan(0)
    })

    it.each([
      ['Server-Sent Events', '/events'],
      ['JSON Lines', '/lines'],
      ['JSON text sequences', '/sequence'],
      ['multipart/mixed', '/parts'],
    ])('a streamed answer (%s)', async (_name, path) => {
      const sent = { method: 'GET', path, headers: { prefer: 'stream-items=4, stream-interval=5' } }
      const { own, fetched, entries } = await streams.both(sent)
      expect(own.status).toBe(200)
      expect(own.headers!['transfer-encoding']).toBe('chunked')
      expect(seen(own)).toEqual(seen(fetched))
      expect(entries.map((entry) => entry.response?.stream?.ended)).toEqual(['complete', 'complete'])
      expect(strip(entries[0]!)).toEqual(strip(entries[1]!))
    })

    it('a stream the client leaves is ended on the server lane, told in the journal', async () => {
      const controller = new AbortController()
      const response = await fetch(`${streams.own.url}/events`, {
        headers: { prefer: 'stream-items=1000, stream-interval=20' },
        signal: controller.signal,
      })
      const reader = response.body!.getReader()
      await reader.read()
      controller.abort()
      await expect
        .poll(() => streams.mock.live().state.journal.listRequests().at(-1)?.response?.stream?.ended, {
          timeout: 3000,
        })
        .toBe('client closed')
    })
  })

  describe('proxy mode', () => {
    let proxied: Lanes
    let streamed: Lanes
    beforeAll(async () => {
      // A fixed Date: the journal keeps the upstream's headers, and the two answers may straddle a second.
      const date = 'Sun, 29 Nov 2026 00:00:00 GMT'
      const upstream = await receivers.start((res, request) => {
        if (request.url.startsWith('/plants'))
          return void res
            .writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'], date })
            .end('{"id":1,"name":"Fern"}')
        res.writeHead(200, { 'content-type': 'text/event-stream', date })
        res.write('data: {"token":"Hi"}\n\n')
        setTimeout(() => res.end('data: {"token":"there"}\n\ndata: [DONE]\n\n'), 20)
      })
      proxied = await lanes({ proxy: upstream.origin })
      streamed = await lanes({ spec: join(descriptions, 'proxy/sequences.yaml'), proxy: upstream.origin })
    })
    afterAll(async () => {
      await proxied.close()
      await streamed.close()
    })

    it("passes the upstream's answer on alike, a list header kept apart", async () => {
      const { own, fetched, entries } = await proxied.both({ path: '/plants', body: VALID })
      expect(own.status).toBe(200)
      expect(own.headers!['set-cookie']).toEqual(['a=1', 'b=2'])
      expect(seen(own)).toEqual(seen(fetched))
      expect(strip(entries[0]!)).toEqual(strip(entries[1]!))
    })

    it("passes the upstream's stream on alike, item by item", async () => {
      const { own, fetched, entries } = await streamed.both({ method: 'GET', path: '/events', headers: {} })
      expect(own.body).toContain('[DONE]')
      expect(seen(own)).toEqual(seen(fetched))
      expect(strip(entries[0]!)).toEqual(strip(entries[1]!))
    })
  })
})

describe('a crowded server refuses alike on both lanes (#34 §2, §6)', () => {
  let crowded: Lanes
  const agents: Agent[] = []
  beforeAll(async () => {
    crowded = await lanes({}, { connections: 4, described: 1 })
  })
  afterEach(() => agents.splice(0).forEach((agent) => agent.destroy()))
  afterAll(() => crowded.close())

  it.each(['own', 'fetched'] as const)(
    'the %s lane: 503 with Retry-After past the cap, the admin API answered',
    async (lane) => {
      const origin = crowded[lane].url
      const first = new Agent({ keepAlive: true, maxSockets: 1 })
      const second = new Agent({ keepAlive: true, maxSockets: 1 })
      agents.push(first, second)
      expect((await send(origin, { path: '/plants', body: VALID, agent: first })).status).toBe(200)
      const refused = await send(origin, { path: '/plants', body: VALID, agent: second })
      expect(refused.status).toBe(503)
      expect(refused.headers!['retry-after']).toBeDefined()
      expect(refused.headers!.connection).toBe('close')
      const admin = await send(origin, { method: 'GET', path: '/__mock/health', headers: {}, agent: new Agent() })
      expect(admin.status).toBe(200)
    },
  )

  it.each(['own', 'fetched'] as const)(
    "the %s lane: a page of another origin gets the 503 with the CORS headers of the mock's other answers",
    async (lane) => {
      const url = crowded[lane].url
      const headers = { ...auth, origin: 'http://app.test:5173' }
      const first = new Agent({ keepAlive: true, maxSockets: 1 })
      const second = new Agent({ keepAlive: true, maxSockets: 1 })
      agents.push(first, second)
      const served = await send(url, { path: '/plants', body: VALID, headers, agent: first })
      expect(served.status).toBe(200)
      const refused = await send(url, { path: '/plants', body: VALID, headers, agent: second })
      expect(refused.status).toBe(503)
      const corsOf = (answer: Answer) =>
        Object.fromEntries(
          Object.entries(answer.headers ?? {}).filter(
            ([name]) => name.startsWith('access-control-') || name === 'vary',
          ),
        )
      expect(corsOf(refused)).toEqual(corsOf(served))
      expect(corsOf(refused)['access-control-allow-origin']).toBe('http://app.test:5173')
    },
  )
})
