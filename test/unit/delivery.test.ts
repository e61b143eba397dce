/**
 * The sender of callbacks and webhooks (#17) without a network: refusals, the journal's bounds,
 * filters and copies, waits, and closing. Sends to real receivers are in
 * `test/socket/delivery-receivers.test.ts`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Deliverer, type DeliveryOptions, type DeliveryRequest } from '../../src/events/delivery.js'
import { keptBody, signBody } from '../../src/events/delivery-attempt.js'
import { nodePlatform } from '../../src/node/node-platform.js'

const deliverers: Deliverer[] = []

afterEach(async () => {
  await Promise.all(deliverers.splice(0).map((deliverer) => deliverer.close(0)))
})

function createDeliverer(options: Partial<DeliveryOptions> = {}) {
  const logger = { info: vi.fn(), warn: vi.fn() }
  const deliverer = new Deliverer({ logger, ...options })
  deliverers.push(deliverer)
  return { deliverer, logger }
}

/** A request no test here lets reach the network: each is refused or cancelled before it is sent. */
function webhook(url: string, change: Partial<DeliveryRequest> = {}): DeliveryRequest {
  return {
    kind: 'webhook',
    name: 'plantWatered',
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"id":3}',
    checkAnswer: () => [],
    ...change,
  }
}

/** Refused before any byte is sent: outside `allowedHosts`. */
const OFF_LIST = 'http://elsewhere.test/hooks'
const closedOptions = { allowedHosts: ['receiver.test'] }

describe('Deliverer: refused targets', () => {
  it.each([
    ['an ftp: URL', 'ftp://receiver.test/hooks', 'delivery_unsupported_scheme'],
    ['a file: URL', 'file:///etc/passwd', 'delivery_unsupported_scheme'],
    ['a malformed URL', 'not a url', 'delivery_bad_url'],
    ['a URL with credentials', 'http://user:pass@receiver.test/hooks', 'delivery_bad_request'],
  ])('refuses %s, logging why', (_, url, code) => {
    const { deliverer, logger } = createDeliverer()
    const record = deliverer.send(webhook(url))
    expect(record).toMatchObject({ outcome: 'refused', code, attempts: [] })
    expect(record.reason).toEqual(expect.any(String))
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining(record.reason!))
  })

  it('refuses a host outside allowedHosts', () => {
    const { deliverer } = createDeliverer(closedOptions)
    const record = deliverer.send(webhook(OFF_LIST))
    expect(record).toMatchObject({ outcome: 'refused', code: 'delivery_host_not_allowed' })
    expect(record.reason).toContain('elsewhere.test')
  })

  it('checks an allowed host, by its name in any case, then asks the refuse callback', () => {
    const refuse = vi.fn((url: URL) =>
      url.pathname.startsWith('/__mock') ? 'the admin API is never a receiver' : undefined,
    )
    const { deliverer } = createDeliverer({ allowedHosts: ['receiver.test', '::1'], refuse })
    const record = deliverer.send(webhook('http://RECEIVER.test/__mock/reset'))
    expect(record).toMatchObject({ outcome: 'refused', code: 'delivery_refused_by_caller' })
    expect(record.reason).toBe('the admin API is never a receiver')
    expect(deliverer.send(webhook('http://[::1]:1/__mock')).code).toBe('delivery_refused_by_caller')
  })

  it('refuses rather than sends when the refuse callback throws', () => {
    const { deliverer } = createDeliverer({
      refuse: () => {
        throw new Error('boom')
      },
    })
    expect(deliverer.send(webhook('http://receiver.test/'))).toMatchObject({
      outcome: 'refused',
      code: 'delivery_refused_by_caller',
    })
  })

  it('refuses a request fetch could never send: a body on GET', () => {
    const { deliverer } = createDeliverer({ refuse: () => undefined, allowedHosts: ['receiver.test'] })
    const record = deliverer.send(webhook('http://receiver.test/', { method: 'GET' }))
    expect(record).toMatchObject({ outcome: 'refused', code: 'delivery_bad_request' })
  })
})

