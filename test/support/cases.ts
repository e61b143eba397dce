/**
 * The request cases of the Plant Store (POST /plants), in one table that every transport runs:
 * `test/in-process/plants.test.ts` through `app.request()`, `test/socket/plants.test.ts` over a socket,
 * `test/in-process/conformance.test.ts` through both, against the oracle (h3's `describeMatrix`).
 * Each case is one behaviour, with its request beside its expectation.
 */
import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { fileURLToPath } from 'node:url'
import type { Hono } from 'hono'
import { expect } from 'vitest'
import type { AppOptions } from '../../src/index.js'

export type HeaderValue = string | readonly string[]

export interface CaseRequest {
  /** @default 'POST' */
  method?: string
  /** @default '/plants' */
  path?: string
  /** A list is sent as repeated header lines (over a socket) or appended (in process). */
  headers?: Record<string, HeaderValue>
  body?: string | Uint8Array
}

export interface CaseExpectation {
  status: number
  /** The exact JSON body (a fixture, for instance). */
  body?: unknown
  /** Fragments an error message must contain: the field paths at fault and what is wrong with them. */
  message?: Array<string | RegExp>
  /** Response headers that must be present and match. */
  headers?: Record<string, RegExp>
  /** HEAD: no body at all. */
  noBody?: boolean
  /** The body is the default 200 fixture rendered for this request: its name and tag echoed (#3). */
  echo?: boolean
}

export interface RequestCase {
  name: string
  /** Options of the mock the case needs; cases with equal options share one app or server. */
  options?: Pick<AppOptions, 'tokens' | 'maxBodyBytes' | 'seed' | 'dynamic'>
  request: CaseRequest
  expect: CaseExpectation
}

const root = fileURLToPath(new URL('../../', import.meta.url))
export const specPath = `${root}openapi.yaml`

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(`${root}fixtures/addPlant/${name}`, 'utf8'))
}

export const fixtures = {
  ok: fixture('200.json'),
  invalid: fixture('400.json'),
  duplicateId: fixture('400.duplicate-id.json'),
}

const TOKEN = 'Bearer any-token'
const JSON_TYPE = 'application/json'
const auth = { authorization: TOKEN, 'content-type': JSON_TYPE }
const VALID = '{"id":1,"name":"Fern"}'
const INT64 = 'must be a signed 64-bit integer'
const DEEP = 100_000
/** A too deep body's refusal names where the limit is passed and the limit (#34: it read `(1 problem): ` alone). */
const NESTED = (path: string, position: number) =>
  `${path} opens level 257 of nesting at position ${position}: the limit is 256 levels (--max-depth)`

/** A valid POST /plants, with what the case changes. */
function post(overrides: { headers?: Record<string, HeaderValue>; body?: string | Uint8Array } = {}): CaseRequest {
  return {
    method: 'POST',
    path: '/plants',
    headers: { ...auth, ...overrides.headers },
    body: 'body' in overrides ? overrides.body : VALID,
  }
}

function withId(literal: string): CaseRequest {
  return post({ body: `{"id":${literal},"name":"Fern"}` })
}

const okFixture: CaseExpectation = { status: 200, echo: true }

function invalid(...message: Array<string | RegExp>): CaseExpectation {
  return { status: 400, message }
}

/** A request control naming what the description does not hold: 404, as Prism answers it (#30). */
function undeclared(...message: Array<string | RegExp>): CaseExpectation {
  return { status: 404, message }
}

/** A JSON body of exactly `size` bytes: a valid plant padded in its name. */
export function plantOfSize(size: number): string {
  const empty = '{"id":1,"name":""}'
  return `{"id":1,"name":"${'x'.repeat(size - empty.length)}"}`
}

