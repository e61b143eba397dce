/**
 * Response headers (#13 "Response headers"): every header a response declares is sent, with the
 * value the description writes for it, else one made of its schema, in the `simple` style; values
 * are checked against their schemas at start-up, fixtures may set headers in a `.headers.json`
 * sidecar, and under `--dynamic` made-up values can be generated again (`generateHeaders`).
 * test/descriptions/response-headers.yaml (OpenAPI 3.0) and response-headers-swagger2.yaml show each case;
 * Prism's answers to the same description are in test/socket/prism-response-headers.test.ts.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { nodePlatform } from '../../src/node/node-platform.js'
import { type MockServer, createApp, startMockServer } from '../../src/index.js'
import { type Engine, createEngine } from '../../src/engine/engine.js'
import { silentLogger } from '../../src/common/log.js'
import type { DeclaredResponse } from '../../src/responses/declared-responses.js'
import { createFaker } from '../../src/generation/fake.js'
import type { StartupErrorCode } from '../../src/errors/index.js'
import { expectStartupError } from '../support/startup-error.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

// json-schema-faker is loaded on demand (#33); the engine loads it at start-up, and these make fakers of their own.
beforeAll(() => createFaker({}, 0).load())

const spec = fileURLToPath(new URL('../descriptions/response-headers.yaml', import.meta.url))
const swagger2 = fileURLToPath(new URL('../descriptions/response-headers-swagger2.yaml', import.meta.url))
const fixtures = fileURLToPath(new URL('../descriptions/response-headers-fixtures', import.meta.url))

type App = Awaited<ReturnType<typeof createApp>>

function recordingLogger() {
  const warnings: string[] = []
  return { warnings, logger: { info() {}, warn: (message: string) => warnings.push(message), error() {} } }
}

/** The headers of an answer, the transport's own left out. */
function headersOf(res: Response): Record<string, string> {
  const own = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'])
  return Object.fromEntries([...res.headers].filter(([name]) => !own.has(name)))
}

/** What GET /plants sends, by any transport. */
const LIST_HEADERS = {
  'content-type': 'application/json',
  'x-rate-limit': '100',
  'x-request-id': '8a7c2f4e-0b1d-4c3e-9f00-1a2b3c4d5e6f',
  'x-total-count': '1',
  'last-modified-at': '2019-08-24T14:15:22Z',
  'x-plan': 'free',
  'x-region': 'eu-west',
  'x-checksum': '08ff49b6',
  'x-meta': '{"cached":true}',
}

/** What GET /plant-styles sends: arrays comma-joined, objects `k,v,k,v`, exploded `k=v,k=v`. */
const STYLE_HEADERS = {
  'content-type': 'application/json',
  'x-tags': 'green',
  'x-ids': '3,4,5',
  'x-page': 'number,2,size,20',
  'x-page-exploded': 'number=2,size=20',
}