describe('Deliverer: records', () => {
  it('records what would be sent, with the id, user agent and signature headers, and no absent fields', () => {
    const { deliverer } = createDeliverer({
      ...closedOptions,
      sign: (body) => signBody(nodePlatform.crypto, 'k', body),
    })
    const record = deliverer.send(
      webhook(`${OFF_LIST}?x=1`, { headers: { 'Content-Type': 'application/json', host: 'x' } }),
    )
    expect(record).toMatchObject({ id: 1, kind: 'webhook', name: 'plantWatered', target: 'http://elsewhere.test' })
    expect(record.request.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'plant-store-mock',
      'x-mock-delivery': '1',
      'x-hub-signature-256': expect.stringMatching(/^sha256=[0-9a-f]{64}$/),
    })
    expect(record).not.toHaveProperty('operation')
    expect(record).not.toHaveProperty('session')
    expect(Object.keys(record)).not.toContain('response')
  })

  it('keeps the first 64 KiB of a request body', () => {
    const { deliverer } = createDeliverer(closedOptions)
    const record = deliverer.send(webhook(OFF_LIST, { body: 'é'.repeat(40_000) }))
    expect(record.request.bodyTruncated).toBe(true)
    expect(Buffer.byteLength(record.request.body!)).toBeLessThanOrEqual(64 * 1024 + 2)
    expect(keptBody('short')).toEqual({ body: 'short' })
  })

  it('lists copies: changing one changes nothing in the journal', () => {
    const { deliverer } = createDeliverer(closedOptions)
    deliverer.send(webhook(OFF_LIST)).outcome = 'delivered'
    deliverer.list()[0]!.request.headers['x-mock-delivery'] = 'changed'
    expect(deliverer.list()[0]).toMatchObject({ outcome: 'refused', request: { headers: { 'x-mock-delivery': '1' } } })
  })

  it('lists the records matching every filter given, oldest first', () => {
    const { deliverer } = createDeliverer(closedOptions)
    deliverer.send(webhook(OFF_LIST, { session: 'a' }))
    deliverer.send(webhook(OFF_LIST, { kind: 'callback', name: 'onAdded', operation: 'addPlant', session: 'a' }))
    deliverer.send(webhook(OFF_LIST, { session: 'b' }))
    expect(deliverer.list({ session: 'a' }).map((r) => r.id)).toEqual([1, 2])
    expect(deliverer.list({ kind: 'callback', operation: 'addPlant', name: 'onAdded' }).map((r) => r.id)).toEqual([2])
    expect(deliverer.list({ session: 'a', kind: 'webhook', outcome: 'refused' }).map((r) => r.id)).toEqual([1])
    expect(deliverer.list({ outcome: 'delivered' })).toEqual([])
  })

  it('keeps the newest journalSize records', () => {
    const { deliverer } = createDeliverer({ ...closedOptions, journalSize: 3 })
    for (let n = 0; n < 10; n++) deliverer.send(webhook(OFF_LIST))
    expect(deliverer.list().map((r) => r.id)).toEqual([8, 9, 10])
  })

  it('clears one session, or all', () => {
    const { deliverer } = createDeliverer(closedOptions)
    for (const session of ['a', 'b', 'a']) deliverer.send(webhook(OFF_LIST, { session }))
    deliverer.clear('a')
    expect(deliverer.list().map((r) => r.session)).toEqual(['b'])
    deliverer.clear()
    expect(deliverer.list()).toEqual([])
  })

  it('throws on an option no deliverer can work with, with a code', () => {
    expect(() => new Deliverer({ maxInFlight: 0, logger: { info() {}, warn() {} } })).toThrow(
      expect.objectContaining({ code: 'delivery_bad_option', message: expect.stringContaining('maxInFlight') }),
    )
  })
})

describe('Deliverer: waitFor', () => {
  it('resolves once enough matching records settle, with the first of them', async () => {
    const { deliverer } = createDeliverer(closedOptions)
    const wait = deliverer.waitFor({ session: 'w1', count: 2 })
    deliverer.send(webhook(OFF_LIST, { session: 'w2' }))
    deliverer.send(webhook(OFF_LIST, { session: 'w1' }))
    deliverer.send(webhook(OFF_LIST, { session: 'w1' }))
    deliverer.send(webhook(OFF_LIST, { session: 'w1' }))
    expect((await wait).map((r) => r.id)).toEqual([2, 3])
  })

  it('resolves at once when the records are already there', async () => {
    const { deliverer } = createDeliverer(closedOptions)
    deliverer.send(webhook(OFF_LIST))
    await expect(deliverer.waitFor({ timeoutMs: 0 })).resolves.toHaveLength(1)
  })

  it('rejects after timeoutMs, saying what it waited for and what matched', async () => {
    const { deliverer } = createDeliverer(closedOptions)
    deliverer.send(webhook(OFF_LIST))
    const wait = deliverer.waitFor({ name: 'plantWatered', count: 2, timeoutMs: 20 })
    await expect(wait).rejects.toMatchObject({ name: 'DeliveryWaitError', code: 'delivery_wait_timeout' })
    await expect(wait).rejects.toThrow('Waited for 2 settled deliveries matching {"name":"plantWatered"}')
    await expect(wait).rejects.toThrow('1 matched (#1 refused); pending: none')
  })

  it('rejects a wait still open when the deliverer closes', async () => {
    const { deliverer } = createDeliverer(closedOptions)
    const wait = deliverer.waitFor({ timeoutMs: 60_000 })
    await deliverer.close(0)
    await expect(wait).rejects.toMatchObject({ code: 'delivery_closed' })
  })
})

describe('Deliverer: close', () => {
  it('records a send after close as cancelled', async () => {
    const { deliverer } = createDeliverer()
    await deliverer.close(0)
    expect(deliverer.send(webhook('http://receiver.test/'))).toMatchObject({
      outcome: 'cancelled',
      code: 'delivery_closing',
    })
    await expect(deliverer.close(0)).resolves.toBeUndefined()
  })
})