export const cases: RequestCase[] = [
  // Routing
  {
    name: 'an unknown path gets 404 naming the method and path',
    request: { ...post(), path: '/trees' },
    expect: { status: 404, message: ['POST /trees'] },
  },
  {
    name: 'a path that differs only in case gets 404',
    request: { ...post(), path: '/PLANTS' },
    expect: { status: 404, message: ['/PLANTS'] },
  },
  {
    name: 'a trailing slash makes another path, which gets 404',
    request: { ...post(), path: '/plants/' },
    expect: { status: 404, message: ['/plants/'] },
  },
  {
    name: 'a percent-encoded NUL in the path gets 404',
    request: { ...post(), path: '/plants%00' },
    expect: { status: 404, message: ['/plants%00'] },
  },
  {
    name: 'a query string does not change the matched path',
    request: { ...post(), path: '/plants?color=green' },
    expect: okFixture,
  },
  {
    name: 'an undeclared method on a known path gets 405 with Allow: POST',
    request: { method: 'GET', path: '/plants', headers: { authorization: TOKEN } },
    expect: { status: 405, headers: { allow: /^POST$/ }, message: ['GET', '/plants', 'POST'] },
  },
  {
    name: 'an undeclared method gets 405 before credentials are checked',
    request: { method: 'DELETE', path: '/plants' },
    expect: { status: 405, headers: { allow: /^POST$/ }, message: ['DELETE'] },
  },
  {
    name: 'a HEAD request gets 405 with Allow and no body',
    request: { method: 'HEAD', path: '/plants', headers: { authorization: TOKEN } },
    expect: { status: 405, headers: { allow: /^POST$/ }, noBody: true },
  },

  // Bearer authentication
  {
    name: 'a request without Authorization gets 401 with a Bearer challenge',
    request: post({ headers: { authorization: [] } }),
    expect: { status: 401, headers: { 'www-authenticate': /^Bearer/ }, message: ['Authorization: Bearer'] },
  },
  {
    name: 'a Basic credential gets 401 with a Bearer challenge',
    request: post({ headers: { authorization: 'Basic dXNlcjpwYXNz' } }),
    expect: { status: 401, headers: { 'www-authenticate': /^Bearer/ }, message: ['Authorization: Bearer'] },
  },
  {
    name: 'a scheme glued to its token is not the Bearer scheme and gets 401',
    request: post({ headers: { authorization: 'Bearerabc' } }),
    expect: { status: 401, headers: { 'www-authenticate': /^Bearer/ }, message: ['Authorization: Bearer'] },
  },
  {
    name: 'the Bearer scheme with no token gets 401',
    request: post({ headers: { authorization: 'Bearer' } }),
    expect: { status: 401, headers: { 'www-authenticate': /^Bearer/ }, message: ['empty'] },
  },
  {
    name: 'the Bearer scheme with a token of spaces gets 401',
    request: post({ headers: { authorization: 'Bearer    ' } }),
    expect: { status: 401, headers: { 'www-authenticate': /^Bearer/ }, message: ['empty'] },
  },
  {
    name: 'the scheme name is case-insensitive: "bearer abc" passes',
    request: post({ headers: { authorization: 'bearer abc' } }),
    expect: okFixture,
  },
  {
    name: 'the scheme name is case-insensitive: "BEARER abc" passes',
    request: post({ headers: { authorization: 'BEARER abc' } }),
    expect: okFixture,
  },
  {
    name: 'any non-empty token passes when no tokens are configured',
    request: post({ headers: { authorization: 'Bearer x' } }),
    expect: okFixture,
  },
  {
    name: 'a configured token passes',
    options: { tokens: ['T'] },
    request: post({ headers: { authorization: 'Bearer T' } }),
    expect: okFixture,
  },
  {
    name: 'another token than the configured ones gets 401 with error="invalid_token"',
    options: { tokens: ['T'] },
    request: post({ headers: { authorization: 'Bearer U' } }),
    expect: {
      status: 401,
      headers: { 'www-authenticate': /^Bearer\b.*error="invalid_token"/ },
      message: ['not accepted'],
    },
  },
  {
    name: 'configured tokens are compared case-sensitively',
    options: { tokens: ['T'] },
    request: post({ headers: { authorization: 'Bearer t' } }),
    expect: { status: 401, headers: { 'www-authenticate': /error="invalid_token"/ }, message: ['not accepted'] },
  },
  {
    name: 'a repeated Authorization header is not taken for a configured token',
    options: { tokens: ['T'] },
    request: post({ headers: { authorization: ['Bearer T', 'Bearer T'] } }),
    expect: { status: 401, headers: { 'www-authenticate': /^Bearer/ } },
  },
  {
    name: 'security is checked before Prefer: code=200 without a token still gets 401',
    request: post({ headers: { authorization: [], prefer: 'code=200' } }),
    expect: { status: 401, headers: { 'www-authenticate': /^Bearer/ }, message: ['Authorization: Bearer'] },
  },
  {
    name: 'security is checked before the body: an invalid body without a token gets 401',
    request: post({ headers: { authorization: [] }, body: '{"id":"x"}' }),
    expect: { status: 401, headers: { 'www-authenticate': /^Bearer/ } },
  },

  // Media type
  {
    name: 'a text/plain body gets 415 naming the type received and the one accepted',
    request: post({ headers: { 'content-type': 'text/plain' } }),
    expect: { status: 415, message: ['text/plain', 'application/json'] },
  },
  {
    name: 'a body without Content-Type gets 415',
    request: post({ headers: { 'content-type': [] }, body: new TextEncoder().encode(VALID) }),
    expect: { status: 415, message: ['no Content-Type'] },
  },
  {
    name: 'a type that only starts like application/json gets 415',
    request: post({ headers: { 'content-type': 'application/jsonx' } }),
    expect: { status: 415, message: ['application/jsonx'] },
  },
  {
    name: 'a charset parameter is accepted',
    request: post({ headers: { 'content-type': 'application/json; charset=utf-8' } }),
    expect: okFixture,
  },
  {
    name: 'a +json media type is accepted as JSON',
    request: post({ headers: { 'content-type': 'application/vnd.plant+json' } }),
    expect: okFixture,
  },
  {
    name: 'the media type is case-insensitive',
    request: post({ headers: { 'content-type': 'Application/JSON' } }),
    expect: okFixture,
  },
  {
    name: 'odd Content-Type parameters do not hide application/json',
    request: post({ headers: { 'content-type': 'application/json; charset="utf-8"; q=";;"; =; ;' } }),
    expect: okFixture,
  },
  {
    name: 'a Content-Type of only a semicolon gets 415',
    request: post({ headers: { 'content-type': ';' } }),
    expect: { status: 415, message: ['";"'] },
  },
  {
    name: 'a repeated Content-Type header gets 415, not a crash',
    request: post({ headers: { 'content-type': [JSON_TYPE, JSON_TYPE] } }),
    expect: { status: 415, message: ['Content-Type'] },
  },

  // Body: presence and syntax
  {
    name: 'a request with no body gets 400',
    request: post({ headers: { 'content-type': [] }, body: undefined }),
    expect: invalid('body is required'),
  },
  { name: 'an empty JSON body gets 400', request: post({ body: '' }), expect: invalid('body is required') },
  { name: 'malformed JSON gets 400', request: post({ body: '{"id":1,' }), expect: invalid('body is not valid JSON') },
  { name: 'a JSON array body gets 400', request: post({ body: '[]' }), expect: invalid('body must be an object') },
  { name: 'a JSON null body gets 400', request: post({ body: 'null' }), expect: invalid('body must be an object') },
  { name: 'a JSON string body gets 400', request: post({ body: '"Fern"' }), expect: invalid('body must be an object') },

  // Body: schema
  { name: 'a valid plant gets 200 with the fixture, which has no id', request: post(), expect: okFixture },
  {
    name: 'a plant without the optional tag is valid',
    request: post({ body: '{"id":1,"name":"Fern"}' }),
    expect: okFixture,
  },
  {
    name: 'a plant with a tag is valid',
    request: post({ body: '{"id":1,"name":"Fern","tag":"fern"}' }),
    expect: okFixture,
  },
  {
    name: 'unknown extra properties are allowed',
    request: post({ body: '{"id":1,"name":"Fern","color":"green","pot":{"size":3}}' }),
    expect: okFixture,
  },
  {
    name: 'a missing name gets 400 naming body.name',
    request: post({ body: '{"id":1}' }),
    expect: invalid('body.name is required'),
  },
  {
    name: 'a missing id gets 400 naming body.id',
    request: post({ body: '{"name":"Fern"}' }),
    expect: invalid('body.id is required'),
  },
  {
    name: 'a numeric name gets 400 naming body.name',
    request: post({ body: '{"id":1,"name":5}' }),
    expect: invalid('body.name must be a string'),
  },
  {
    name: 'a null tag gets 400 naming body.tag',
    request: post({ body: '{"id":1,"name":"Fern","tag":null}' }),
    expect: invalid('body.tag must be a string'),
  },
  {
    name: 'every violation is reported in one response',
    request: post({ body: '{"id":"1","tag":5}' }),
    expect: invalid('(3 problems)', 'body.id must be an integer', 'body.name is required', 'body.tag must be a string'),
  },

  // int64 at its exact edges
  {
    name: 'id 9223372036854775807, the largest int64, is valid',
    request: withId('9223372036854775807'),
    expect: okFixture,
  },
  {
    name: 'id -9223372036854775808, the smallest int64, is valid',
    request: withId('-9223372036854775808'),
    expect: okFixture,
  },
  {
    name: 'id 9223372036854775808, one above int64, gets 400',
    request: withId('9223372036854775808'),
    expect: invalid(`body.id ${INT64}`),
  },
  {
    name: 'id -9223372036854775809, one below int64, gets 400',
    request: withId('-9223372036854775809'),
    expect: invalid(`body.id ${INT64}`),
  },
  {
    name: 'id 9.223372036854775807e18, the largest int64 in exponent form, is valid',
    request: withId('9.223372036854775807e18'),
    expect: okFixture,
  },
  { name: 'id 9223372036854775807.0 is valid', request: withId('9223372036854775807.0'), expect: okFixture },
  { name: 'id 1e400 gets 400 naming body.id', request: withId('1e400'), expect: invalid('body.id must be an integer') },
  { name: 'id 1.5 gets 400 naming body.id', request: withId('1.5'), expect: invalid('body.id must be an integer') },
  { name: 'id 1.0 is a whole number and valid', request: withId('1.0'), expect: okFixture },
  { name: 'id 1e2 is a whole number and valid', request: withId('1e2'), expect: okFixture },
  {
    name: 'id "1", a string, gets 400 naming body.id',
    request: withId('"1"'),
    expect: invalid('body.id must be an integer'),
  },

  // Prefer
  {
    name: 'Prefer: code=400 serves the declared 400 fixture for a valid body',
    request: post({ headers: { prefer: 'code=400' } }),
    expect: { status: 400, body: fixtures.invalid },
  },
  {
    name: 'Prefer: code=200 serves the 200 fixture',
    request: post({ headers: { prefer: 'code=200' } }),
    expect: okFixture,
  },
  {
    name: 'Prefer: example=duplicate-id serves that named fixture',
    request: post({ headers: { prefer: 'example=duplicate-id' } }),
    expect: { status: 400, body: fixtures.duplicateId },
  },
  {
    name: 'Prefer: code=400, example=duplicate-id serves that named fixture',
    request: post({ headers: { prefer: 'code=400, example=duplicate-id' } }),
    expect: { status: 400, body: fixtures.duplicateId },
  },
  {
    name: 'Prefer split over repeated headers is read as one',
    request: post({ headers: { prefer: ['code=400', 'example=duplicate-id'] } }),
    expect: { status: 400, body: fixtures.duplicateId },
  },
  {
    name: 'Prefer: dynamic=true generates a Plant',
    request: post({ headers: { prefer: 'dynamic=true' } }),
    expect: { status: 200 },
  },
  {
    name: 'an unknown preference is ignored',
    request: post({ headers: { prefer: 'respond-async, wait=5' } }),
    expect: okFixture,
  },
  {
    name: 'Prefer: code=404, a status the operation does not declare, gets a clear 404, as from Prism (#30)',
    request: post({ headers: { prefer: 'code=404' } }),
    expect: undeclared('code=404', 'does not declare', '200, 400'),
  },
  {
    name: 'Prefer: code=abc, not a status, gets a clear 400',
    request: post({ headers: { prefer: 'code=abc' } }),
    expect: invalid('Prefer: code='),
  },
  {
    name: 'Prefer: example=unknown gets a clear 404 listing the available examples, as from Prism (#30)',
    request: post({ headers: { prefer: 'example=unknown' } }),
    expect: undeclared('example=unknown', 'duplicate-id'),
  },
  {
    name: 'Prefer: code=200 with an example of another status gets a clear 404 (#30)',
    request: post({ headers: { prefer: 'code=200, example=duplicate-id' } }),
    expect: undeclared('example=duplicate-id'),
  },
  {
    name: 'an invalid body gets its violations even with Prefer: code=200',
    request: post({ headers: { prefer: 'code=200' }, body: '{"name":"Fern"}' }),
    expect: invalid('body.id is required'),
  },

  // Size
  {
    name: 'a body over maxBodyBytes with Content-Length gets 413 naming the limit',
    options: { maxBodyBytes: 1024 },
    request: post({ body: plantOfSize(1025) }),
    expect: { status: 413, message: ['1024 bytes'] },
  },
  {
    name: 'a body of exactly maxBodyBytes is read',
    options: { maxBodyBytes: 1024 },
    request: post({ body: plantOfSize(1024) }),
    expect: okFixture,
  },
  {
    name: 'a 900 KB string within the default limit is valid',
    request: post({ body: plantOfSize(900 * 1024) }),
    expect: okFixture,
  },
  {
    name: 'a body over the default 1 MiB gets 413',
    request: post({ body: plantOfSize(1024 * 1024 + 1) }),
    expect: { status: 413, message: ['1048576 bytes'] },
  },

  // Odd inputs never give 5xx
  // Nesting is bounded at 256 levels, before parsing (#12).
  {
    name: `${DEEP} unclosed levels of [ get 400 naming the nesting limit`,
    request: post({ body: '['.repeat(DEEP) }),
    expect: invalid(NESTED('body[0][0][0][0]…[0][0][0][0]', 256)),
  },
  {
    name: `${DEEP} closed levels of [ get 400 naming the nesting limit`,
    request: post({ body: '['.repeat(DEEP) + ']'.repeat(DEEP) }),
    expect: invalid(NESTED('body[0][0][0][0]…[0][0][0][0]', 256)),
  },
  {
    name: `${DEEP} levels of nesting in an extra property get 400 naming the nesting limit`,
    request: post({ body: `{"id":1,"name":"Fern","x":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}` }),
    expect: invalid(NESTED('body.x[0][0][0]…[0][0][0][0]', 281)),
  },
  {
    name: '256 levels of nesting, the limit, in an extra property are allowed',
    request: post({ body: `{"id":1,"name":"Fern","x":${'['.repeat(255)}${']'.repeat(255)}}` }),
    expect: okFixture,
  },
  {
    // Regression: lossless-json overflowed its stack here (500).
    name: 'deep nesting beside id 9223372036854775808 gets 400 naming body.id',
    request: post({ body: `{"id":9223372036854775808,"name":"Fern","x":${'['.repeat(255)}${']'.repeat(255)}}` }),
    expect: invalid(`body.id ${INT64}`),
  },
  {
    // Regression: lossless-json threw on the duplicate key (500). JSON.parse keeps the last value.
    name: 'a duplicate id key is read as its last value: out of range gets 400',
    request: post({ body: '{"id":9223372036854775807,"id":9223372036854775808,"name":"Fern"}' }),
    expect: invalid(`body.id ${INT64}`),
  },
  {
    name: 'a duplicate id key is read as its last value: in range is valid',
    request: post({ body: '{"id":9223372036854775808,"id":9223372036854775807,"name":"Fern"}' }),
    expect: okFixture,
  },
  {
    name: 'a __proto__ key does not supply a missing id',
    request: post({ body: '{"__proto__":{"id":1},"name":"Fern"}' }),
    expect: invalid('body.id is required'),
  },
  {
    name: '__proto__ and constructor keys beside a valid plant are allowed',
    request: post({ body: '{"__proto__":{"admin":true},"constructor":{"prototype":{}},"id":1,"name":"Fern"}' }),
    expect: okFixture,
  },
  {
    name: 'an escaped NUL in a string is valid',
    request: post({ body: '{"id":1,"name":"Fe\\u0000rn"}' }),
    expect: okFixture,
  },
  {
    name: 'a raw NUL byte in a string gets 400',
    request: post({ body: '{"id":1,"name":"Fe\u0000rn"}' }),
    expect: invalid('body is not valid JSON'),
  },
  {
    name: 'invalid UTF-8 gets 400',
    request: post({
      body: new Uint8Array([
        0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x31, 0x2c, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d,
      ]),
    }),
    expect: invalid('body is not valid UTF-8'),
  },
]

