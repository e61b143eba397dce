/**
 * Webhooks on demand (#17) through `createApp()`: `mock.sendWebhook()` and `POST /__mock/webhooks`
 * send the Plant Store's `/plant/webhook` (test/descriptions/events/plant-store-webhook.yaml) to real
 * receivers (`node:http` on 127.0.0.1, port 0) that answer, fail, hang or redirect; the journal of
 * deliveries is read, filtered and emptied through `/__mock/deliveries`. Every admin answer is
 * checked against `admin-openapi.yaml` by the admin oracle.
 */
import { createHmac } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type AppOptions, type DeliveryRecord, type MockApp, createApp } from '../../src/index.js'
import { MockError } from '../../src/errors/index.js'
import { type AdminOracle, createAdminOracle } from '../support/admin-oracle.js'
import { expectErrorBody } from '../support/cases.js'
import { type Receiver, answerWith, createReceivers, hang } from '../support/receivers.js'

const SPEC = fileURLToPath(new URL('../descriptions/events/plant-store-webhook.yaml', import.meta.url))
const WEBHOOK = '/plant/webhook'
const FERN = { id: 7, name: 'Fern', tag: 'fern' }

let oracle: AdminOracle
beforeAll(async () => {
  oracle = await createAdminOracle()
}, 60_000)

const receivers = createReceivers()
afterEach(() => receivers.closeAll())

function start(options: AppOptions = {}): Promise<MockApp> {
  return createApp({ spec: SPEC, ...options })
}

interface AdminAnswer {
  status: number
  headers: Headers
  text: string
  json: any
}

/** An admin call, its answer checked against admin-openapi.yaml. */
async function admin(
  app: MockApp,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<AdminAnswer> {
  const init: RequestInit = { method, headers: { ...headers } }
  if (body !== undefined) {
    init.headers = { 'content-type': 'application/json', ...headers }
    init.body = typeof body === 'string' ? body : JSON.stringify(body)
  }
  const response = await app.request(path, init)
  const text = await response.text()
  expect(oracle.problems({ method, path, status: response.status, headers: response.headers, text })).toEqual([])
  return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined }
}

const send = (app: MockApp, body: unknown, headers?: Record<string, string>) =>
  admin(app, 'POST', '/__mock/webhooks', body, headers)
const list = async (app: MockApp, query = '', headers?: Record<string, string>): Promise<DeliveryRecord[]> => {
  const answer = await admin(app, 'GET', `/__mock/deliveries${query}`, undefined, headers)
  expect(answer.status).toBe(200)
  return answer.json.deliveries
}

/** The MockError a call throws. */
function thrownBy(call: () => unknown): MockError {
  try {
    call()
  } catch (error) {
    expect(error).toBeInstanceOf(MockError)
    return error as MockError
  }
  throw new Error('expected the call to throw')
}

/** A NewPlant (allOf Plant, id): an integer id, a string name, an optional string tag, nothing else the schema names not. */
function expectNewPlant(value: Record<string, unknown>): void {
  expect(Number.isInteger(value.id)).toBe(true)
  expect(typeof value.name).toBe('string')
  if ('tag' in value) expect(typeof value.tag).toBe('string')
  expect(Object.keys(value).every((key) => ['id', 'name', 'tag'].includes(key))).toBe(true)
}

