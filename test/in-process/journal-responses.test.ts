/**
 * Every answer explains itself (#13 §4): the journal keeps, for each request, why it got its status
 * (`reason`) and what it got (`response`: status, headers, body), in process through `createApp`,
 * through the admin API (checked against admin-openapi.yaml), and over a real socket.
 */
import { readFile } from 'node:fs/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  type JournalEntry,
  type MockApp,
  type MockServer,
  NetworkFault,
  type RequestLine,
  startMockServer,
} from '../../src/index.js'
import { createApp } from '../support/store-under-test.js'
import { formatRequestJson, formatRequestText } from '../../src/common/log.js'
import { createAdminOracle } from '../support/admin-oracle.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'
import { silentLogger } from '../../src/common/log.js'

const json = { authorization: 'Bearer t', 'content-type': 'application/json' }
const FERN = JSON.stringify({ id: 1, name: 'Fern' })
const KIB = 1024

/** The Plant Store's fixtures, with a scenario `broken` whose answers to addPlant are cut by the `malformed` fault. */
async function malformedFixtures(): Promise<string> {
  return tempDir('journal-malformed-', {
    'scenarios.yaml': 'broken:\n  description: half bodies\n  rules:\n    addPlant: { fault: malformed }\n',
    'addPlant/200.json': await readFile(new URL('../../fixtures/addPlant/200.json', import.meta.url), 'utf8'),
  })
}

/** A POST /plants with what the test changes; the answer's text and the journal's last entry. */
async function addPlant(
  app: MockApp,
  { path = '/plants', headers = json as Record<string, string>, body = FERN } = {},
) {
  const response = await app.request(path, { method: 'POST', headers, body })
  const text = await response.text()
  return { response, text, entry: app.mock.requests().at(-1)! }
}

