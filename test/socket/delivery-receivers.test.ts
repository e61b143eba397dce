/**
 * The sender of callbacks and webhooks (#17) against real receivers: `node:http` servers on
 * 127.0.0.1, port 0, that answer, fail, hang or refuse, as clients' receivers do.
 */
import { createHmac } from 'node:crypto'
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Deliverer, type DeliveryOptions, type DeliveryRequest } from '../../src/events/delivery.js'
import { signBody } from '../../src/events/delivery-attempt.js'
import { nodePlatform } from '../../src/node/node-platform.js'

interface Receiver {
  url: string
  received: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[]
  /** The most requests it was answering at once. */
  mostAtOnce: number
}

const servers: Server[] = []
const deliverers: Deliverer[] = []

afterEach(async () => {
  await Promise.all(deliverers.splice(0).map((deliverer) => deliverer.close(0)))
  await Promise.all(servers.splice(0).map(closeServer))
})

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections()
  return new Promise((resolve) => server.close(() => resolve()))
}

/** A receiver that records each request, its body read, and answers it as told. */
async function startReceiver(answer: Answer): Promise<Receiver> {
  const receiver: Receiver = { url: '', received: [], mostAtOnce: 0 }
  let atOnce = 0
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString()
      receiver.received.push({ method: req.method!, url: req.url!, headers: req.headers, body })
      receiver.mostAtOnce = Math.max(receiver.mostAtOnce, ++atOnce)
      res.on('close', () => atOnce--)
      answer(res, receiver.received.length - 1)
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/plant`
  return receiver
}

/** How a receiver answers its `seen`th request (from 0). */
type Answer = (res: ServerResponse, seen: number) => void
function answerWith(status: number, body = ''): Answer {
  return (res) => res.writeHead(status).end(body)
}
const hang: Answer = () => undefined

function createDeliverer(options: Partial<DeliveryOptions> = {}) {
  const logger = { info: vi.fn(), warn: vi.fn() }
  const deliverer = new Deliverer({ retryDelayMs: 10, logger, ...options })
  deliverers.push(deliverer)
  return { deliverer, logger }
}

function plantAdded(url: string, change: Partial<DeliveryRequest> = {}): DeliveryRequest {
  return {
    kind: 'callback',
    name: 'onPlantAdded',
    operation: 'addPlant',
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"id":3,"name":"Rose"}',
    checkAnswer: () => [],
    ...change,
  }
}

/** One delivery to a receiver answering as told, settled. */
async function deliverTo(answer: Answer, options: Partial<DeliveryOptions> = {}, edit: Partial<DeliveryRequest> = {}) {
  const receiver = await startReceiver(answer)
  const { deliverer, logger } = createDeliverer(options)
  const sent = deliverer.send(plantAdded(receiver.url, edit))
  const [record] = await deliverer.waitFor({})
  return { record: record!, sent, receiver, logger }
}

describe('Deliverer: answers', () => {
  it('sends the method, body and headers, signed, and records a conforming 200 as delivered', async () => {
    const checkAnswer = vi.fn(() => [])
    const { record, sent, receiver, logger } = await deliverTo(
      answerWith(200, 'ok'),
      { sign: (body) => signBody(nodePlatform.crypto, 'k', body) },
      { checkAnswer },
    )
    expect(sent.outcome).toBe('pending')
    const [request] = receiver.received
    expect(request).toMatchObject({ method: 'POST', url: '/hooks/plant', body: '{"id":3,"name":"Rose"}' })
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'plant-store-mock',
      'x-mock-delivery': String(sent.id),
    })
    const expected = createHmac('sha256', 'k').update(request!.body).digest('hex')
    expect(request!.headers['x-hub-signature-256']).toBe(`sha256=${expected}`)
    expect(record).toMatchObject({ outcome: 'delivered', conformed: true, violations: [] })
    expect(record.target).toBe(new URL(receiver.url).origin)
    expect(record.response).toMatchObject({ status: 200, body: 'ok' })
    expect(record.attempts).toEqual([{ time: expect.any(String), durationMs: expect.any(Number), status: 200 }])
    expect(checkAnswer).toHaveBeenCalledTimes(1)
    expect(checkAnswer).toHaveBeenCalledWith(200, expect.any(Headers), 'ok')
    expect(logger.info).toHaveBeenCalledWith(expect.stringContaining('onPlantAdded'))
  })

  it('retries a receiver that fails twice with 503 and records the third attempt delivered', async () => {
    const { record, receiver } = await deliverTo((res, seen) => res.writeHead(seen < 2 ? 503 : 200).end())
    expect(record.outcome).toBe('delivered')
    expect(record.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 200])
    expect(receiver.received).toHaveLength(3)
  })

  it('records a receiver that always answers 503 as failed after one attempt and every retry', async () => {
    const { record, logger } = await deliverTo(answerWith(503, 'busy'), { retries: 2 })
    expect(record.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503])
    expect(record).toMatchObject({ outcome: 'failed', code: 'delivery_server_error', response: { status: 503 } })
    expect(record.response!.body).toBe('busy')
    expect(record.reason).toContain('503')
    expect(record).not.toHaveProperty('conformed')
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('failed'))
  })

  it('gives up on a receiver that never answers once each attempt has timed out', async () => {
    const { record, receiver } = await deliverTo(hang, { timeoutMs: 100, retries: 1 })
    expect(record).toMatchObject({ outcome: 'failed', code: 'delivery_timeout' })
    expect(record.attempts.map((attempt) => attempt.error)).toEqual(Array(2).fill('no answer within 100 ms'))
    expect(receiver.received).toHaveLength(2)
  })

  it('records a refused connection as a network error, retried, then failed', async () => {
    const closed = await startReceiver(hang)
    await closeServer(servers.pop()!)
    const { deliverer } = createDeliverer({ retries: 1 })
    deliverer.send(plantAdded(closed.url))
    const [record] = await deliverer.waitFor({})
    expect(record).toMatchObject({ outcome: 'failed', code: 'delivery_network_error' })
    expect(record!.attempts).toHaveLength(2)
    expect(record!.attempts[0]!.error).toContain('ECONNREFUSED')
  })

  it('records a 404 as delivered, once, conforming as the checker says', async () => {
    const { record, receiver } = await deliverTo(answerWith(404))
    expect(record).toMatchObject({ outcome: 'delivered', conformed: true, response: { status: 404 } })
    expect(receiver.received).toHaveLength(1)
  })

  it('reports an answer that breaks the declaration, without retrying it', async () => {
    const violation = { path: 'body', message: 'is not JSON' }
    const { record, logger } = await deliverTo(answerWith(200, 'no'), {}, { checkAnswer: () => [violation] })
    expect(record).toMatchObject({ outcome: 'delivered', conformed: false, violations: [violation] })
    expect(record.attempts).toHaveLength(1)
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('is not JSON'))
  })

  it('takes a redirect as the answer and does not follow it', async () => {
    const { record, receiver } = await deliverTo((res) => res.writeHead(302, { location: '/elsewhere' }).end())
    expect(record.outcome).toBe('delivered')
    expect(record.response).toMatchObject({ status: 302, headers: { location: '/elsewhere' } })
    expect(receiver.received).toHaveLength(1)
  })

  it('reads at most 1 MiB of an answer, keeps 64 KiB and reports the rest as unread', async () => {
    const checkAnswer = vi.fn(() => [])
    const { record } = await deliverTo((res) => res.end('x'.repeat(3 * 1024 * 1024)), {}, { checkAnswer })
    expect(record).toMatchObject({ outcome: 'delivered', conformed: false, violations: [{ path: 'body' }] })
    expect(record.response).toMatchObject({ bodyTruncated: true })
    expect(record.response!.body).toHaveLength(64 * 1024)
    expect((checkAnswer.mock.calls[0] as unknown[])[2]).toHaveLength(1024 * 1024)
  })
})

describe('Deliverer: bounds', () => {
  it('sends at most maxInFlight at once and queues the rest', async () => {
    const receiver = await startReceiver((res) => setTimeout(() => res.writeHead(204).end(), 50))
    const { deliverer } = createDeliverer({ maxInFlight: 2 })
    for (let n = 0; n < 5; n++) deliverer.send(plantAdded(receiver.url))
    const records = await deliverer.waitFor({ count: 5 })
    expect(records.map((record) => record.outcome)).toEqual(Array(5).fill('delivered'))
    expect(receiver.mostAtOnce).toBe(2)
  })

  it('records a send beyond a full queue as dropped, and counts it', async () => {
    const receiver = await startReceiver(hang)
    const { deliverer, logger } = createDeliverer({ maxInFlight: 1, maxQueued: 1 })
    const outcomes = [1, 2, 3].map(() => deliverer.send(plantAdded(receiver.url)).outcome)
    expect(outcomes).toEqual(['pending', 'pending', 'dropped'])
    expect(deliverer.dropped).toBe(1)
    expect(deliverer.list({ outcome: 'dropped' })[0]).toMatchObject({ code: 'delivery_queue_full' })
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('dropped'))
  })

  it('rejects a wait that runs out, saying what matched and what is still pending', async () => {
    const receiver = await startReceiver(hang)
    const { deliverer } = createDeliverer()
    const { id } = deliverer.send(plantAdded(receiver.url))
    const wait = deliverer.waitFor({ name: 'onPlantAdded', timeoutMs: 50 })
    await expect(wait).rejects.toMatchObject({ code: 'delivery_wait_timeout' })
    await expect(wait).rejects.toThrow(`0 matched (none); pending: #${id} callback onPlantAdded POST`)
  })

  it('keeps a send under way through clear() and records it when it settles', async () => {
    const receiver = await startReceiver((res) => setTimeout(() => res.writeHead(200).end(), 50))
    const { deliverer } = createDeliverer()
    deliverer.send(plantAdded(receiver.url, { session: 'w1' }))
    deliverer.clear('w1')
    expect(deliverer.list()).toHaveLength(1)
    const [record] = await deliverer.waitFor({ session: 'w1' })
    expect(record!.outcome).toBe('delivered')
  })
})

