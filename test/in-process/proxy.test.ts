/**
 * Proxy mode (#18): a real upstream on loopback that keeps the Plant Store's contract for some
 * requests and drifts on others; the mock forwards what the description declares, checks both
 * directions, and answers from itself where the test says so (Prefer, stubs, scenarios).
 */
import { createServer } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type AppOptions, type MockApp, createApp } from '../../src/index.js'
import { type Receiver, hang, startReceiver } from '../support/receivers.js'

let upstream: Receiver
/** What the upstream answers next, by the plant's name in the request body. */
const ANSWERS: Record<string, { status: number; headers?: Record<string, string>; body?: string }> = {
  Fern: {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-upstream': 'yes' },
    body: '{"name":"Fern","tag":"upstream"}',
  },
  Drift: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"name":5}' },
  Teapot: { status: 418 },
  Text: { status: 200, headers: { 'content-type': 'text/plain' }, body: 'Fern' },
  Broken: { status: 500, headers: { 'content-type': 'application/json' }, body: '{"oops":true}' },
  Missing: { status: 404 },
}

beforeAll(async () => {
  upstream = await startReceiver((res, request) => {
    const name = request.body ? (JSON.parse(request.body) as { name?: string }).name : undefined
    if (name === 'Slow') return hang(res, request, 0)
    const answer = ANSWERS[name ?? 'Fern'] ?? ANSWERS.Fern!
    res.writeHead(answer.status, answer.headers).end(answer.body)
  })
})

afterAll(() => upstream.close())
afterEach(() => void (upstream.received.length = 0))

const proxying = (options: AppOptions = {}): Promise<MockApp> =>
  createApp({ proxy: `${upstream.origin}/api`, proxyTimeoutMs: 500, ...options })

