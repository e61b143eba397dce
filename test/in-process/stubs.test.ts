/**
 * Runtime stubs (#16) through `createApp().request()`: `POST/GET/DELETE /__mock/stubs` and
 * `/__mock/stubs/{id}`, what a stub answers and when, where it stands among Prefer, scenarios and
 * security, what the journal says of it, and the in-process `mock.stub()`. Every admin answer is
 * checked against `admin-openapi.yaml` by the admin oracle.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AppOptions, type JournalEntry, type MockApp, NetworkFault } from '../../src/index.js'
import { createApp, entryId } from '../support/store-under-test.js'
import { type AdminOracle, createAdminOracle } from '../support/admin-oracle.js'
import { expectErrorBody, fixtures } from '../support/cases.js'

const TOKEN = 'stub-token'
const ROSE = { id: 3, name: 'Rose' }
const FERN = { id: 4, name: 'Fern' }
const ROSE_STUB = { operation: 'addPlant', when: { body: { '$.name': 'Rose' } } }

/** A description whose request body declares a closed `pot`, so `$.pot.colour` is a path no valid body has. */
const GARDEN = `openapi: 3.1.0
info: { title: Garden, version: 1.0.0 }
paths:
  /pots:
    post:
      operationId: addPot
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                pot:
                  type: object
                  additionalProperties: false
                  properties: { size: { type: integer } }
      responses:
        '201': { description: added }
`

let oracle: AdminOracle
let gardenDir: string

beforeAll(async () => {
  oracle = await createAdminOracle()
  gardenDir = mkdtempSync(join(tmpdir(), 'stubs-garden-'))
  writeFileSync(join(gardenDir, 'garden.yaml'), GARDEN)
}, 60_000)

afterAll(() => {
  rmSync(gardenDir, { recursive: true, force: true })
})

interface Answer {
  status: number
  headers: Headers
  text: string
  json: any
}

function plantApp(options: AppOptions = {}): Promise<MockApp> {
  return createApp({ tokens: [TOKEN], ...options })
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text()
  const json = /json/.test(response.headers.get('content-type') ?? '') && text ? JSON.parse(text) : undefined
  return { status: response.status, headers: response.headers, text, json }
}