describe('response headers, in process', () => {
  let app: App
  const { warnings, logger } = recordingLogger()
  beforeAll(async () => {
    app = await createApp({ spec, logger })
  })

  it('sends every declared header: its example, the first of its examples, else its schema’s example, default, enum or a sample', async () => {
    const res = await app.request('/plants')
    expect(res.status).toBe(200)
    expect(headersOf(res)).toEqual(LIST_HEADERS)
  })

  it('writes array and object headers in the simple style, exploded or not', async () => {
    expect(headersOf(await app.request('/plant-styles'))).toEqual(STYLE_HEADERS)
  })

  it('ignores a declared Content-Type and Content-Length: the negotiated media type and the server say them', async () => {
    const res = await app.request('/plants')
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(res.headers.get('content-length')).not.toBe('7')
  })

  it('sends a Location without an example as a path, or a URL for format uri, as before', async () => {
    expect(headersOf(await app.request('/plants', { method: 'POST' }))).toEqual({
      'content-type': 'application/json',
      location: '/',
      etag: '"v1"',
    })
    const moved = await app.request('/old-plants', { redirect: 'manual' })
    expect(moved.status).toBe(301)
    expect(moved.headers.get('location')).toBe('http://127.0.0.1/')
  })

  it('sends a header shared through components/headers with every response that refers to it', async () => {
    expect((await app.request('/plants', { method: 'POST' })).headers.get('etag')).toBe('"v1"')
    expect((await app.request('/plants/1')).headers.get('etag')).toBe('"v1"')
  })

  it('sends an example that breaks its schema, and reports it with every answer', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await app.request('/plants/1')
      expect(res.headers.get('x-cache-hits')).toBe('99')
      expect(JSON.parse(res.headers.get('x-mock-violations')!)).toEqual([
        { location: 'response.header', pointer: '/x-cache-hits', message: 'must be <= 10' },
      ])
    }
  })

  it('leaves out an optional header no made-up value fits, and a Set-Cookie the description gives no value', async () => {
    const res = await app.request('/plants/1')
    expect(res.headers.get('x-sample-breaks')).toBeNull()
    expect(res.headers.get('set-cookie')).toBeNull()
  })

  it('sends a Set-Cookie the description writes, and a required header made of its schema, on a 204', async () => {
    const res = await app.request('/plants/1', { method: 'DELETE' })
    expect(res.status).toBe(204)
    expect(headersOf(res)).toEqual({
      'set-cookie': 'session=; Path=/; Max-Age=0',
      'x-deleted-at': '2019-08-24T14:15:22Z',
    })
  })

  it('makes an example a header cannot carry fit: a line break becomes a space, other characters are percent-encoded', async () => {
    expect((await app.request('/greeting')).headers.get('x-greeting')).toBe('Gr%C3%BC%C3%9Fe aus K%C3%B6ln')
  })

  it('warns once at start-up of each value it changed, left out, or sends breaking its schema, naming the operation, status, header and rule', () => {
    expect(warnings).toHaveLength(3)
    expect(warnings.find((w) => w.includes('X-Cache-Hits'))).toMatch(
      /^showPlant 200: the X-Cache-Hits header is sent with the value the description gives, "99", which breaks its schema .*must be <= 10/,
    )
    expect(warnings.find((w) => w.includes('X-Sample-Breaks'))).toMatch(
      /^showPlant 200: the optional header X-Sample-Breaks is not sent: .*must NOT have fewer than 5 characters/,
    )
    expect(warnings.find((w) => w.includes('X-Greeting'))).toMatch(
      /^greeting 200: the X-Greeting header is sent as "Gr%C3%BC%C3%9Fe aus K%C3%B6ln"/,
    )
  })

  it('refuses an answer whose header breaks its schema under --errors', async () => {
    const strict = await createApp({ spec, errors: true, logger: silentLogger })
    const res = await strict.request('/plants/1')
    expect(res.status).toBe(500)
    expect(((await res.json()) as { message: string }).message).toContain('x-cache-hits')
    expect((await strict.request('/plants')).status).toBe(200)
  })

  it('sends the headers of a Swagger 2.0 description, converted to schemas', async () => {
    const swagger = await createApp({ spec: swagger2, logger: silentLogger })
    expect(headersOf(await swagger.request('/user/login'))).toEqual({
      'content-type': 'application/json',
      'x-rate-limit': '0',
      'x-expires-after': '2019-08-24T14:15:22Z',
      'x-plan': 'free',
      'x-region': 'eu-west',
      'x-scopes': 'read',
    })
    expect((await swagger.request('/user', { method: 'POST' })).headers.get('location')).toBe('http://127.0.0.1/')
  })
})

describe('response headers, over a socket', () => {
  let server: MockServer
  beforeAll(async () => {
    server = await startMockServer({ spec, port: 0, logger: silentLogger })
  })
  afterAll(() => server?.close())

  const get = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { redirect: 'manual', ...init, signal: AbortSignal.timeout(10_000) })

  it('sends every declared header over HTTP, the server’s own Content-Length beside them', async () => {
    const res = await get('/plants')
    const body = await res.text()
    expect(headersOf(res)).toEqual(LIST_HEADERS)
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(body)))
  })

  it('sends array and object headers, a Location and a percent-encoded value over HTTP', async () => {
    expect(headersOf(await get('/plant-styles'))).toEqual(STYLE_HEADERS)
    expect((await get('/plants', { method: 'POST' })).headers.get('location')).toBe('/')
    expect((await get('/greeting')).headers.get('x-greeting')).toBe('Gr%C3%BC%C3%9Fe aus K%C3%B6ln')
  })

  it('sends the headers of a 204 over HTTP, and reports a broken example', async () => {
    expect(headersOf(await get('/plants/1', { method: 'DELETE' }))).toEqual({
      'set-cookie': 'session=; Path=/; Max-Age=0',
      'x-deleted-at': '2019-08-24T14:15:22Z',
    })
    expect((await get('/plants/1')).headers.get('x-mock-violations')).toContain('/x-cache-hits')
  })
})