async function post(app: MockApp, name: string, headers: Record<string, string> = {}) {
  const response = await app.request('/plants?source=test', {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json', host: 'mock.test', ...headers },
    body: JSON.stringify({ id: 1, name }),
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

describe('proxy mode forwards what the description declares (#18)', () => {
  it('sends the request as it came, under the upstream’s path, and passes its answer back as it came', async () => {
    const app = await proxying()
    const answer = await post(app, 'Fern', { connection: 'keep-alive', 'x-trace': 'abc' })
    expect(answer).toMatchObject({ status: 200, text: '{"name":"Fern","tag":"upstream"}' })
    expect(answer.headers.get('x-upstream')).toBe('yes')
    expect(answer.headers.get('x-mock-violations')).toBeNull()
    const [sent] = upstream.received
    expect(sent).toMatchObject({ method: 'POST', url: '/api/plants?source=test', body: '{"id":1,"name":"Fern"}' })
    expect(sent!.headers).toMatchObject({
      authorization: 'Bearer t',
      'x-trace': 'abc',
      'x-forwarded-host': 'mock.test',
    })
    expect(app.mock.requests()[0]).toMatchObject({ status: 200, proxied: `${upstream.origin}/api/plants?source=test` })
  })

  it.each([
    ['a body that breaks the schema', 'Drift', 200, 'response.body'],
    ['a status the operation does not declare', 'Teapot', 418, 'response.status'],
    ['a media type the response does not declare', 'Text', 200, 'response.header'],
  ])('reports %s in X-Mock-Violations and the journal, and passes the answer on', async (_, name, status, location) => {
    const app = await proxying()
    const answer = await post(app, name)
    expect(answer.status).toBe(status)
    expect(JSON.parse(answer.headers.get('x-mock-violations')!)[0].location).toBe(location)
    expect(app.mock.requests()[0]!.responseViolations).toHaveLength(1)
  })

  it('with --errors, answers 502 naming what the upstream broke', async () => {
    const app = await proxying({ errors: true })
    const answer = await post(app, 'Drift')
    expect(answer.status).toBe(502)
    expect(JSON.parse(answer.text).message).toMatch(
      /^The upstream http:\/\/127\.0\.0\.1:\d+ answered addPlant against the description \(1 problem\): body\.name must be a string\.$/,
    )
  })

  it('passes the upstream’s own 5xx on as it came, reported when the operation does not declare it', async () => {
    const answer = await post(await proxying(), 'Broken')
    expect(answer).toMatchObject({ status: 500, text: '{"oops":true}' })
  })

  it('leaves out Expect, which the mock’s own server has answered, and forwards the rest', async () => {
    const answer = await post(await proxying(), 'Fern', { expect: '100-continue', 'x-trace': 'e' })
    expect(answer.status).toBe(200)
    expect(upstream.received[0]!.headers).toMatchObject({ 'x-trace': 'e' })
    expect(upstream.received[0]!.headers.expect).toBeUndefined()
  })
})

describe('the mock answers itself where the test says so (#18)', () => {
  it('an invalid request gets the mock’s 400 and never reaches the upstream; no credentials, 401', async () => {
    const app = await proxying()
    const invalid = await app.request('/plants', {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"name":5}',
    })
    expect(invalid.status).toBe(400)
    expect((await app.request('/plants', { method: 'POST' })).status).toBe(401)
    expect(upstream.received).toEqual([])
  })

  it('Prefer: code=400, a runtime stub and the error scenario answer from the mock', async () => {
    const app = await proxying()
    expect((await post(app, 'Fern', { prefer: 'code=400' })).status).toBe(400)
    const stub = app.mock.stub({
      operation: 'addPlant',
      when: { body: { $: { exists: true } } },
      status: 400,
      times: 1,
    })
    expect((await post(app, 'Fern')).status).toBe(400)
    expect(stub.hits).toBe(1)
    expect((await post(app, 'Fern', { 'x-mock-scenario': 'error' })).status).toBe(400)
    expect(upstream.received).toEqual([])
    expect((await post(app, 'Fern')).status).toBe(200)
    expect(upstream.received).toHaveLength(1)
  })

  it('never proxies the admin API', async () => {
    const app = await proxying()
    expect((await app.request('/__mock/health')).status).toBe(200)
    expect(upstream.received).toEqual([])
  })
})

describe('per operation, the mock or the upstream (#18)', () => {
  it('--mock-only and --proxy-only keep an operation on the mock, and the journal says why', async () => {
    for (const options of [{ mockOnly: ['addPlant'] }, { proxyOnly: [] as string[] }]) {
      const app = await proxying(options)
      expect((await post(app, 'Fern')).text).not.toContain('upstream')
      expect(app.mock.requests()[0]!.proxy).toBe(
        'answered by the mock: the operation is mocked (--mock-only, or not in --proxy-only)',
      )
    }
    expect(upstream.received).toEqual([])
    const app = await proxying({ proxyOnly: ['POST /plants'] })
    expect((await post(app, 'Fern')).text).toContain('upstream')
    expect(app.mock.requests()[0]!.proxy).toBe('forwarded to the upstream')
  })

  it('--fallback answers from the mock where the upstream answers 404 or 501; without it, the 404 passes', async () => {
    const app = await proxying({ proxyFallback: true })
    const answer = await post(app, 'Missing')
    expect(answer.status).toBe(200)
    expect(app.mock.requests()[0]).toMatchObject({ proxy: 'fell back to the mock: the upstream answered 404' })
    expect((await post(await proxying(), 'Missing')).status).toBe(404)
  })

  it('a stub is named as the reason the mock answered', async () => {
    const app = await proxying()
    app.mock.stub({ operation: 'addPlant', status: 400 })
    await post(app, 'Fern')
    expect(app.mock.requests()[0]!.proxy).toBe('answered by the mock: stub 1')
  })

  it('refuses an unknown operation in --proxy-only or --mock-only at start-up', async () => {
    await expect(proxying({ mockOnly: ['nope'] })).rejects.toMatchObject({ code: 'option_bad_proxy' })
  })
})

describe('faults of the upstream are clear errors (#18)', () => {
  it('a refused connection is a 502 naming the upstream and the cause', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as { port: number }).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const app = await createApp({ proxy: `http://127.0.0.1:${port}` })
    const answer = await post(app, 'Fern')
    expect(answer.status).toBe(502)
    expect(JSON.parse(answer.text)).toEqual({
      error: 502,
      message: `The upstream http://127.0.0.1:${port} could not be reached (ECONNREFUSED).`,
    })
    expect(app.mock.requests()[0]).toMatchObject({ status: 502, valid: true })
  })

  it('an upstream that does not answer in time is a 504', async () => {
    const app = await proxying({ proxyTimeoutMs: 200 })
    const answer = await post(app, 'Slow')
    expect(answer.status).toBe(504)
    expect(JSON.parse(answer.text).message).toContain('did not answer within 200 ms')
  })

  it('refuses an upstream that is no http(s) URL at start-up', async () => {
    await expect(createApp({ proxy: 'ftp://x' })).rejects.toMatchObject({ code: 'option_bad_proxy' })
  })
})