/** An admin call; its answer must conform to admin-openapi.yaml. */
async function admin(
  app: MockApp,
  method: string,
  path: string,
  init: { body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await app.request(`/__mock${path}`, { method, body: init.body, headers: init.headers })
  const answer = await answerOf(response)
  const exchange = { method, path: `/__mock${path}`, status: answer.status, headers: answer.headers, text: answer.text }
  expect(oracle.problems(exchange), `${method} /__mock${path} → ${answer.status} ${answer.text}`).toEqual([])
  return answer
}

function postStub(app: MockApp, definition: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const body = typeof definition === 'string' ? definition : JSON.stringify(definition)
  return admin(app, 'POST', '/stubs', { body, headers: { 'content-type': 'application/json', ...headers } })
}

/** Creates a stub that must be taken, and returns its id. */
async function stubOf(app: MockApp, definition: unknown, headers: Record<string, string> = {}): Promise<number> {
  const answer = await postStub(app, definition, headers)
  expect(answer.status, answer.text).toBe(201)
  return answer.json.id
}

/** A POST /plants with the token; `headers` adds to or (with `undefined`) drops the defaults. */
async function addPlant(
  app: MockApp,
  body: unknown = ROSE,
  headers: Record<string, string | undefined> = {},
): Promise<Answer> {
  const sent = Object.entries({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers })
  const defined = sent.filter((entry): entry is [string, string] => entry[1] !== undefined)
  const response = await app.request('/plants', { method: 'POST', headers: defined, body: JSON.stringify(body) })
  return answerOf(response)
}

/** The statuses of `count` Roses sent one after another. */
async function statuses(app: MockApp, count: number): Promise<number[]> {
  const seen: number[] = []
  for (let n = 0; n < count; n++) seen.push((await addPlant(app)).status)
  return seen
}

async function listStubs(app: MockApp, query = '', headers: Record<string, string> = {}): Promise<any[]> {
  const answer = await admin(app, 'GET', `/stubs${query}`, { headers })
  expect(answer.status).toBe(200)
  return answer.json.stubs
}

async function journal(app: MockApp, query = ''): Promise<JournalEntry[]> {
  const answer = await admin(app, 'GET', `/requests${query}`)
  expect(answer.status).toBe(200)
  return answer.json.requests
}

describe('POST /__mock/stubs', () => {
  it('creates a stub: 201 with the definition as sent, its id, operation, priority and hits', async () => {
    const app = await plantApp()
    const definition = { ...ROSE_STUB, status: 400, example: 'duplicate-id' }
    const created = await postStub(app, definition)
    expect(created.status).toBe(201)
    expect(created.json).toEqual({ ...definition, id: 1, priority: 5, hits: 0 })
    expect((await postStub(app, { operation: 'post /plants', priority: 2 })).json).toMatchObject({
      id: 2,
      operation: 'addPlant',
      priority: 2,
    })
  })

  it('the stub answers a request it matches; another gets the default answer', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, status: 400, example: 'duplicate-id' })
    const rose = await addPlant(app, ROSE)
    expect(rose.status).toBe(400)
    expect(rose.json).toEqual(fixtures.duplicateId)
    const fern = await addPlant(app, FERN)
    expect(fern.status).toBe(200)
    expect(fern.json).toEqual({ name: 'Fern' })
  })

  it('times: 1 answers once, then the default answer', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, status: 400, times: 1 })
    expect(await statuses(app, 3)).toEqual([400, 200, 200])
  })

  it('a sequence gives its answers in turn, the last repeating; cycle starts it over', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, sequence: [{ status: 400 }, {}] })
    expect(await statuses(app, 4)).toEqual([400, 200, 200, 200])
    const cycling = await plantApp()
    await stubOf(cycling, { ...ROSE_STUB, sequence: [{ status: 400 }, {}], cycle: true })
    expect(await statuses(cycling, 5)).toEqual([400, 200, 400, 200, 400])
  })

  it('priority 1 is tried before 5, and among equal priorities the newest first', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, priority: 1, body: { name: 'first of priority 1' } })
    await stubOf(app, { ...ROSE_STUB, body: { name: 'newest of priority 5' } })
    expect((await addPlant(app)).json).toEqual({ name: 'first of priority 1' })
    await stubOf(app, { ...ROSE_STUB, priority: 1, body: { name: 'newest of priority 1' } })
    expect((await addPlant(app)).json).toEqual({ name: 'newest of priority 1' })
  })

  it("a session's stub answers only that session's requests (X-Mock-Session)", async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, session: 'worker-1', status: 400 })
    expect((await addPlant(app, ROSE, { 'x-mock-session': 'worker-1' })).status).toBe(400)
    expect((await addPlant(app, ROSE, { 'x-mock-session': 'worker-2' })).status).toBe(200)
    expect((await addPlant(app, ROSE)).status).toBe(200)
  })

  it('an inline body fills its {{request.body.name}} placeholder from the request', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, body: { name: 'A {{request.body.name}} from a stub', tag: 'stubbed' } })
    const answer = await addPlant(app)
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({ name: 'A Rose from a stub', tag: 'stubbed' })
  })

  it('headers are sent with the answer, over the usual body', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, headers: { 'X-Stub': 'yes', 'Cache-Control': 'no-store' } })
    const answer = await addPlant(app)
    expect(answer.headers.get('x-stub')).toBe('yes')
    expect(answer.headers.get('cache-control')).toBe('no-store')
    expect(answer.json).toEqual({ name: 'Rose' })
    expect((await addPlant(app, FERN)).headers.get('x-stub')).toBeNull()
  })

  it('delay holds the answer at least that long', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, delay: 40 })
    const started = performance.now()
    expect((await addPlant(app)).status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(38)
  })

  it('fault: reset makes app.request() reject with a NetworkFault, journaled with status 0', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, fault: 'reset' })
    const failure = await addPlant(app).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(NetworkFault)
    expect(failure).toMatchObject({ fault: 'reset' })
    expect(await journal(app)).toMatchObject([{ status: 0, fault: 'reset', answeredBy: 'stub 1' }])
  })

  it('validate: false answers a request that breaks the description; one it does not match gets the 400', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, validate: false, status: 200, body: { name: 'accepted' } })
    const accepted = await addPlant(app, { name: 'Rose' })
    expect(accepted.status).toBe(200)
    expect(accepted.json).toEqual({ name: 'accepted' })
    const refused = await addPlant(app, { name: 'Fern' })
    expect(refused.status).toBe(400)
    expectErrorBody(refused.json, 400)
    expect(refused.json.message).toContain('id')
    const [first, second] = await journal(app)
    expect(first).toMatchObject({ status: 200, valid: false, answeredBy: 'stub 1' })
    expect(first!.violations.map((v) => v.path)).toContain('body.id')
    expect(second).toMatchObject({ status: 400, valid: false })
    expect(second!.answeredBy).toBeUndefined()
  })
})