describe('the journal tells why each request got its status, and what it got (#13)', () => {
  let app: MockApp

  beforeAll(async () => {
    app = await createApp({ logger: silentLogger })
  })

  afterEach(() => {
    app.mock.useScenario('default')
    app.mock.clearRequests()
  })

  it('a 200 keeps its body and content type, and has no reason', async () => {
    const { response, text, entry } = await addPlant(app)
    expect(response.status).toBe(200)
    expect(entry.reason).toBeUndefined()
    expect(entry.response).toEqual({ status: 200, headers: { 'content-type': 'application/json' }, body: text })
    expect(JSON.parse(entry.response!.body!)).toMatchObject({ name: 'Fern' })
  })

  it('a 400 lists every violation, and keeps the Error body that names them', async () => {
    const { response, text, entry } = await addPlant(app, { body: JSON.stringify({ id: 'one', name: 5 }) })
    expect(response.status).toBe(400)
    expect(entry.violations.map((v) => v.path)).toEqual(expect.arrayContaining(['body.id', 'body.name']))
    expect(entry.reason).toBe(JSON.parse(text).message)
    expect(entry.response).toMatchObject({ status: 400, headers: { 'content-type': 'application/json' }, body: text })
  })

  it('a 401 keeps its WWW-Authenticate challenge, with the request credential redacted', async () => {
    const strict = await createApp({ logger: silentLogger, tokens: ['s3cret'] })
    const { response, text, entry } = await addPlant(strict, { headers: { ...json, authorization: 'Bearer guess' } })
    expect(response.status).toBe(401)
    expect(entry.headers.authorization).toBe('[redacted]')
    expect(entry.response!.headers['www-authenticate']).toBe(response.headers.get('www-authenticate'))
    expect(entry.response!.headers['www-authenticate']).toMatch(/^Bearer /)
    expect(entry.reason).toBe(JSON.parse(text).message)
    expect(entry.response!.body).toBe(text)
  })

  it('a 404 says no operation matches, and keeps its body', async () => {
    const response = await app.request('/nowhere')
    const entry = app.mock.requests().at(-1)!
    expect(entry).toMatchObject({
      status: 404,
      reason: expect.stringMatching(/^No operation in the description matches GET \/nowhere/),
    })
    expect(entry.response).toMatchObject({ status: 404, body: await response.text() })
  })

  it('a 405 keeps its Allow header and says which methods are declared', async () => {
    const response = await app.request('/plants')
    const entry = app.mock.requests().at(-1)!
    expect(entry.reason).toMatch(/^GET is not declared for \/plants; declared methods: POST/)
    expect(entry.response).toMatchObject({
      status: 405,
      headers: { allow: response.headers.get('allow') },
      body: await response.text(),
    })
  })

  it('a 406, a 413 and a 415 each carry their own message', async () => {
    const small = await createApp({ logger: silentLogger, maxBodyBytes: 64 })
    const cases = [
      {
        target: app,
        headers: { ...json, accept: 'text/plain' },
        body: FERN,
        status: 406,
        reason: /^Accept "text\/plain" accepts none/,
      },
      {
        target: small,
        headers: json,
        body: JSON.stringify({ id: 1, name: 'x'.repeat(100) }),
        status: 413,
        reason: /^The request body is larger than the limit of 64 bytes/,
      },
      {
        target: app,
        headers: { ...json, 'content-type': 'text/plain' },
        body: FERN,
        status: 415,
        reason: /^Content-Type "text\/plain" is not accepted/,
      },
    ]
    for (const { target, headers, body, status, reason } of cases) {
      const { response, text, entry } = await addPlant(target, { headers, body })
      expect(response.status).toBe(status)
      expect(entry.reason).toMatch(reason)
      expect(entry.response).toMatchObject({ status, body: text })
    }
  })

  it('a status forced by Prefer: code= or by ?__code= says so', async () => {
    const prefer = await addPlant(app, { headers: { ...json, prefer: 'code=400' } })
    expect(prefer.entry).toMatchObject({
      status: 400,
      valid: true,
      reason: 'forced by Prefer: code=400',
      response: { status: 400, body: prefer.text },
    })
    const query = await addPlant(app, { path: '/plants?__code=400' })
    expect(query.entry).toMatchObject({
      status: 400,
      valid: true,
      reason: 'forced by __code=400',
      response: { status: 400, body: query.text },
    })
  })

  it('a status forced by a scenario names the scenario, and keeps the fixture it served', async () => {
    app.mock.useScenario('duplicate-plant')
    const duplicate = await addPlant(app)
    expect(duplicate.entry).toMatchObject({ status: 400, reason: 'forced by scenario duplicate-plant' })
    expect(JSON.parse(duplicate.entry.response!.body!)).toEqual({
      error: 400,
      message: 'A plant with this id already exists.',
    })
    app.mock.useScenario('error')
    const error = await addPlant(app)
    expect(error.entry).toMatchObject({
      status: 400,
      reason: 'forced by scenario error',
      response: { body: error.text },
    })
  })

  it('a fault that sends no response is journaled with status 0, its name as the reason, and no response', async () => {
    app.mock.useScenario('flaky-network')
    await expect(app.request('/plants', { method: 'POST', headers: json, body: FERN })).rejects.toBeInstanceOf(
      NetworkFault,
    )
    const entry = app.mock.requests().at(-1)!
    expect(entry).toMatchObject({ status: 0, fault: 'reset', reason: expect.stringMatching(/^fault reset: /) })
    expect(entry).not.toHaveProperty('response')
  })

  it('a malformed fault keeps the half body it sent, and says so', async () => {
    const broken = await createApp({ logger: silentLogger, fixtures: await malformedFixtures(), scenario: 'broken' })
    const { response, text, entry } = await addPlant(broken, {
      body: JSON.stringify({ id: 1, name: 'Monstera deliciosa' }),
    })
    expect(response.status).toBe(200)
    expect(() => JSON.parse(text)).toThrow()
    expect(entry.reason).toMatch(/^fault malformed: /)
    expect(entry.response).toMatchObject({ status: 200, headers: { 'content-type': 'application/json' }, body: text })
    await removeTempDirs()
  })

  it('a body of more than 64 KiB is kept to its first 64 KiB, with bodyTruncated', async () => {
    const { text, entry } = await addPlant(app, { body: JSON.stringify({ id: 1, name: 'x'.repeat(70 * KIB) }) })
    expect(text.length).toBeGreaterThan(70 * KIB)
    expect(entry.response!.bodyTruncated).toBe(true)
    expect(entry.response!.body).toBe(text.slice(0, 64 * KIB))
    expect(entry.bodyTruncated).toBe(true)
  })

  it('a body within 64 KiB of UTF-8 is kept whole; one beyond, in characters of two bytes, is cut at 64 KiB', async () => {
    const whole = await addPlant(app, { body: JSON.stringify({ id: 1, name: 'x'.repeat(40 * KIB) }) })
    expect(whole.entry.response).not.toHaveProperty('bodyTruncated')
    expect(whole.entry.response!.body).toBe(whole.text)
    const wide = await addPlant(app, { body: JSON.stringify({ id: 1, name: 'é'.repeat(40 * KIB) }) })
    expect(wide.entry.response!.bodyTruncated).toBe(true)
    expect(new TextEncoder().encode(wide.entry.response!.body!).byteLength).toBeLessThanOrEqual(64 * KIB)
    expect(wide.entry.response!.body).not.toContain('\uFFFD')
    expect(wide.text.startsWith(wide.entry.response!.body!)).toBe(true)
  })

  it('the byte budget drops the oldest entries by the size of the answers they keep', async () => {
    // Each answer keeps about 40 KiB (a request of the same size besides): 200 KiB hold two such entries, not five.
    const tight = await createApp({ logger: silentLogger, journalBytes: 200 * KIB })
    for (let n = 1; n <= 5; n++) await addPlant(tight, { body: JSON.stringify({ id: n, name: 'x'.repeat(40 * KIB) }) })
    const kept = tight.mock.requests()
    // Counting the requests alone, four would fit.
    expect(kept).toHaveLength(2)
    expect(kept.at(-1)!.body).toContain('"id":5')
  })

  it('GET /__mock/requests lists reason and response as admin-openapi.yaml describes them', async () => {
    await addPlant(app)
    await addPlant(app, { body: JSON.stringify({ id: 'one', name: 5 }) })
    app.mock.useScenario('flaky-network')
    await expect(app.request('/plants', { method: 'POST', headers: json, body: FERN })).rejects.toBeInstanceOf(
      NetworkFault,
    )
    const answer = await app.request('/__mock/requests')
    const text = await answer.text()
    const oracle = await createAdminOracle()
    expect(
      oracle.problems({
        method: 'GET',
        path: '/__mock/requests',
        status: answer.status,
        headers: answer.headers,
        text,
      }),
    ).toEqual([])
    const entries = (JSON.parse(text) as { requests: JournalEntry[] }).requests
    expect(entries.map((e) => [e.status, e.response?.status])).toEqual([
      [200, 200],
      [400, 400],
      [0, undefined],
    ])
    expect(entries[1]!.reason).toBeDefined()
  })
})