describe('mock.sendWebhook() (#17)', () => {
  it('without a body, sends a NewPlant made of the schema as JSON, and journals it delivered and conformed', async () => {
    const receiver = await receivers.start()
    const app = await start()
    const record = app.mock.sendWebhook(WEBHOOK, { to: receiver.url })
    expect(record).toMatchObject({ kind: 'webhook', name: WEBHOOK, outcome: 'pending', target: receiver.origin })
    expect(record).not.toHaveProperty('operation')

    const [request] = await receiver.next()
    expect(request!.method).toBe('POST')
    expect(request!.url).toBe('/hook')
    expect(request!.headers['content-type']).toBe('application/json')
    expect(request!.headers['x-mock-delivery']).toBe(String(record.id))
    expectNewPlant(JSON.parse(request!.body))

    const [settled] = await app.mock.waitForDeliveries({ name: WEBHOOK })
    expect(settled).toMatchObject({ id: record.id, outcome: 'delivered', conformed: true, violations: [] })
    expect(settled!.request.body).toBe(request!.body)
    expect(settled!.attempts).toEqual([{ time: expect.any(String), durationMs: expect.any(Number), status: 200 }])
  })

  it('with a body, sends exactly it', async () => {
    const receiver = await receivers.start()
    const app = await start()
    app.mock.sendWebhook(WEBHOOK, { to: receiver.url, body: FERN })
    const [request] = await receiver.next()
    expect(request!.body).toBe(JSON.stringify(FERN))
  })

  it('a body breaking NewPlant throws a MockError 400 naming the violation, and nothing is sent', async () => {
    const app = await start()
    const error = thrownBy(() =>
      app.mock.sendWebhook(WEBHOOK, { to: 'http://127.0.0.1:9/hook', body: { name: 'Fern' } }),
    )
    expect(error.status).toBe(400)
    expect(error.message).toBe(
      'The body given for the webhook "/plant/webhook" breaks its schema: body.id is required.',
    )
    expect(error.details).toEqual([{ path: 'body.id', message: 'is required' }])
    expect(app.mock.deliveries()).toEqual([])
  })

  it('an undeclared field breaks the body too', async () => {
    const app = await start()
    const error = thrownBy(() =>
      app.mock.sendWebhook(WEBHOOK, { to: 'http://127.0.0.1:9/hook', body: { ...FERN, colour: 'green' } }),
    )
    expect(error.status).toBe(400)
    expect(error.message).toContain('body.colour is not declared by the schema')
  })

  it('an unknown webhook throws 404 listing the known ones', async () => {
    const app = await start()
    const error = thrownBy(() => app.mock.sendWebhook('/plant/gone', { to: 'http://127.0.0.1:9/hook' }))
    expect(error.status).toBe(404)
    expect(error.message).toBe('The description declares no webhook "/plant/gone"; it declares "/plant/webhook".')
  })

  it('without "to" and without webhookUrl, throws 400 saying where a target comes from', async () => {
    const app = await start()
    const error = thrownBy(() => app.mock.sendWebhook(WEBHOOK))
    expect(error.status).toBe(400)
    expect(error.message).toContain('has nowhere to go')
    expect(error.message).toContain('--webhook-url')
  })

  it('webhookUrl is the target when no "to" is given; "to" wins over it', async () => {
    const byDefault = await receivers.start()
    const named = await receivers.start()
    const app = await start({ webhookUrl: byDefault.url })
    app.mock.sendWebhook(WEBHOOK, { body: FERN })
    await byDefault.next()
    app.mock.sendWebhook(WEBHOOK, { to: named.url, body: FERN })
    await named.next()
    expect(byDefault.received).toHaveLength(1)
    expect(app.mock.deliveries().map((r) => r.target)).toEqual([byDefault.origin, named.origin])
  })

  it('with webhookSecret, X-Hub-Signature-256 verifies with HMAC-SHA256 over the raw body', async () => {
    const receiver = await receivers.start()
    const app = await start({ webhookSecret: 'hook-s3cret' })
    app.mock.sendWebhook(WEBHOOK, { to: receiver.url, body: FERN })
    const [request] = await receiver.next()
    const expected = `sha256=${createHmac('sha256', 'hook-s3cret').update(request!.body).digest('hex')}`
    expect(request!.headers['x-hub-signature-256']).toBe(expected)
  })
})