describe('stubs refused with 400 naming the problem', () => {
  it.each([
    ['an unknown operation', { operation: 'deletePlant', status: 400 }, /"deletePlant" names no operation.*addPlant/],
    ['an undeclared status', { operation: 'addPlant', status: 418 }, 'addPlant does not declare status 418'],
    [
      'a body breaking the 200 schema',
      { operation: 'addPlant', status: 200, body: { tag: 'no name' } },
      /breaks the schema of addPlant's 200 response: body\.name/,
    ],
    [
      'a regular expression that does not compile',
      { operation: 'addPlant', when: { body: { '$.name': { matches: '(' } } } },
      'is no regular expression',
    ],
    [
      'an unknown operator',
      { operation: 'addPlant', when: { body: { '$.name': { like: 'Ro%' } } } },
      '"like" is no operator',
    ],
    [
      'a JSON path the request schema cannot have',
      { operation: 'addPlant', when: { body: { '$.name.first': 'Rose' } } },
      'no "first" at $.name',
    ],
    ['an unknown field', { operation: 'addPlant', answer: 400 }, 'unknown field(s) answer'],
    ['a body that is not JSON', '{"operation": addPlant', 'The body must be a JSON object.'],
    ['a JSON body that is no object', '["addPlant"]', 'The body must be a JSON object.'],
  ])('%s', async (_, definition, problem) => {
    const app = await plantApp()
    const refused = await postStub(app, definition)
    expect(refused.status).toBe(400)
    expectErrorBody(refused.json, 400)
    if (typeof problem === 'string') expect(refused.json.message).toContain(problem)
    else expect(refused.json.message).toMatch(problem)
    expect(await listStubs(app)).toEqual([])
    expect((await addPlant(app)).status).toBe(200)
  })

  it('a JSON path the request schema makes impossible ($.pot.colour in a closed pot)', async () => {
    const app = await createApp({ spec: join(gardenDir, 'garden.yaml') })
    const refused = await postStub(app, { operation: 'addPot', when: { body: { '$.pot.colour': 'red' } } })
    expect(refused.status).toBe(400)
    expect(refused.json.message).toContain('the request body schema has no "colour" at $.pot')
    const possible = await postStub(app, { operation: 'addPot', when: { body: { '$.pot.size': { gt: 3 } } } })
    expect(possible.status).toBe(201)
  })

  it('a body breaking the schema is taken with "force": true; its answer carries X-Mock-Violations', async () => {
    const app = await plantApp()
    const created = await postStub(app, { ...ROSE_STUB, body: { tag: 'no name' }, force: true })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ id: 1, force: true, forced: true })
    const answer = await addPlant(app)
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({ tag: 'no name' })
    const violations = JSON.parse(answer.headers.get('x-mock-violations') ?? '[]') as unknown[]
    expect(violations).toContainEqual(expect.objectContaining({ location: 'response.body', pointer: '/name' }))
    const [entry] = await journal(app)
    expect(entry!.responseViolations?.map((v) => v.path)).toContain('body.name')
  })
})

