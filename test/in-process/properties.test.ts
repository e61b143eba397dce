/**
 * Property-based tests (#5), in process through `createApp().request()`: arbitrary bodies, headers,
 * paths, methods and mock-control headers. Whatever arrives, the mock answers within a bound, with a
 * status the description declares or docs/ documents, never 5xx, and every error body has the
 * `Error` shape. fast-check runs with a fixed seed; a failure report prints the seed and the path
 * to replay it (`fc.assert(..., { seed, path })`). Set FC_SEED to explore other inputs.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockApp, StartupError, createApp } from '../../src/index.js'
import { type Oracle, createOracle } from '../support/oracle.js'

const SEED = Number(process.env.FC_SEED ?? 20_250_505)
const RUNS = 60
const REQUEST_TIMEOUT_MS = 3000
const params = (numRuns = RUNS) => ({ seed: SEED, numRuns, endOnFailure: true })

/**
 * The one list of statuses the Plant Store mock may answer (docs/how-an-answer-is-chosen.md, "How a request is answered"):
 * - declared by POST /plants in openapi.yaml: 200, 400 (400 is also its violation status, so 422
 *   never appears: "the first one the operation declares of 422, 400");
 * - documented for every description: 401, 404, 405, 406, 413, 415;
 * - the admin API (admin-openapi.yaml): 200, 204, 400, 401, 404, 413;
 * - a CORS preflight for a declared operation: 204.
 */
const ALLOWED_STATUSES = new Set([200, 204, 400, 401, 404, 405, 406, 413, 415])

const specPath = fileURLToPath(new URL('../../openapi.yaml', import.meta.url))
let app: MockApp
let oracle: Oracle

beforeAll(async () => {
  app = await createApp()
  oracle = await createOracle(specPath)
})

interface Sent {
  method: string
  path: string
  headers?: [string, string][]
  body?: string | Uint8Array
}

/** POST /plants with a token and this body, as the given media type. */
function postPlant(body: string | Uint8Array, type = 'application/json'): Sent {
  return {
    method: 'POST',
    path: '/plants',
    headers: [
      ['authorization', 'Bearer t'],
      ['content-type', type],
    ],
    body,
  }
}

interface Answer {
  status: number
  contentType: string | null
  text: string
}

/** One request, bounded: a request that takes longer than REQUEST_TIMEOUT_MS fails the property. */
async function send(target: MockApp, { method, path, headers = [], body }: Sent): Promise<Answer> {
  const init: RequestInit = { method, headers: new Headers(headers) }
  if (body !== undefined && method !== 'GET' && method !== 'HEAD') init.body = body
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms to ${method} ${path}`)),
      REQUEST_TIMEOUT_MS,
    )
  })
  try {
    const response = await Promise.race([target.request(path, init), timeout])
    const text = await Promise.race([response.text(), timeout])
    return { status: response.status, contentType: response.headers.get('content-type'), text }
  } finally {
    clearTimeout(timer)
  }
}

/** Status allowed, not 5xx, an error body of the `Error` shape, and (off the admin API) conformant to Prism. */
function checkAnswer(sent: Sent, answer: Answer): void {
  const where = `${sent.method} ${sent.path} → ${answer.status} ${answer.text.slice(0, 200)}`
  expect(answer.status, where).toBeLessThan(500)
  expect(ALLOWED_STATUSES.has(answer.status), `${where}: status not declared nor documented`).toBe(true)
  if (answer.status >= 400 && sent.method !== 'HEAD') {
    const body = JSON.parse(answer.text) as Record<string, unknown>
    expect(Object.keys(body).sort(), where).toEqual(['error', 'message'])
    expect(body.error, where).toBe(answer.status)
    expect(typeof body.message, where).toBe('string')
  }
  const pathname = new URL(`http://mock${sent.path}`).pathname
  const isPreflight = sent.method === 'OPTIONS' && answer.status === 204
  // The Plant Store declares no `/`: a 200 there is the mock's own index (#13), as /__mock is its admin API.
  const isIndex = pathname === '/' && answer.status === 200
  if (!pathname.startsWith('/__mock') && !isPreflight && !isIndex) {
    expect(
      oracle.problems({
        method: sent.method,
        path: pathname,
        status: answer.status,
        contentType: answer.contentType,
        text: answer.text,
      }),
      where,
    ).toEqual([])
  }
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Visible ASCII and spaces: what a fetch `Headers` value can carry without a client-side TypeError. */
const headerText = (maxLength = 60) =>
  fc
    .string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength })
    .map((s) => s.trim())