/** Options as a key, so that cases with equal options share one app or server. */
export function optionsKey(options: RequestCase['options'] = {}): string {
  return JSON.stringify(Object.entries(options).sort(([a], [b]) => a.localeCompare(b)))
}

/** What any transport hands back. */
export interface Received {
  status: number
  header(name: string): string | null
  text: string
}

function headersOf(request: CaseRequest): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    for (const item of typeof value === 'string' ? [value] : value) headers.append(name, item)
  }
  return headers
}

/** Through `app.request()`: no socket. */
export async function sendInProcess(app: Hono<any>, request: CaseRequest): Promise<Received> {
  const response = await app.request(request.path ?? '/plants', {
    method: request.method ?? 'POST',
    headers: headersOf(request),
    body: request.body,
  })
  return { status: response.status, header: (name) => response.headers.get(name), text: await response.text() }
}

/** Repeated headers need raw header lines, which fetch cannot send. */
export function needsRawClient(request: CaseRequest): boolean {
  return Object.values(request.headers ?? {}).some((value) => typeof value !== 'string' && value.length > 1)
}

/** Over a socket: global fetch, or node:http where fetch cannot say what the case sends. */
export async function sendOverSocket(baseUrl: string, request: CaseRequest): Promise<Received> {
  if (needsRawClient(request)) return sendWithNodeHttp(baseUrl, request)
  const response = await fetch(baseUrl + (request.path ?? '/plants'), {
    method: request.method ?? 'POST',
    headers: headersOf(request),
    body: request.body,
  })
  return { status: response.status, header: (name) => response.headers.get(name), text: await response.text() }
}

