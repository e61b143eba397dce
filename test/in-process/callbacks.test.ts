/**
 * Callbacks (#17) end to end: a request through `createApp().request()` to an operation that
 * declares callbacks (test/descriptions/events/callbacks.yaml), and real receivers (`node:http` on
 * 127.0.0.1, port 0) that get them. The URL comes from the request's body and query; what the
 * receiver answers is checked against what the callback declares. Runtime expressions of every
 * form are unit-tested in test/unit; here the `$request.body` and `$request.query` forms go over the wire.
 */
import { createHmac } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { type AppOptions, type DeliveryRecord, type MockApp, createApp } from '../../src/index.js'
import type { Logger } from '../../src/common/log.js'
import { type Answer, answerWith, createReceivers, hang } from '../support/receivers.js'

const CALLBACKS = fileURLToPath(new URL('../descriptions/events/callbacks.yaml', import.meta.url))
/** The example body of onPlantAdded. */
const EXAMPLE = { subscription: 'sub-1', name: 'Fern' }

const receivers = createReceivers()
afterEach(() => receivers.closeAll())

/** Log lines, and a promise for the first that matches: what a skipped callback leaves behind. */
function createRecordingLogger(): Logger & { lines: string[]; line(pattern: RegExp): Promise<string> } {
  const lines: string[] = []
  const waiters: Array<{ pattern: RegExp; resolve(line: string): void }> = []
  const write = (line: string) => {
    lines.push(line)
    for (const waiter of waiters.filter((w) => w.pattern.test(line))) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve(line)
    }
  }
  return {
    lines,
    info: write,
    warn: write,
    error: write,
    line(pattern) {
      const found = lines.find((line) => pattern.test(line))
      if (found) return Promise.resolve(found)
      return new Promise((resolve, reject) => {
        const waiter = { pattern, resolve }
        waiters.push(waiter)
        setTimeout(() => {
          if (!waiters.includes(waiter)) return
          waiters.splice(waiters.indexOf(waiter), 1)
          reject(new Error(`no log line matched ${pattern} within 5000 ms; lines: ${lines.join(' | ')}`))
        }, 5000)
      })
    },
  }
}

function start(options: AppOptions = {}): Promise<MockApp> {
  return createApp({ spec: CALLBACKS, ...options })
}

/** Answers the POST of onPlantAdded with 200 and the PUT of onTopic with 204, as declared. */
const asDeclared: Answer = (res, request) => res.writeHead(request.method === 'PUT' ? 204 : 200).end()