describe('delivery against receivers that fail (#17)', () => {
  it('retries a receiver that fails twice with 503, and is delivered on the third attempt', async () => {
    const receiver = await receivers.start((res, _request, index) => res.writeHead(index < 2 ? 503 : 200).end())
    const app = await start({ webhookRetries: 3 })
    app.mock.sendWebhook(WEBHOOK, { to: receiver.url, body: FERN })
    // The retries wait 500 ms, then 1000 ms.
    const [record] = await app.mock.waitForDeliveries({ name: WEBHOOK, timeoutMs: 10_000 })
    expect(record).toMatchObject({ outcome: 'delivered', conformed: true, response: { status: 200 } })
    expect(record!.attempts.map((a) => a.status)).toEqual([503, 503, 200])
    expect(receiver.received.map((r) => r.body)).toEqual(Array(3).fill(JSON.stringify(FERN)))
    // Every attempt is the same request: the same delivery id.
    expect(new Set(receiver.received.map((r) => r.headers['x-mock-delivery']))).toEqual(new Set([String(record!.id)]))
  })

  it('fails once the retries are used up, keeping the last 5xx', async () => {
    const receiver = await receivers.start(answerWith(503, { error: 503, message: 'busy' }))
    const app = await start({ webhookRetries: 1 })
    app.mock.sendWebhook(WEBHOOK, { to: receiver.url, body: FERN })
    const [record] = await app.mock.waitForDeliveries({ name: WEBHOOK })
    expect(record).toMatchObject({
      outcome: 'failed',
      code: 'delivery_server_error',
      reason: '2 attempts failed; the last: the receiver answered 503.',
      response: { status: 503, body: '{"error":503,"message":"busy"}' },
    })
    expect(record!.attempts.map((a) => a.status)).toEqual([503, 503])
  })

  it('gives up on a receiver that hangs after webhookTimeoutMs, naming the timeout', async () => {
    const receiver = await receivers.start(hang)
    const app = await start({ webhookTimeoutMs: 200, webhookRetries: 0 })
    app.mock.sendWebhook(WEBHOOK, { to: receiver.url, body: FERN })
    const [record] = await app.mock.waitForDeliveries({ name: WEBHOOK })
    expect(record).toMatchObject({ outcome: 'failed', code: 'delivery_timeout' })
    expect(record!.attempts).toHaveLength(1)
    expect(record!.attempts[0]!.error).toBe('no answer within 200 ms')
    expect(record!.attempts[0]!.durationMs).toBeGreaterThanOrEqual(150)
    expect(receiver.received).toHaveLength(1)
  })

  it('a receiver that is gone is a network error naming its cause', async () => {
    const gone = await receivers.start()
    await gone.close()
    const app = await start({ webhookRetries: 0 })
    app.mock.sendWebhook(WEBHOOK, { to: gone.url, body: FERN })
    const [record] = await app.mock.waitForDeliveries({ name: WEBHOOK })
    expect(record).toMatchObject({ outcome: 'failed', code: 'delivery_network_error' })
    expect(record!.attempts[0]!.error).toMatch(/ECONNREFUSED/)
  })

  it('an answer the webhook does not declare (404) is delivered, not retried, and reported', async () => {
    const receiver = await receivers.start(answerWith(404, { error: 'no such hook' }))
    const app = await start()
    app.mock.sendWebhook(WEBHOOK, { to: receiver.url, body: FERN })
    const [record] = await app.mock.waitForDeliveries({ name: WEBHOOK })
    expect(record).toMatchObject({ outcome: 'delivered', conformed: false, response: { status: 404 } })
    expect(record!.violations).toEqual([
      { path: 'status', message: 'is 404, which the webhook does not declare (declared: 200)' },
    ])
    expect(receiver.received).toHaveLength(1)
  })

  it('a redirect is the answer: not followed, the payload never goes to its Location', async () => {
    const elsewhere = await receivers.start()
    const receiver = await receivers.start((res) => res.writeHead(307, { location: elsewhere.url }).end())
    const app = await start()
    app.mock.sendWebhook(WEBHOOK, { to: receiver.url, body: FERN })
    const [record] = await app.mock.waitForDeliveries({ name: WEBHOOK })
    expect(record).toMatchObject({ outcome: 'delivered', conformed: false, response: { status: 307 } })
    expect(record!.response!.headers.location).toBe(elsewhere.url)
    expect(elsewhere.received).toEqual([])
  })
})