describe('the limits and the admin token', () => {
  it('a body over maxBodyBytes answers 413 and adds no stub', async () => {
    const app = await plantApp({ maxBodyBytes: 1024 })
    const answer = await postStub(app, { ...ROSE_STUB, body: { name: 'x'.repeat(2048) } })
    expect(answer.status).toBe(413)
    expectErrorBody(answer.json, 413)
    expect(await listStubs(app)).toEqual([])
  })

  it('the 1001st stub answers 409 naming the limit', async () => {
    const app = await plantApp()
    for (let n = 0; n < 1000; n++) app.mock.stub({ ...ROSE_STUB, status: 400 })
    const answer = await postStub(app, { ...ROSE_STUB, status: 400 })
    expect(answer.status).toBe(409)
    expect(answer.json.message).toContain('1000 stubs')
    expect(app.mock.stubs()).toHaveLength(1000)
  })

  it('with an admin token, the stub routes answer 401 without it', async () => {
    const app = await plantApp({ adminToken: 'admin-s3cret' })
    expect((await postStub(app, { ...ROSE_STUB, status: 400 })).status).toBe(401)
    expect((await admin(app, 'GET', '/stubs')).status).toBe(401)
    expect((await admin(app, 'DELETE', '/stubs/1')).status).toBe(401)
    const taken = await postStub(app, { ...ROSE_STUB, status: 400 }, { authorization: 'Bearer admin-s3cret' })
    expect(taken.status).toBe(201)
  })

  it('the admin oracle holds a stub to the Stub schema', () => {
    const created = { method: 'POST', path: '/__mock/stubs', status: 201 }
    const headers = new Headers({ 'content-type': 'application/json' })
    const stub = { ...ROSE_STUB, status: 400, id: 1, operation: 'addPlant', priority: 5, hits: 0 }
    expect(oracle.problems({ ...created, headers, text: JSON.stringify(stub) })).toEqual([])
    const { hits: _, ...withoutHits } = stub
    expect(oracle.problems({ ...created, headers, text: JSON.stringify(withoutHits) })).not.toEqual([])
    expect(oracle.problems({ ...created, headers, text: JSON.stringify({ ...stub, colour: 'red' }) })).not.toEqual([])
    expect(oracle.problems({ ...created, headers, text: JSON.stringify({ ...stub, fault: 'smoke' }) })).not.toEqual([])
  })
})

describe('GET and DELETE /__mock/stubs', () => {
  it('GET /__mock/stubs and /__mock/stubs/{id} count the hits over every session', async () => {
    const app = await plantApp()
    const rose = await stubOf(app, { ...ROSE_STUB, status: 400 })
    const fern = await stubOf(app, { operation: 'addPlant', when: { body: { '$.name': 'Fern' } }, status: 400 })
    await addPlant(app, ROSE)
    await addPlant(app, ROSE, { 'x-mock-session': 'worker-1' })
    await addPlant(app, { id: 5, name: 'Ivy' })
    expect((await listStubs(app)).map((stub) => [stub.id, stub.hits])).toEqual([
      [rose, 2],
      [fern, 0],
    ])
    const one = await admin(app, 'GET', `/stubs/${rose}`)
    expect(one.status).toBe(200)
    expect(one.json).toMatchObject({ id: rose, hits: 2 })
  })

  it('GET /__mock/stubs with a session lists only the stubs made for it', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, status: 400 })
    const mine = await stubOf(app, { ...ROSE_STUB, session: 'worker-1', status: 400 })
    expect((await listStubs(app, '?session=worker-1')).map((stub) => stub.id)).toEqual([mine])
    expect((await listStubs(app, '', { 'x-mock-session': 'worker-1' })).map((stub) => stub.id)).toEqual([mine])
    expect(await listStubs(app)).toHaveLength(2)
  })

  it('DELETE /__mock/stubs/{id} answers 204, then the stub is gone: 404 and the default answer', async () => {
    const app = await plantApp()
    const id = await stubOf(app, { ...ROSE_STUB, status: 400 })
    expect((await admin(app, 'DELETE', `/stubs/${id}`)).status).toBe(204)
    const missing = await admin(app, 'GET', `/stubs/${id}`)
    expect(missing.status).toBe(404)
    expectErrorBody(missing.json, 404)
    expect((await admin(app, 'DELETE', `/stubs/${id}`)).status).toBe(404)
    expect((await addPlant(app)).status).toBe(200)
  })

  it('an id that is no stub answers 404', async () => {
    const app = await plantApp()
    const answer = await admin(app, 'GET', '/stubs/abc')
    expect(answer.status).toBe(404)
    expect(answer.json.message).toContain('no stub "abc"')
    expect((await admin(app, 'GET', '/stubs/7')).status).toBe(404)
  })

  it("DELETE /__mock/stubs removes every stub, or with a session only that session's", async () => {
    const app = await plantApp()
    const shared = await stubOf(app, { ...ROSE_STUB, status: 400 })
    await stubOf(app, { ...ROSE_STUB, session: 'worker-1', status: 400 })
    expect((await admin(app, 'DELETE', '/stubs', { headers: { 'x-mock-session': 'worker-1' } })).status).toBe(204)
    expect((await listStubs(app)).map((stub) => stub.id)).toEqual([shared])
    expect((await admin(app, 'DELETE', '/stubs')).status).toBe(204)
    expect(await listStubs(app)).toEqual([])
    expect((await addPlant(app)).status).toBe(200)
  })

  it("POST /__mock/reset removes the stubs and zeroes their counts; a session's reset only its own", async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, status: 400, times: 1 })
    await stubOf(app, { operation: 'addPlant', when: { body: { '$.name': 'Ivy' } }, session: 'worker-1', status: 400 })
    expect(await statuses(app, 2)).toEqual([400, 200])
    expect((await admin(app, 'POST', '/reset?session=worker-1')).status).toBe(200)
    expect((await listStubs(app)).map((stub) => [stub.session, stub.hits])).toEqual([[undefined, 1]])
    expect((await admin(app, 'POST', '/reset')).status).toBe(200)
    expect(await listStubs(app)).toEqual([])
    expect((await addPlant(app)).status).toBe(200)
  })
})