const token = fc.oneof(
  fc.constant('t'),
  headerText(40).filter((s) => s.length > 0),
  fc.constant('a'.repeat(8000)),
)

const authorization = fc.oneof(
  token.map((t) => `Bearer ${t}`),
  token.map((t) => `bearer ${t}`),
  fc.constantFrom(
    'Bearer',
    'Bearer ',
    'Bearer  ',
    'Basic dXNlcjpwYXNz',
    'Basic',
    'Digest x',
    'Bearer a, Bearer b',
    'Bearer\tt',
    'Token t',
    '',
  ),
  headerText(),
)

const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'APPLICATION/JSON',
    'application/json; charset=utf-8',
    'application/json; charset=utf-16',
    'application/json;;;',
    'application/json ; q=1',
    'application/json; boundary="x;y"',
    'application/json; charset="utf-8"; foo=bar',
    'application/merge-patch+json',
    'application/vnd.api+json; ext=x',
    'application/json, text/plain',
    'text/plain',
    'text/json',
    'application/xml',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencoded',
    '*/*',
    'application/',
    '/json',
    ';',
  ),
  headerText(),
)

const accept = fc.constantFrom(
  'application/json',
  '*/*',
  'text/html',
  'application/*',
  'application/json;q=0',
  'image/png, */*;q=0.1',
  '',
  'application/problem+json',
)

/** Scenario names: known ones that answer at once, and arbitrary text (`slow` and `flaky-network` delay and break by design). */
const scenarioName = fc.oneof(
  fc.constantFrom(
    'default',
    'error',
    'unauthorized',
    'dynamic',
    'duplicate-plant',
    '__proto__',
    'constructor',
    'toString',
    'slow ',
    'DEFAULT',
  ),
  headerText(30),
)

/** Prefer values, delays bounded to keep the run short (`delay=` over 600000 or not a number is a 400). */
const prefer = fc.oneof(
  fc.constantFrom(
    'code=200',
    'code=400',
    'code=401',
    'code=500',
    'code=abc',
    'code=2XX',
    'example=duplicate-id',
    'example=monstera',
    'example=__proto__',
    'example=constructor',
    'dynamic=true',
    'dynamic=false',
    'delay=0',
    'delay=5',
    'delay=-1',
    'delay=1e3',
    'delay=600001',
    'delay=99999999999',
    'code=400, example=duplicate-id',
    'code=200; example=duplicate-id',
    'respond-async',
    'return=minimal',
    ',,,',
    '=',
  ),
  fc
    .tuple(fc.constantFrom('code', 'example', 'dynamic', 'wait', 'CODE'), headerText(20))
    .map(([k, v]) => `${k}=${v.replace(/^delay/i, '')}`),
  headerText(),
)

const extraHeaders = fc.array(
  fc.oneof(
    fc.tuple(fc.constant('prefer'), prefer),
    fc.tuple(fc.constant('x-mock-scenario'), scenarioName),
    fc.tuple(fc.constant('x-mock-session'), headerText(30)),
    fc.tuple(fc.constant('accept'), accept),
    fc.tuple(fc.constant('content-type'), contentType),
    fc.tuple(fc.constant('authorization'), authorization),
    fc.tuple(fc.constant('cookie'), headerText()),
    fc.tuple(fc.constant('origin'), fc.constantFrom('http://a.example', 'null', '*')),
    fc.tuple(fc.constantFrom('x-anything', 'x-http-method-override', 'transfer-encoding-x'), headerText()),
  ),
  { maxLength: 6 },
)

/** Invalid UTF-8: lone continuation bytes, overlong forms, surrogates, truncated sequences. */
const invalidUtf8 = fc
  .tuple(
    fc.constantFrom(
      [0x80],
      [0xff],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
      [0xfe, 0xfe],
    ),
    fc.string({ maxLength: 20 }),
  )
  .map(
    ([bad, text]) =>
      new Uint8Array([...Buffer.from(`{"id":1,"name":"${text.replace(/["\\]/g, '')}`), ...bad, ...Buffer.from('"}')]),
  )