describe('targets the mock refuses (#17)', () => {
  it('an ftp: target is refused: POST /__mock/webhooks answers 400; in process, recorded refused, never attempted', async () => {
    const app = await start()
    const answer = await send(app, { name: WEBHOOK, to: 'ftp://127.0.0.1/hook' })
    expect(answer.status).toBe(400)
    expectErrorBody(answer.json, 400)
    expect(answer.json.message).toContain('ftp://127.0.0.1/hook')
    expect(app.mock.sendWebhook(WEBHOOK, { to: 'ftp://127.0.0.1/hook', body: FERN })).toMatchObject({
      outcome: 'refused',
      code: 'delivery_unsupported_scheme',
      reason: 'Only http: and https: targets are sent to, not ftp:',
      attempts: [],
    })
    expect(app.mock.deliveries({ outcome: 'refused' })).toHaveLength(1)
  })

  it('a path under /__mock is refused whatever the host: a mock is never a receiver', async () => {
    const receiver = await receivers.start()
    const app = await start()
    const record = app.mock.sendWebhook(WEBHOOK, { to: `${receiver.origin}/__mock/reset`, body: FERN })
    expect(record).toMatchObject({
      outcome: 'refused',
      code: 'delivery_refused_by_caller',
      reason: '/__mock is the admin API of a mock, never a receiver',
      attempts: [],
    })
    expect(app.mock.sendWebhook(WEBHOOK, { to: `${receiver.origin}/__mock`, body: FERN }).outcome).toBe('refused')
    // As the router reads a path: percent-decoded, repeated slashes as one.
    for (const path of ['/%5F%5Fmock/reset', '/%5f%5fmock', '//__mock/reset'])
      expect(app.mock.sendWebhook(WEBHOOK, { to: `${receiver.origin}${path}`, body: FERN }).outcome, path).toBe(
        'refused',
      )
    // Refused at once, never sent: nothing is under way.
    expect(app.mock.deliveries({ outcome: 'pending' })).toEqual([])
    expect(receiver.received).toEqual([])
  })

  it('a URL that does not parse is refused', async () => {
    const app = await start()
    const record = app.mock.sendWebhook(WEBHOOK, { to: 'not a url', body: FERN })
    expect(record).toMatchObject({ outcome: 'refused', code: 'delivery_bad_url', target: 'not a url' })
  })

  it('listening beyond loopback, only --webhook-allow hosts are targets', async () => {
    const receiver = await receivers.start()
    const app = await start({ host: '0.0.0.0', webhookAllow: ['LocalHost'] })
    const refused = app.mock.sendWebhook(WEBHOOK, { to: receiver.url, body: FERN })
    expect(refused).toMatchObject({ outcome: 'refused', code: 'delivery_host_not_allowed' })
    expect(refused.reason).toBe('127.0.0.1 is not an allowed host (localhost).')
    app.mock.sendWebhook(WEBHOOK, { to: receiver.url.replace('127.0.0.1', 'localhost'), body: FERN })
    const [delivered] = await app.mock.waitForDeliveries({ outcome: 'delivered' })
    expect(delivered!.target).toBe(receiver.origin.replace('127.0.0.1', 'localhost'))
  })

  it('listening beyond loopback without --webhook-allow, no host is a target', async () => {
    const app = await start({ host: '0.0.0.0' })
    const record = app.mock.sendWebhook(WEBHOOK, { to: 'http://127.0.0.1:9/hook', body: FERN })
    expect(record).toMatchObject({ outcome: 'refused', code: 'delivery_host_not_allowed' })
    expect(record.reason).toBe('127.0.0.1 is not an allowed host (none).')
  })
})