export function sendWithNodeHttp(baseUrl: string, request: CaseRequest): Promise<Received> {
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (typeof value === 'string') headers[name] = value
    else if (value.length) headers[name] = [...value]
  }
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      baseUrl + (request.path ?? '/plants'),
      { method: request.method ?? 'POST', headers },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            header: (name) => {
              const value = response.headers[name.toLowerCase()]
              return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
            },
            text: Buffer.concat(chunks).toString('utf8'),
          })
        })
        response.on('error', reject)
      },
    )
    outgoing.on('error', reject)
    outgoing.end(request.body)
  })
}

/**
 * The checks every case gets: its status, then the shape the issue asks of each kind of body
 * (`{ error: <status>, message: <sentence> }` for errors; a Plant with only name and tag for 200),
 * then what the case itself expects.
 */
export function expectCase(testCase: RequestCase, received: Received): void {
  const expected = testCase.expect
  expect(received.status, received.text.slice(0, 300)).toBe(expected.status)
  for (const [name, pattern] of Object.entries(expected.headers ?? {})) {
    expect(received.header(name), `header ${name}`).toMatch(pattern)
  }
  if (expected.noBody) {
    expect(received.text).toBe('')
    return
  }
  expect(received.header('content-type')).toMatch(/^application\/json\b/)
  const body = JSON.parse(received.text) as Record<string, unknown>
  if (expected.status >= 400) expectErrorBody(body, expected.status)
  else expectPlant(body)
  if ('body' in expected) expect(body).toEqual(expected.body)
  if (expected.echo) expect(body).toEqual(echoOf(testCase.request))
  for (const fragment of expected.message ?? [])
    expect(body.message).toEqual(expect.stringMatching(asPattern(fragment)))
}

/** What fixtures/addPlant/200.json renders: the request's name, and its tag only when sent. */
export function echoOf(request: CaseRequest): Record<string, unknown> {
  const text = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body)
  const { name, tag } = JSON.parse(text) as Record<string, unknown>
  return tag === undefined ? { name } : { name, tag }
}

export function expectErrorBody(body: Record<string, unknown>, status: number): void {
  expect(Object.keys(body).sort()).toEqual(['error', 'message'])
  expect(body.error).toBe(status)
  // A sentence: a capital letter first, a full stop last.
  expect(body.message).toMatch(/^[A-Z][\s\S]*\.$/)
}

export function expectPlant(body: Record<string, unknown>): void {
  expect(body).not.toHaveProperty('id')
  expect(Object.keys(body).filter((key) => key !== 'name' && key !== 'tag')).toEqual([])
  expect(typeof body.name).toBe('string')
  if ('tag' in body) expect(typeof body.tag).toBe('string')
}

function asPattern(fragment: string | RegExp): RegExp {
  return typeof fragment === 'string' ? new RegExp(fragment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : fragment
}