/** The compiled response of an operation and status. */
function responseOf(engine: Engine, operationId: string, code: string): DeclaredResponse {
  const response = engine.operations.find((o) => o.id === operationId)?.responses.declared.find((r) => r.code === code)
  if (!response) throw new Error(`no ${operationId} ${code}`)
  return response
}

describe('generateHeaders: header values generated again under --dynamic', () => {
  let engine: Engine
  beforeAll(async () => {
    engine = await createEngine({ spec }, silentLogger, { platform: nodePlatform })
  })

  /** A stand-in for the faker: 42 for integers, "generated" for strings, "[generated]" for arrays. */
  const fake = (schema: object): unknown => {
    const { type } = schema as { type?: string }
    return type === 'integer' ? 42 : type === 'array' ? ['leafy', 'green'] : 'generated'
  }

  it('generates made-up values again, keeps the values the description writes, and writes them in the header’s style', () => {
    const headers = responseOf(engine, 'listPlants', '200').generateHeaders!(fake)
    expect(headers).toEqual({
      ...LIST_HEADERS,
      'content-type': undefined,
      'x-total-count': '42',
      'last-modified-at': '2019-08-24T14:15:22Z',
      'x-checksum': '08ff49b6',
    })
    expect(responseOf(engine, 'plantStyles', '200').generateHeaders!(fake)['x-tags']).toBe('leafy,green')
  })

  it('keeps the static value where a generated one breaks its schema (a date-time, a pattern)', () => {
    const headers = responseOf(engine, 'listPlants', '200').generateHeaders!(() => 'generated')
    expect(headers['x-total-count']).toBe('1')
    expect(headers['last-modified-at']).toBe('2019-08-24T14:15:22Z')
    expect(headers['x-checksum']).toBe('08ff49b6')
  })

  it('gives a fresh record each time, and leaves the response’s own headers as they are', () => {
    const response = responseOf(engine, 'listPlants', '200')
    const first = response.generateHeaders!(fake)
    expect(response.generateHeaders!(fake)).not.toBe(first)
    expect(response.headers!['x-total-count']).toBe('1')
  })

  it('generates values that meet their schemas with the mock’s own faker', () => {
    const faker = createFaker(engine.spec.document, 1)
    const headers = responseOf(engine, 'listPlants', '200').generateHeaders!((schema) => faker(schema))
    expect(Number(headers['x-total-count'])).toBeGreaterThanOrEqual(1)
    expect(headers['x-checksum']).toMatch(/^[a-f0-9]{8}$/)
    expect(Number.isNaN(Date.parse(headers['last-modified-at']!))).toBe(false)
  })

  it('is absent where no header would change: examples, a Location, a Set-Cookie', () => {
    expect(responseOf(engine, 'greeting', '200').generateHeaders).toBeUndefined()
    expect(responseOf(engine, 'oldPlants', '301').generateHeaders).toBeUndefined()
    expect(responseOf(engine, 'addPlant', '201').generateHeaders).toBeUndefined()
  })
})

describe('generated headers over HTTP (--dynamic)', () => {
  it('sends generated values that meet their schemas with a generated body, the written ones as written', async () => {
    const app = await createApp({ spec, dynamic: true, seed: 5, logger: silentLogger })
    const counts = new Set<string>()
    for (let i = 0; i < 3; i++) {
      const res = await app.request('/plants')
      expect(res.status).toBe(200)
      expect(res.headers.get('x-mock-violations')).toBeNull()
      const headers = headersOf(res)
      expect(headers['x-rate-limit']).toBe('100')
      expect(headers['x-checksum']).toMatch(/^[a-f0-9]{8}$/)
      expect(Number(headers['x-total-count'])).toBeGreaterThanOrEqual(1)
      counts.add(headers['x-total-count']!)
    }
    // Not the static '1' every time: generated per answer.
    expect([...counts]).not.toEqual(['1'])
    // Prefer: dynamic=false answers the static body with the static values.
    expect(headersOf(await app.request('/plants', { headers: { prefer: 'dynamic=false' } }))['x-total-count']).toBe('1')
  })
})