describe('POST /__mock/webhooks (#17)', () => {
  it('answers 202 with the pending record, and the receiver gets the body', async () => {
    const receiver = await receivers.start()
    const app = await start()
    const answer = await send(app, { name: WEBHOOK, to: receiver.url, body: FERN })
    expect(answer.status).toBe(202)
    expect(answer.json).toMatchObject({ kind: 'webhook', name: WEBHOOK, outcome: 'pending', attempts: [] })
    expect(answer.json.request).toMatchObject({ method: 'POST', url: receiver.url, body: JSON.stringify(FERN) })
    expect((await receiver.next())[0]!.body).toBe(JSON.stringify(FERN))
  })

  it('ignores fields it does not know', async () => {
    const receiver = await receivers.start()
    const app = await start()
    expect((await send(app, { name: WEBHOOK, to: receiver.url, body: FERN, retries: 9 })).status).toBe(202)
  })

  it('a body breaking NewPlant answers 400 naming the violation', async () => {
    const app = await start()
    const answer = await send(app, {
      name: WEBHOOK,
      to: 'http://127.0.0.1:9/hook',
      body: { id: 'seven', name: 'Fern' },
    })
    expect(answer.status).toBe(400)
    expectErrorBody(answer.json, 400)
    expect(answer.json.message).toContain('body.id')
    expect(answer.json.message).toContain('integer')
    expect(app.mock.deliveries()).toEqual([])
  })

  it('an unknown webhook answers 404 listing the known ones', async () => {
    const app = await start()
    const answer = await send(app, { name: '/plant/gone', to: 'http://127.0.0.1:9/hook' })
    expect(answer.status).toBe(404)
    expectErrorBody(answer.json, 404)
    expect(answer.json.message).toContain('"/plant/webhook"')
  })

  it.each([
    ['no name', { to: 'http://127.0.0.1:9/hook' }, 'the webhooks: /plant/webhook'],
    ['a name that is not a string', { name: 5, to: 'http://127.0.0.1:9/hook' }, '"name"'],
    ['a "to" that is not a string', { name: WEBHOOK, to: 5 }, 'target must be an http: or https: URL, got 5'],
    ['a session that is not a string', { name: WEBHOOK, to: 'http://127.0.0.1:9/hook', session: 1 }, '"session"'],
    ['no "to" and no webhookUrl', { name: WEBHOOK }, 'nowhere to go'],
    ['a JSON array', [WEBHOOK], 'JSON object'],
    ['text that is not JSON', 'name=/plant/webhook', 'JSON object'],
  ])('%s answers 400', async (_label, body, fragment) => {
    const app = await start()
    const answer = await send(app, body)
    expect(answer.status).toBe(400)
    expectErrorBody(answer.json, 400)
    expect(answer.json.message).toContain(fragment)
  })

  it('a body over maxBodyBytes answers 413', async () => {
    const app = await start({ maxBodyBytes: 1024 })
    const answer = await send(app, {
      name: WEBHOOK,
      to: 'http://127.0.0.1:9/hook',
      body: { ...FERN, tag: 'x'.repeat(2000) },
    })
    expect(answer.status).toBe(413)
    expectErrorBody(answer.json, 413)
  })

  it("with adminToken, answers 401 without it; another site's Origin answers 403", async () => {
    const app = await start({ adminToken: 'admin-token' })
    const body = { name: WEBHOOK, to: 'http://127.0.0.1:9/hook', body: FERN }
    expect((await send(app, body)).status).toBe(401)
    expect((await admin(app, 'GET', '/__mock/deliveries')).status).toBe(401)
    expect((await admin(app, 'DELETE', '/__mock/deliveries')).status).toBe(401)
    const foreign = await send(app, body, { authorization: 'Bearer admin-token', origin: 'https://evil.example' })
    expect(foreign.status).toBe(403)
    expect(app.mock.deliveries()).toEqual([])
  })
})