describe('the request line carries the reason (#13)', () => {
  it('the JSON line has reason; the text line keeps its shape', async () => {
    const lines: RequestLine[] = []
    const app = await createApp({ logger: { ...silentLogger, request: (line) => void lines.push(line) } })
    await app.request('/plants', { method: 'POST', headers: { ...json, prefer: 'code=400' }, body: FERN })
    await app.request('/plants', { method: 'POST', headers: json, body: FERN })
    expect(JSON.parse(formatRequestJson(lines[0]!))).toMatchObject({
      status: 400,
      forcedBy: 'Prefer: code=400',
      reason: 'forced by Prefer: code=400',
    })
    expect(formatRequestText(lines[0]!)).toMatch(
      /^\[mock\] POST \/plants 400 [\d.]+ ms scenario=default: forced by Prefer: code=400\n$/,
    )
    expect(JSON.parse(formatRequestJson(lines[1]!))).not.toHaveProperty('reason')
    expect(formatRequestJson(lines[1]!)).not.toContain('"response"')
  })
})

describe('over a real socket (#13)', () => {
  let mock: MockServer

  beforeAll(async () => {
    mock = await startMockServer({ port: 0, logger: silentLogger, tokens: ['s3cret'] })
  })

  afterAll(async () => {
    await mock.close()
  })

  it('the journal keeps the answers a client received: a 200 and a 401', async () => {
    const ok = await fetch(`${mock.url}/plants`, {
      method: 'POST',
      headers: { ...json, authorization: 'Bearer s3cret' },
      body: FERN,
    })
    const okText = await ok.text()
    const refused = await fetch(`${mock.url}/plants`, {
      method: 'POST',
      headers: { ...json, authorization: 'Bearer guess' },
      body: FERN,
    })
    const refusedText = await refused.text()
    const [first, second] = mock.requests()
    expect(first).toMatchObject({
      status: 200,
      response: { status: 200, headers: { 'content-type': ok.headers.get('content-type') }, body: okText },
    })
    expect(first!.reason).toBeUndefined()
    expect(second).toMatchObject({
      status: 401,
      headers: { authorization: '[redacted]' },
      reason: JSON.parse(refusedText).message,
    })
    expect(second!.response).toMatchObject({
      status: 401,
      headers: { 'www-authenticate': refused.headers.get('www-authenticate') },
      body: refusedText,
    })
  })

  it('a malformed fault over a socket journals the half body the client received', async () => {
    const broken = await startMockServer({
      port: 0,
      logger: silentLogger,
      fixtures: await malformedFixtures(),
      scenario: 'broken',
    })
    try {
      const response = await fetch(`${broken.url}/plants`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ id: 1, name: 'Monstera deliciosa' }),
      })
      const text = await response.text()
      expect(() => JSON.parse(text)).toThrow()
      expect(broken.requests()[0]).toMatchObject({
        status: 200,
        fault: 'malformed',
        reason: expect.stringMatching(/^fault malformed: /),
        response: { status: 200, body: text },
      })
    } finally {
      await broken.close()
      await removeTempDirs()
    }
  })
})