const deepNesting = fc
  .tuple(fc.integer({ min: 1, max: 200_000 }), fc.constantFrom('array', 'object', 'name'))
  .map(([depth, kind]) => {
    if (kind === 'array') return `${'['.repeat(depth)}${']'.repeat(depth)}`
    if (kind === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
    return `{"id":1,"name":${'['.repeat(depth)}${']'.repeat(depth)}}`
  })

const longString = fc
  .tuple(fc.integer({ min: 10_000, max: 900_000 }), fc.constantFrom('a', 'é', '😀', '\\u0000', '"'))
  .map(([length, unit]) => JSON.stringify({ id: 1, name: unit.repeat(Math.ceil(length / unit.length)) }))

/** Near-valid NewPlant objects, so that the valid path (200, templates) is reached often. */
const nearPlant = fc.record(
  {
    id: fc.oneof(
      fc.integer(),
      fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
      fc.double(),
      fc.jsonValue(),
    ),
    name: fc.oneof(fc.string(), fc.jsonValue()),
    tag: fc.oneof(fc.string(), fc.jsonValue()),
  },
  { requiredKeys: [] },
)

const body: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  nearPlant.map((v) => JSON.stringify(v)),
  fc.record({ id: fc.integer(), name: fc.string() }).map((v) => JSON.stringify(v)),
  fc.uint8Array({ maxLength: 200 }),
  fc.string({ maxLength: 200 }),
  invalidUtf8,
  deepNesting,
  longString,
  fc.constant(''),
  fc.constant('x'.repeat(1024 * 1024 + 1)),
)

const method = fc.oneof(
  fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'post'),
  fc.stringMatching(/^[A-Z]{1,10}$/),
)

/** Paths with odd segments: dot segments (plain and encoded), encodings, unicode, the admin prefix. */
const path = fc
  .tuple(
    fc.array(
      fc.oneof(
        fc.constantFrom(
          'plants',
          'Plants',
          'plants.json',
          '__mock',
          'health',
          'spec',
          'requests',
          'scenario',
          'reset',
          '..',
          '.',
          '%2e%2e',
          '%2E%2E',
          '%2f',
          '%00',
          '%',
          '%zz',
          '',
          '~',
          'ü',
          '😀',
          '{id}',
          'plants;x=1',
        ),
        fc.webSegment(),
      ),
      { maxLength: 5 },
    ),
    fc.option(fc.webQueryParameters(), { nil: undefined }),
  )
  .map(([segments, query]) => `/${segments.join('/')}${query === undefined ? '' : `?${query}`}`)

/** The body's first 8 KiB: a property failure prints its inputs, and a 1 MiB body would drown the report. */
function shortly(value: string | Uint8Array): string {
  const text = typeof value === 'string' ? value : `bytes ${Buffer.from(value).toString('hex')}`
  return text.length > 8192 ? `${text.slice(0, 8192)}… (${text.length} chars)` : text
}

// ---------------------------------------------------------------------------------------------