describe('GET and DELETE /__mock/deliveries (#17)', () => {
  /** Three settled deliveries: two delivered (one per session), one refused. */
  async function withThree(): Promise<{ app: MockApp; receiver: Receiver }> {
    const receiver = await receivers.start()
    const app = await start()
    app.mock.sendWebhook(WEBHOOK, { to: receiver.url, body: FERN, session: 'worker-1' })
    app.mock.sendWebhook(WEBHOOK, { to: receiver.url, body: FERN, session: 'worker-2' })
    app.mock.sendWebhook(WEBHOOK, { to: 'ftp://127.0.0.1/hook', body: FERN })
    await app.mock.waitForDeliveries({ count: 3 })
    return { app, receiver }
  }

  it('lists every delivery oldest first, and filters by name, kind, outcome, conformed, since and session', async () => {
    const { app } = await withThree()
    const ids = (records: DeliveryRecord[]) => records.map((r) => r.id)
    expect(ids(await list(app))).toEqual([1, 2, 3])
    expect(ids(await list(app, `?name=${encodeURIComponent(WEBHOOK)}`))).toEqual([1, 2, 3])
    expect(ids(await list(app, '?name=onPlantAdded'))).toEqual([])
    expect(ids(await list(app, '?kind=webhook'))).toEqual([1, 2, 3])
    expect(ids(await list(app, '?kind=callback'))).toEqual([])
    expect(ids(await list(app, '?outcome=delivered'))).toEqual([1, 2])
    expect(ids(await list(app, '?outcome=refused'))).toEqual([3])
    expect(ids(await list(app, '?session=worker-2'))).toEqual([2])
    expect(ids(await list(app, '', { 'x-mock-session': 'worker-1' }))).toEqual([1])
    expect(ids(await list(app, '?session=worker-2', { 'x-mock-session': 'worker-1' }))).toEqual([2])
    expect(ids(await list(app, '?outcome=delivered&session=worker-1'))).toEqual([1])
    expect(ids(await list(app, '?operation=addPlant'))).toEqual([])
    expect(ids(await list(app, '?conformed=true'))).toEqual([1, 2])
    expect(ids(await list(app, '?conformed=false'))).toEqual([])
    expect(ids(await list(app, `?since=${Date.now() + 60_000}`))).toEqual([])
    expect(ids(await list(app, '?since=2000-01-01'))).toEqual([1, 2, 3])
    // HEAD is GET's (the admin oracle reads no HEAD).
    expect((await app.request('/__mock/deliveries', { method: 'HEAD' })).status).toBe(200)
  })

  it.each([
    ['?kind=hook', 'The "kind" filter takes callback, webhook.'],
    ['?outcome=lost', 'The "outcome" filter takes pending, delivered, failed, refused, cancelled, dropped.'],
    ['?status=200', 'Unknown filter "status"; known: name, kind, outcome, operation, conformed, since, session.'],
    ['?conformed=maybe', 'The "conformed" filter takes true or false, got "maybe".'],
  ])('%s answers 400 saying what it takes', async (query, message) => {
    const app = await start()
    const answer = await admin(app, 'GET', `/__mock/deliveries${query}`)
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual({ error: 400, message })
  })

  it("DELETE empties the journal, or one session's", async () => {
    const { app } = await withThree()
    expect((await admin(app, 'DELETE', '/__mock/deliveries?session=worker-1')).status).toBe(204)
    expect((await list(app)).map((r) => r.id)).toEqual([2, 3])
    expect((await admin(app, 'DELETE', '/__mock/deliveries', undefined, { 'x-mock-session': 'worker-2' })).status).toBe(
      204,
    )
    expect((await list(app)).map((r) => r.id)).toEqual([3])
    expect((await admin(app, 'DELETE', '/__mock/deliveries')).status).toBe(204)
    expect(await list(app)).toEqual([])
  })

  it('DELETE keeps a delivery still under way, which is recorded when it settles', async () => {
    const receiver = await receivers.start(hang)
    const app = await start({ webhookTimeoutMs: 300, webhookRetries: 0 })
    app.mock.sendWebhook(WEBHOOK, { to: receiver.url, body: FERN })
    await receiver.next()
    expect((await admin(app, 'DELETE', '/__mock/deliveries')).status).toBe(204)
    expect((await list(app)).map((r) => r.outcome)).toEqual(['pending'])
    const [record] = await app.mock.waitForDeliveries()
    expect(record!.outcome).toBe('failed')
    expect(await list(app)).toHaveLength(1)
  })

  it("POST /__mock/reset empties the journal of deliveries; with a session, only that session's", async () => {
    const { app } = await withThree()
    expect((await admin(app, 'POST', '/__mock/reset?session=worker-2')).status).toBe(200)
    expect((await list(app)).map((r) => r.id)).toEqual([1, 3])
    expect((await admin(app, 'POST', '/__mock/reset')).status).toBe(200)
    expect(await list(app)).toEqual([])
    app.mock.sendWebhook(WEBHOOK, { to: 'ftp://127.0.0.1/hook', body: FERN })
    // Ids go on after a reset: a record is never mistaken for one from before.
    expect((await list(app)).map((r) => r.id)).toEqual([4])
  })

  it('mock.reset() empties it too', async () => {
    const { app } = await withThree()
    app.mock.reset({ session: 'worker-1' })
    expect(app.mock.deliveries().map((r) => r.id)).toEqual([2, 3])
    app.mock.reset()
    expect(app.mock.deliveries()).toEqual([])
  })
})