describe('fixture headers: <status>[.<name>].headers.json beside the body', () => {
  afterEach(removeTempDirs)

  it('puts the sidecar’s headers, over the declared ones, on the fixture’s body: numbers written as text, undeclared names kept', async () => {
    const engine = await createEngine({ spec, fixtures }, silentLogger, { platform: nodePlatform })
    const list = responseOf(engine, 'listPlants', '200')
    expect(list.bodies.get('default')?.headers).toEqual({
      ...LIST_HEADERS,
      'content-type': undefined,
      'x-rate-limit': '5',
      'x-total-count': '1',
      'x-served-from': 'fixture',
    })
    expect(list.bodies.get('bare')?.headers).toBeUndefined()
    expect(list.bodies.has('headers')).toBe(false)
    expect(responseOf(engine, 'addPlant', '201').bodies.get('default')?.headers).toEqual({
      location: '/plants/9',
      etag: '"v9"',
    })
  })

  it('serves a fixture’s headers with its body, and the declared ones with the others', async () => {
    const app = await createApp({ spec, fixtures, logger: silentLogger })
    const res = await app.request('/plants')
    expect(res.headers.get('x-rate-limit')).toBe('5')
    expect(res.headers.get('x-served-from')).toBe('fixture')
    const bare = await app.request('/plants', { headers: { prefer: 'example=bare' } })
    expect(bare.headers.get('x-rate-limit')).toBe('100')
    expect(bare.headers.get('x-served-from')).toBeNull()
  })

  const STARTUP_ERRORS: Array<[string, Record<string, unknown>, StartupErrorCode, string | undefined]> = [
    [
      'a sidecar without its body',
      { 'listPlants/200.json': [], 'listPlants/200.other.headers.json': {} },
      'fixture_orphan_headers',
      'put 200.other.json beside it',
    ],
    [
      'a sidecar that is not an object',
      { 'listPlants/200.json': [], 'listPlants/200.headers.json': ['X-Rate-Limit'] },
      'fixture_bad_headers',
      undefined,
    ],
    [
      'a value that is not text, a number or a boolean',
      { 'listPlants/200.json': [], 'listPlants/200.headers.json': { 'X-Served-From': ['a'] } },
      'fixture_bad_headers',
      'the header "X-Served-From" must have a string, number or boolean value',
    ],
    [
      'a value a header cannot carry',
      { 'listPlants/200.json': [], 'listPlants/200.headers.json': { 'X-Served-From': 'a\nb' } },
      'fixture_bad_headers',
      'the header "X-Served-From" has a value a header cannot carry',
    ],
    [
      'a name HTTP cannot carry',
      { 'listPlants/200.json': [], 'listPlants/200.headers.json': { 'X Served': 'a' } },
      'fixture_bad_headers',
      'the header "X Served" is not a header name',
    ],
    [
      'a header the mock or the server sets',
      { 'listPlants/200.json': [], 'listPlants/200.headers.json': { 'Content-Type': 'text/csv' } },
      'fixture_bad_headers',
      'the header "Content-Type" is set by the mock or the server',
    ],
    [
      'a name given twice',
      { 'listPlants/200.json': [], 'listPlants/200.headers.json': { ETag: '"a"', etag: '"b"' } },
      'fixture_duplicate_header',
      'the header "etag"',
    ],
    [
      'a value that breaks the declared schema',
      { 'listPlants/200.json': [], 'listPlants/200.headers.json': { 'X-Rate-Limit': 'lots' } },
      'fixture_headers_mismatch',
      'header["x-rate-limit"] must be an integer',
    ],
    [
      'a value below the declared minimum',
      { 'listPlants/200.json': [], 'listPlants/200.headers.json': { 'X-Total-Count': 0 } },
      'fixture_headers_mismatch',
      'header["x-total-count"] must be >= 1',
    ],
  ]

  it.each(STARTUP_ERRORS)('stops start-up on %s, naming the file', async (_name, files, code, fragment) => {
    const dir = await tempDir('response-headers-fixtures-', files)
    const error = await expectStartupError(
      createEngine({ spec, fixtures: dir }, silentLogger, { platform: nodePlatform }),
      code,
    )
    if (fragment) expect(error.message).toContain(fragment)
    expect(error.message).toMatch(/listPlants[/\\]200\.(other\.)?headers\.json/)
  })
})