describe('Deliverer: close', () => {
  it('lets a quick delivery finish within the grace', async () => {
    const receiver = await startReceiver((res) => setTimeout(() => res.writeHead(200).end(), 30))
    const { deliverer } = createDeliverer()
    deliverer.send(plantAdded(receiver.url))
    await deliverer.close(2000)
    expect(deliverer.list()[0]!.outcome).toBe('delivered')
  })

  it('cancels a hanging delivery after the grace and records it cancelled', async () => {
    const receiver = await startReceiver(hang)
    const { deliverer } = createDeliverer({ maxInFlight: 1 })
    deliverer.send(plantAdded(receiver.url))
    deliverer.send(plantAdded(receiver.url, { name: 'queued' }))
    const started = performance.now()
    await deliverer.close(50)
    expect(performance.now() - started).toBeLessThan(1000)
    expect(deliverer.list({ outcome: 'cancelled' }).map((r) => r.code)).toEqual(Array(2).fill('delivery_closed'))
    expect(deliverer.send(plantAdded(receiver.url))).toMatchObject({ outcome: 'cancelled', code: 'delivery_closing' })
  })

  it('cancels a delivery waiting to retry without waiting for its timer', async () => {
    const receiver = await startReceiver(answerWith(503))
    const { deliverer } = createDeliverer({ retryDelayMs: 60_000 })
    deliverer.send(plantAdded(receiver.url))
    await vi.waitFor(() => expect(deliverer.list()[0]!.attempts).toHaveLength(1), { timeout: 2000 })
    const started = performance.now()
    await deliverer.close(0)
    expect(performance.now() - started).toBeLessThan(500)
    expect(deliverer.list()[0]).toMatchObject({ outcome: 'cancelled', attempts: [{ status: 503 }] })
  })
})