describe('per-session deliveries, in parallel (#17)', () => {
  it('two sessions sending at once each see their own deliveries, and each receiver gets only its own', async () => {
    const sessions = ['worker-1', 'worker-2']
    const targets = await Promise.all(sessions.map(() => receivers.start()))
    const app = await start()
    // Through the body's session, ?session= and X-Mock-Session: each names the session.
    await Promise.all(
      sessions.flatMap((session, i) => {
        const to = targets[i]!.url
        const body = (id: number) => ({ ...FERN, id, name: session })
        return [
          send(app, { name: WEBHOOK, to, body: body(1), session }),
          send(app, { name: WEBHOOK, to, body: body(2) }, { 'x-mock-session': session }),
          admin(app, 'POST', `/__mock/webhooks?session=${session}`, { name: WEBHOOK, to, body: body(3) }),
        ]
      }),
    )
    await app.mock.waitForDeliveries({ count: 6, outcome: 'delivered' })
    for (const [i, session] of sessions.entries()) {
      const records = await list(app, `?session=${session}`)
      expect(records).toHaveLength(3)
      expect(records.every((r) => r.session === session && r.target === targets[i]!.origin)).toBe(true)
      expect(records.map((r) => JSON.parse(r.request.body!).id).sort()).toEqual([1, 2, 3])
      expect(targets[i]!.received.map((r) => JSON.parse(r.body).name)).toEqual([session, session, session])
      expect(app.mock.deliveries({ session })).toHaveLength(3)
    }
    expect(await list(app)).toHaveLength(6)
  })
})

describe('per-session webhook targets, as admin-openapi.yaml describes them (#17)', () => {
  it('PUT /__mock/webhooks/targets sets where a session\'s webhooks go when no "to" is given; GET reads them', async () => {
    const mine = await receivers.start()
    const everyOther = await receivers.start()
    const app = await start()
    const put = await admin(app, 'PUT', '/__mock/webhooks/targets?session=worker-1', { [WEBHOOK]: mine.url })
    expect(put).toMatchObject({ status: 200, json: { session: 'worker-1', targets: { [WEBHOOK]: mine.url } } })
    await admin(app, 'PUT', '/__mock/webhooks/targets', { '*': everyOther.url })
    expect((await admin(app, 'GET', '/__mock/webhooks/targets')).json).toEqual({ targets: { '*': everyOther.url } })
    const read = await admin(app, 'GET', '/__mock/webhooks/targets', undefined, { 'x-mock-session': 'worker-1' })
    expect(read.json).toEqual({ session: 'worker-1', targets: { [WEBHOOK]: mine.url } })

    await send(app, { name: WEBHOOK, body: FERN }, { 'x-mock-session': 'worker-1' })
    await mine.next()
    app.mock.sendWebhook(WEBHOOK, { body: FERN })
    await everyOther.next()
    expect(app.mock.deliveries().map((r) => [r.session, r.target])).toEqual([
      ['worker-1', mine.origin],
      [undefined, everyOther.origin],
    ])
  })

  it("an unknown webhook answers 404, a target that is no http(s) URL 400; reset removes a session's targets", async () => {
    const app = await start()
    const unknown = await admin(app, 'PUT', '/__mock/webhooks/targets', { '/plant/gone': 'http://127.0.0.1:9/hook' })
    expect(unknown.status).toBe(404)
    expect(unknown.json.message).toContain('"*"')
    expect((await admin(app, 'PUT', '/__mock/webhooks/targets', { '*': 'ftp://127.0.0.1/hook' })).status).toBe(400)
    await admin(app, 'PUT', '/__mock/webhooks/targets?session=worker-1', { '*': 'http://127.0.0.1:9/hook' })
    expect((await admin(app, 'POST', '/__mock/reset?session=worker-1')).status).toBe(200)
    expect((await admin(app, 'GET', '/__mock/webhooks/targets?session=worker-1')).json).toEqual({
      session: 'worker-1',
      targets: {},
    })
  })
})
