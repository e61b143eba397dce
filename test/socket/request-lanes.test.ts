/**
 * Over a socket, a request to the described API (HEAD included) goes to the pipeline without Hono, and
 * its reply is written to Node's response without a fetch Response (`MockApps.serve`, #19, #34 §6); the
 * admin API, CORS requests, paths Hono decodes first, and `app.request()` go through Hono. Both lanes
 * must answer alike: each request here is sent over a socket and through `app.request()` to mocks of the
 * same options, and the two answers compared. `request-lanes-writer.test.ts` compares the two writers
 * over sockets, for every kind of answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockApp, type MockServer, createApp, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import type { JournalEntry } from '../../src/journal/journal-entry.js'

const auth = { authorization: 'Bearer t' }
const json = { 'content-type': 'application/json' }

const CASES: Array<[string, string, RequestInit]> = [
  ['valid', '/plants', { method: 'POST', headers: { ...auth, ...json }, body: '{"id":1,"name":"Fern","tag":"x"}' }],
  ['invalid body', '/plants', { method: 'POST', headers: { ...auth, ...json }, body: '{"name":42}' }],
  ['malformed JSON', '/plants', { method: 'POST', headers: { ...auth, ...json }, body: '{"name":' }],
  ['no credential', '/plants', { method: 'POST', headers: json, body: '{"id":1,"name":"Fern"}' }],
  [
    'Prefer: code=400',
    '/plants',
    { method: 'POST', headers: { ...auth, ...json, prefer: 'code=400' }, body: '{"id":1,"name":"Fern"}' },
  ],
  [
    'query control',
    '/plants?__code=400',
    { method: 'POST', headers: { ...auth, ...json }, body: '{"id":1,"name":"Fern"}' },
  ],
  [
    'unsupported media type',
    '/plants',
    { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: 'x' },
  ],
  ['unknown path', '/trees', { method: 'GET' }],
  ['undeclared method', '/plants', { method: 'DELETE', headers: auth }],
  ['dot segments', '/x/../plants', { method: 'POST', headers: { ...auth, ...json }, body: '{"id":1,"name":"Fern"}' }],
  [
    'percent-encoded path',
    '/pl%61nts',
    { method: 'POST', headers: { ...auth, ...json }, body: '{"id":1,"name":"Fern"}' },
  ],
  ['the index page', '/', { method: 'GET' }],
  ['HEAD of the index page', '/', { method: 'HEAD' }],
  ['the admin API', '/__mock/health', { method: 'GET' }],
  ['the admin API, percent-encoded', '/%5F%5Fmock/health', { method: 'GET' }],
  [
    'a CORS preflight',
    '/plants',
    { method: 'OPTIONS', headers: { origin: 'http://app.localhost', 'access-control-request-method': 'POST' } },
  ],
  [
    'a request with an Origin',
    '/plants',
    { method: 'POST', headers: { ...auth, ...json, origin: 'http://app.localhost' }, body: '{"id":1,"name":"Fern"}' },
  ],
]

describe('the server lane and the Hono lane answer alike (#19)', () => {
  let server: MockServer
  let app: MockApp
  beforeAll(async () => {
    server = await startMockServer({ port: 0, logger: silentLogger, seed: 1 })
    app = await createApp({ logger: silentLogger, seed: 1 })
  })
  afterAll(() => server.close())

  it.each(CASES)('%s', async (_name, path, init) => {
    const overSocket = await fetch(server.url + path, init)
    const inProcess = await app.request(path, init)
    expect(overSocket.status).toBe(inProcess.status)
    expect(overSocket.headers.get('content-type')).toBe(inProcess.headers.get('content-type'))
    expect(overSocket.headers.get('access-control-allow-origin')).toBe(
      inProcess.headers.get('access-control-allow-origin'),
    )
    expect(await overSocket.text()).toBe(await inProcess.text())
  })

  it('journals a request answered by either lane alike', async () => {
    server.reset()
    app.mock.reset()
    const [, path, init] = CASES[1]!
    await (await fetch(server.url + path, init)).text()
    await (await app.request(path, init)).text()
    const strip = ({ id: _id, time: _time, durationMs: _ms, headers: _h, ...rest }: JournalEntry) => rest
    expect(server.requests().map(strip)).toEqual(app.mock.requests().map(strip))
    expect(server.requests()).toHaveLength(1)
  })
})