describe('the journal names the stub', () => {
  it('answeredBy names the stub that answered, and the answeredBy filter lists and counts them', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, status: 400 })
    await addPlant(app, ROSE)
    await addPlant(app, FERN)
    await addPlant(app, ROSE)
    const [rose, fern] = await journal(app)
    expect(rose).toMatchObject({ status: 400, answeredBy: 'stub 1' })
    expect(fern!.answeredBy).toBeUndefined()
    expect((await journal(app, '?answeredBy=stub%201')).map((entry) => entry.id)).toEqual([entryId(1), entryId(3)])
    expect((await journal(app, '?answeredBy=stub%202')).length).toBe(0)
    const counted = await admin(app, 'GET', '/requests/count?answeredBy=stub%201')
    expect(counted.json).toEqual({ count: 2 })
  })

  it('nearMiss names the closest stub, its failing condition and what the request had', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, status: 400 })
    await addPlant(app, FERN)
    const [entry] = await journal(app)
    expect(entry!.status).toBe(200)
    expect(entry!.nearMiss).toEqual({ rule: 'stub 1', condition: 'body $.name equals "Rose"', actual: '"Fern"' })
  })
})

describe('where a stub stands', () => {
  it('Prefer: code=400 beats a matching stub, and counts no hit', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, body: { name: 'stubbed' } })
    const answer = await addPlant(app, ROSE, { prefer: 'code=400' })
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual(fixtures.invalid)
    expect((await listStubs(app))[0].hits).toBe(0)
  })

  it("a stub beats the scenario's rule", async () => {
    const app = await plantApp({ scenario: 'duplicate-plant' })
    await stubOf(app, { ...ROSE_STUB, body: { name: 'stubbed' } })
    expect((await addPlant(app, ROSE)).json).toEqual({ name: 'stubbed' })
    expect((await addPlant(app, FERN)).json).toEqual(fixtures.duplicateId)
  })

  it('security comes first: no token is 401 even with a matching stub', async () => {
    const app = await plantApp()
    await stubOf(app, { ...ROSE_STUB, body: { name: 'stubbed' } })
    const answer = await addPlant(app, ROSE, { authorization: undefined })
    expect(answer.status).toBe(401)
    expect((await listStubs(app))[0].hits).toBe(0)
  })
})

describe('mock.stub() in process', () => {
  it('returns a handle with its id, calls, hits and remove()', async () => {
    const app = await plantApp()
    const stub = app.mock.stub({ ...ROSE_STUB, status: 400 })
    expect(stub.id).toBe(1)
    expect(stub.hits).toBe(0)
    await addPlant(app, ROSE)
    await addPlant(app, FERN)
    await addPlant(app, ROSE, { 'x-mock-session': 'worker-1' })
    expect(stub.hits).toBe(2)
    expect(stub.calls.map((call) => [call.status, call.answeredBy, call.session])).toEqual([
      [400, 'stub 1', undefined],
      [400, 'stub 1', 'worker-1'],
    ])
    expect(app.mock.stubs()).toMatchObject([{ id: 1, operation: 'addPlant', hits: 2 }])
    stub.remove()
    expect(app.mock.stubs()).toEqual([])
    expect((await addPlant(app, ROSE)).status).toBe(200)
  })

  it('mock.reset() removes the stubs; mock.stub() throws a 400 MockError for a stub it does not take', async () => {
    const app = await plantApp()
    app.mock.stub({ ...ROSE_STUB, status: 400 })
    app.mock.reset()
    expect(app.mock.stubs()).toEqual([])
    expect((await addPlant(app)).status).toBe(200)
    expect(() => app.mock.stub({ operation: 'addPlant', status: 418 })).toThrow(
      expect.objectContaining({ status: 400, message: expect.stringContaining('does not declare status 418') }),
    )
  })
})