describe('arbitrary input through app.request()', () => {
  it('answers any body to POST /plants with a declared or documented status, never 5xx, within a bound (#5)', async () => {
    await fc.assert(
      fc.asyncProperty(body, contentType, async (payload, type) => {
        const sent = postPlant(payload, type)
        checkAnswer(sent, await send(app, sent))
      }),
      { ...params(), examples: [['{"id":1,"name":"Fern"}', 'application/json']] },
    )
  })

  it('answers any JSON-typed body of NewPlant-like values with 200 or 400 only (#5)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          body,
          nearPlant.map((v) => JSON.stringify(v)),
        ),
        async (payload) => {
          const sent = postPlant(payload)
          const answer = await send(app, sent)
          checkAnswer(sent, answer)
          const tooLarge = (typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength) > 1024 * 1024
          expect([200, 400, ...(tooLarge ? [413] : [])], shortly(payload)).toContain(answer.status)
        },
      ),
      params(),
    )
  })

  it('answers arbitrary headers, repeated ones included, with a declared or documented status (#5)', async () => {
    await fc.assert(
      fc.asyncProperty(extraHeaders, fc.boolean(), async (headers, withAuth) => {
        const base: [string, string][] = withAuth
          ? [
              ['authorization', 'Bearer t'],
              ['content-type', 'application/json'],
            ]
          : []
        // Headers.append joins a repeated name with ", ", as a client sending it twice would be read.
        const sent: Sent = {
          method: 'POST',
          path: '/plants',
          headers: [...base, ...headers],
          body: '{"id":1,"name":"Fern"}',
        }
        checkAnswer(sent, await send(app, sent))
      }),
      params(),
    )
  })

  it('answers arbitrary methods and paths, admin paths included, with a declared or documented status (#5)', async () => {
    await fc.assert(
      fc.asyncProperty(
        method,
        path,
        extraHeaders,
        fc.option(body, { nil: undefined }),
        async (verb, target, headers, payload) => {
          fc.pre(isSendable(verb, target))
          const sent: Sent = { method: verb, path: target, headers, body: payload }
          checkAnswer(sent, await send(app, sent))
        },
      ),
      params(),
    )
  })

  it('answers arbitrary Prefer, X-Mock-Scenario and X-Mock-Session values with 200, 400, 401 or 404 (an undeclared code or example, #30) (#5)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(prefer),
        fc.option(scenarioName),
        fc.option(headerText(40)),
        async (preference, scenario, session) => {
          const headers: [string, string][] = [
            ['authorization', 'Bearer t'],
            ['content-type', 'application/json'],
          ]
          if (preference !== null) headers.push(['prefer', preference])
          if (scenario !== null) headers.push(['x-mock-scenario', scenario])
          if (session !== null) headers.push(['x-mock-session', session])
          const sent: Sent = { method: 'POST', path: '/plants', headers, body: '{"id":1,"name":"Fern"}' }
          const answer = await send(app, sent)
          checkAnswer(sent, answer)
          expect([200, 400, 401, 404]).toContain(answer.status)
        },
      ),
      params(),
    )
  })
})

/** A method and path a fetch Request can carry (Node's Request refuses CONNECT, TRACE, TRACK and unparsable URLs). */
function isSendable(verb: string, target: string): boolean {
  if (/^(CONNECT|TRACE|TRACK)$/i.test(verb)) return false
  try {
    new Request(`http://mock${target}`, { method: verb })
    return true
  } catch {
    return false
  }
}

// ---------------------------------------------------------------------------------------------

/** Every own property of the built-in prototypes, as names and descriptors' values. */
function snapshotPrototypes(): string {
  const describe = (proto: object) =>
    Object.getOwnPropertyNames(proto)
      .sort()
      .map((name) => `${name}:${typeof Object.getOwnPropertyDescriptor(proto, name)?.value}`)
      .join(',')
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype].map(describe).join('|')
}

const pollution = fc.oneof(
  fc.constantFrom(
    '{"__proto__":{"polluted":"yes"},"id":1,"name":"Fern"}',
    '{"id":1,"name":"Fern","constructor":{"prototype":{"polluted":"yes"}}}',
    '{"id":1,"name":{"__proto__":{"polluted":"yes"}}}',
    '{"id":1,"name":"Fern","tag":"x","__proto__":{"toString":"yes","polluted":"yes"}}',
    '[{"__proto__":{"polluted":"yes"}}]',
    '{"id":{"__proto__":{"polluted":"yes"}},"name":"Fern"}',
    '{"name":"__proto__","tag":"constructor","id":1}',
  ),
  fc
    .tuple(
      fc.constantFrom('__proto__', 'constructor', 'prototype'),
      fc.constantFrom('__proto__', 'prototype', 'polluted'),
      fc.jsonValue(),
    )
    .map(([a, b, v]) => `{"id":1,"name":"Fern","${a}":{"${b}":{"polluted":${JSON.stringify(v)}}}}`),
)