function subscribe(app: MockApp, body: unknown, query = '?topic=roses', headers: Record<string, string> = {}) {
  return app.request(`/subscriptions${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
}

const byName = (records: DeliveryRecord[]) => [...records].sort((a, b) => a.name.localeCompare(b.name))

describe('callbacks sent after an answer (#17)', () => {
  it('sends both callbacks after a 201: the URL built from the body and the query, the example body, its content type', async () => {
    const receiver = await receivers.start(asDeclared)
    const app = await start()
    const response = await subscribe(app, { callbackUrl: receiver.url, plant: 'Fern' })
    expect(response.status).toBe(201)
    expect(await response.json()).toEqual({ id: 'sub-1' })

    const received = await receiver.next(2)
    const post = received.find((r) => r.method === 'POST')!
    const put = received.find((r) => r.method === 'PUT')!
    expect(post.url).toBe('/hook')
    expect(post.headers['content-type']).toBe('application/json')
    expect(JSON.parse(post.body)).toEqual(EXAMPLE)
    expect(put.url).toBe('/hook/topics/roses')
    expect(put.body).toBe('')
    expect(put.headers['content-type']).toBeUndefined()
    for (const request of received) expect(request.headers['user-agent']).toBe('plant-store-mock')
  })

  it('journals each callback: kind callback, operation subscribe, delivered, conformed', async () => {
    const receiver = await receivers.start(asDeclared)
    const app = await start()
    expect((await subscribe(app, { callbackUrl: receiver.url })).status).toBe(201)

    const records = byName(await app.mock.waitForDeliveries({ operation: 'subscribe', count: 2 }))
    expect(records.map((r) => [r.name, r.request.method, r.request.url])).toEqual([
      ['onPlantAdded', 'POST', receiver.url],
      ['onTopic', 'PUT', `${receiver.url}/topics/roses`],
    ])
    for (const record of records) {
      expect(record).toMatchObject({
        kind: 'callback',
        operation: 'subscribe',
        target: receiver.origin,
        outcome: 'delivered',
        conformed: true,
        violations: [],
      })
      expect(record.attempts).toHaveLength(1)
      expect(record.request.headers['x-mock-delivery']).toBe(String(record.id))
    }
    expect(records.map((r) => r.response!.status)).toEqual([200, 204])
    expect(JSON.parse(records[0]!.request.body!)).toEqual(EXAMPLE)
    expect(app.mock.deliveries({ kind: 'callback', name: 'onTopic' })).toHaveLength(1)
  })

  it('takes the $request.query value as sent, decoded, into a longer URL', async () => {
    const receiver = await receivers.start(asDeclared)
    const app = await start()
    expect((await subscribe(app, { callbackUrl: `${receiver.url}/v1` }, '?topic=cacti%20and%20ferns')).status).toBe(201)
    const [record] = await app.mock.waitForDeliveries({ name: 'onTopic' })
    expect(record!.request.url).toBe(`${receiver.url}/v1/topics/cacti and ferns`)
    const put = (await receiver.next(2)).find((r) => r.method === 'PUT')!
    expect(put.url).toBe('/hook/v1/topics/cacti%20and%20ferns')
  })

  it('records the session of the request that triggered the callbacks', async () => {
    const receiver = await receivers.start(asDeclared)
    const app = await start()
    await subscribe(app, { callbackUrl: receiver.url }, '?topic=a', { 'x-mock-session': 'worker-1' })
    await subscribe(app, { callbackUrl: receiver.url }, '?topic=b', { 'x-mock-session': 'worker-2' })
    await app.mock.waitForDeliveries({ count: 4 })
    const urls = (session: string) => app.mock.deliveries({ session, name: 'onTopic' }).map((r) => r.request.url)
    expect(urls('worker-1')).toEqual([`${receiver.url}/topics/a`])
    expect(urls('worker-2')).toEqual([`${receiver.url}/topics/b`])
  })

  it('skips a callback whose URL expression resolves to nothing, logs why, and sends the others', async () => {
    const receiver = await receivers.start(asDeclared)
    const logger = createRecordingLogger()
    const app = await start({ logger })
    // No `topic`: onTopic's URL has no value; onPlantAdded's has.
    expect((await subscribe(app, { callbackUrl: receiver.url }, '')).status).toBe(201)
    const [record] = await app.mock.waitForDeliveries({ name: 'onPlantAdded' })
    expect(record!.outcome).toBe('delivered')
    // Both callbacks are decided in one turn, before either is sent: onTopic was skipped, not delayed.
    expect(app.mock.deliveries().map((r) => r.name)).toEqual(['onPlantAdded'])
    expect(receiver.received.map((r) => r.method)).toEqual(['POST'])
    expect(await logger.line(/onTopic/)).toBe(
      'callback onTopic of subscribe not sent: $request.query.topic has no value in this exchange',
    )
  })

  it('skips every callback when the body has no callbackUrl (validate=report), and the answer is still 201', async () => {
    const logger = createRecordingLogger()
    const app = await start({ logger })
    const response = await subscribe(app, { plant: 'Fern' }, '?topic=roses', { prefer: 'validate=report' })
    expect(response.status).toBe(201)
    await logger.line(/callback onTopic/)
    expect(logger.lines.filter((line) => line.startsWith('callback '))).toEqual([
      'callback onPlantAdded of subscribe not sent: $request.body#/callbackUrl has no value in this exchange',
      'callback onTopic of subscribe not sent: $request.body#/callbackUrl has no value in this exchange',
    ])
    expect(app.mock.deliveries()).toEqual([])
  })

  it('sends no callback after a 4xx answer of the operation', async () => {
    const refused = await receivers.start(asDeclared)
    const sent = await receivers.start(asDeclared)
    const app = await start()
    // `plant` must be a string: 422 (the operation declares no 400), although callbackUrl and topic are there.
    expect((await subscribe(app, { callbackUrl: refused.url, plant: 5 })).status).toBe(422)
    expect((await subscribe(app, { callbackUrl: sent.url })).status).toBe(201)
    // Callbacks are sent in the order of the answers: once the second request's have settled, any of the first's would be journaled.
    await app.mock.waitForDeliveries({ count: 2 })
    expect(app.mock.deliveries().map((r) => r.target)).toEqual([sent.origin, sent.origin])
    expect(refused.received).toEqual([])
  })

  it('never delays the answer: a receiver that hangs leaves the callback pending, the 201 already given', async () => {
    const receiver = await receivers.start(hang)
    const app = await start({ webhookRetries: 0 })
    expect((await subscribe(app, { callbackUrl: receiver.url })).status).toBe(201)
    await receiver.next(2)
    expect(app.mock.deliveries().map((r) => r.outcome)).toEqual(['pending', 'pending'])
  })
})

describe("the receiver's answer, checked against the callback's declared responses (#17)", () => {
  it('an undeclared status (418) is delivered, not retried, and reported: conformed false with a violation naming the status', async () => {
    const receiver = await receivers.start(answerWith(418, { error: 'teapot' }))
    const app = await start()
    await subscribe(app, { callbackUrl: receiver.url })
    const [added, topic] = byName(await app.mock.waitForDeliveries({ count: 2 }))
    expect(added).toMatchObject({ outcome: 'delivered', conformed: false, response: { status: 418 } })
    expect(added!.attempts).toHaveLength(1)
    expect(added!.violations).toEqual([
      { path: 'status', message: 'is 418, which the callback does not declare (declared: 200)' },
    ])
    expect(added!.response!.body).toBe('{"error":"teapot"}')
    expect(topic!.violations).toEqual([
      { path: 'status', message: 'is 418, which the callback does not declare (declared: 204)' },
    ])
  })

  it('a 500 after the last retry fails the delivery, keeping the last answer, and is not "conformed"', async () => {
    const receiver = await receivers.start((res, request) =>
      request.method === 'PUT' ? res.writeHead(500).end('down') : res.writeHead(200).end(),
    )
    const app = await start({ webhookRetries: 0 })
    await subscribe(app, { callbackUrl: receiver.url })
    const [topic] = await app.mock.waitForDeliveries({ name: 'onTopic' })
    expect(topic).toMatchObject({
      outcome: 'failed',
      code: 'delivery_server_error',
      reason: '1 attempts failed; the last: the receiver answered 500.',
      response: { status: 500, body: 'down' },
    })
    expect(topic!.attempts.map((a) => a.status)).toEqual([500])
    expect(topic).not.toHaveProperty('conformed')
    const [added] = await app.mock.waitForDeliveries({ name: 'onPlantAdded' })
    expect(added).toMatchObject({ outcome: 'delivered', conformed: true })
  })
})

describe('signed callbacks (#17)', () => {
  const SECRET = 'callback-s3cret'
  const sign = (body: string) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`

  it('with webhookSecret, X-Hub-Signature-256 is the HMAC-SHA256 of the raw body, an empty one included', async () => {
    const receiver = await receivers.start(asDeclared)
    const app = await start({ webhookSecret: SECRET })
    await subscribe(app, { callbackUrl: receiver.url })
    const received = await receiver.next(2)
    for (const request of received) {
      expect(request.headers['x-hub-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/)
      expect(request.headers['x-hub-signature-256']).toBe(sign(request.body))
    }
    expect(received.find((r) => r.method === 'PUT')!.headers['x-hub-signature-256']).toBe(sign(''))
    const records = await app.mock.waitForDeliveries({ count: 2 })
    for (const record of records)
      expect(record.request.headers['x-hub-signature-256']).toBe(sign(record.request.body ?? ''))
  })

  it('without webhookSecret, no signature header is sent', async () => {
    const receiver = await receivers.start(asDeclared)
    const app = await start()
    await subscribe(app, { callbackUrl: receiver.url })
    for (const request of await receiver.next(2)) expect(request.headers).not.toHaveProperty('x-hub-signature-256')
  })
})