describe('prototype pollution', () => {
  it('changes nothing on the built-in prototypes, whatever __proto__ or constructor.prototype a request carries (#5)', async () => {
    const before = snapshotPrototypes()
    await fc.assert(
      fc.asyncProperty(
        pollution,
        fc.constantFrom(
          '/plants',
          '/__mock/scenario',
          '/__mock/requests?__proto__[polluted]=yes&constructor[prototype][polluted]=yes',
        ),
        async (payload, target) => {
          const verb = target === '/__mock/scenario' ? 'PUT' : target.startsWith('/__mock/requests') ? 'GET' : 'POST'
          const sent: Sent = {
            method: verb,
            path: target,
            headers: [
              ['authorization', 'Bearer t'],
              ['content-type', 'application/json'],
              ['x-mock-session', '__proto__'],
              ['prefer', 'example=__proto__'],
            ],
            body: payload,
          }
          checkAnswer(sent, await send(app, sent))
          expect(({} as Record<string, unknown>).polluted).toBeUndefined()
          expect(snapshotPrototypes()).toBe(before)
        },
      ),
      params(40),
    )
    // The journal holds those bodies and hands them out as data, not as prototypes.
    const listed = await send(app, { method: 'GET', path: '/__mock/requests' })
    expect(listed.status).toBe(200)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(snapshotPrototypes()).toBe(before)
  })
})

// ---------------------------------------------------------------------------------------------

const made: string[] = []
afterAll(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

async function fixtureWith(name: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mock-hostile-'))
  made.push(dir)
  await mkdir(join(dir, 'addPlant'))
  await writeFile(join(dir, 'addPlant', '200.json'), JSON.stringify({ name }))
  return dir
}

/** What a template may say: `request.` then method, path, or params/query/headers/body with a name. */
const TEMPLATE_GRAMMAR = /^request\.(method|path|(params|query|headers)\..+|body(\..+)?)$/

const hostileExpression = fc.oneof(
  fc.constantFrom(
    'constructor.constructor("return process")()',
    "process.mainModule.require('child_process').execSync('id')",
    'process.env.HOME',
    'global.process',
    'this',
    'require("fs").readFileSync("/etc/passwd")',
    'import("node:fs")',
    '../../etc/passwd',
    '/etc/passwd',
    'file:///etc/passwd',
    'request',
    'request.',
    'request.constructor',
    'request.body.constructor.constructor("return 1")()'.replace('request.body', 'request.__proto__'),
    'request["body"]',
    'request.header("x")',
    'request.env',
    'request.query',
    '#each request.body',
    '> partial',
    '`${process.pid}`',
  ),
  fc.string({ maxLength: 40 }).filter((s) => !s.includes('{') && !s.includes('}')),
)

describe('templates', () => {
  it('refuses at start-up any fixture placeholder outside the template grammar, hostile ones included (#5)', async () => {
    await fc.assert(
      fc.asyncProperty(hostileExpression, async (expression) => {
        const dir = await fixtureWith(`{{${expression}}}`)
        const outcome = await createApp({ fixtures: dir }).then(
          (started) => started,
          (error: unknown) => error,
        )
        if (TEMPLATE_GRAMMAR.test(expression.trim())) return
        if (/[{}]/.test(expression) && !(outcome instanceof StartupError)) {
          // Braces inside break the placeholder, so the text is no template at all: it is served as written.
          const sent = postPlant('{"id":1,"name":"Fern"}')
          const answer = await send(outcome as MockApp, sent)
          expect(JSON.parse(answer.text), expression).toEqual({ name: `{{${expression}}}` })
          return
        }
        expect((outcome as StartupError | undefined)?.code, expression).toBe('template_bad_expression')
        expect(outcome, expression).toBeInstanceOf(StartupError)
      }),
      params(25),
    )
  })

  it('echoes hostile request values as data: placeholders, paths and code in a name come back verbatim (#5)', async () => {
    const hostileName = fc.oneof(
      fc.constantFrom(
        '{{request.headers.authorization}}',
        '{{constructor.constructor("return process")()}}',
        '${process.env.HOME}',
        '../../etc/passwd',
        'file:///etc/passwd',
        '<script>alert(1)</script>',
        '__proto__',
        '{{request.body.name}}{{request.body.name}}',
      ),
      fc.string({ unit: 'binary', maxLength: 100 }),
    )
    await fc.assert(
      fc.asyncProperty(hostileName, async (name) => {
        const sent: Sent = {
          method: 'POST',
          path: '/plants',
          headers: [
            ['authorization', 'Bearer secret-token'],
            ['content-type', 'application/json'],
          ],
          body: JSON.stringify({ id: 1, name }),
        }
        const answer = await send(app, sent)
        checkAnswer(sent, answer)
        expect(answer.status).toBe(200)
        expect(JSON.parse(answer.text)).toEqual({ name })
        expect(answer.text).not.toContain('secret-token')
      }),
      params(),
    )
  })
})
