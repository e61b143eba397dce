/**
 * Callbacks and webhooks (#17) over a real socket: a mock on port 0 steered with fetch, as a test in
 * another process would, and receivers (`node:http` on 127.0.0.1, port 0) that answer or hang. What
 * closing the mock does to a delivery under way. Every admin answer is checked against
 * `admin-openapi.yaml`; the cases themselves are in test/in-process/{callbacks,webhooks}.test.ts.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { type AdminOracle, createAdminOracle } from '../support/admin-oracle.js'
import { createReceivers, hang } from '../support/receivers.js'

const WEBHOOKS = fileURLToPath(new URL('../descriptions/events/plant-store-webhook.yaml', import.meta.url))
const CALLBACKS = fileURLToPath(new URL('../descriptions/events/callbacks.yaml', import.meta.url))
const WEBHOOK = '/plant/webhook'
const FERN = { id: 7, name: 'Fern' }

let oracle: AdminOracle
beforeAll(async () => {
  oracle = await createAdminOracle()
}, 60_000)

const receivers = createReceivers()
afterEach(() => receivers.closeAll())

const servers: MockServer[] = []
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()))
})

async function start(spec: string): Promise<MockServer> {
  const server = await startMockServer({ port: 0, spec, quiet: true, logger: silentLogger })
  servers.push(server)
  return server
}

/** An admin call over the socket, its answer checked against admin-openapi.yaml. */
async function admin(server: MockServer, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  const text = await response.text()
  expect(oracle.problems({ method, path, status: response.status, headers: response.headers, text })).toEqual([])
  return { status: response.status, json: text ? JSON.parse(text) : undefined }
}

/** Rejects, naming what it waited for, when `promise` takes longer than `ms`: a bound, not a sleep. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout
  const bound = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms)
  })
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer))
}

describe('webhooks over a socket (#17)', () => {
  it('POST /__mock/webhooks answers 202, the receiver gets the body, GET /__mock/deliveries shows it delivered', async () => {
    const receiver = await receivers.start()
    const server = await start(WEBHOOKS)
    const sent = await admin(server, 'POST', '/__mock/webhooks', { name: WEBHOOK, to: receiver.url, body: FERN })
    expect(sent.status).toBe(202)
    expect(sent.json).toMatchObject({ kind: 'webhook', name: WEBHOOK, outcome: 'pending' })

    const [request] = await receiver.next()
    expect(request).toMatchObject({ method: 'POST', url: '/hook', body: JSON.stringify(FERN) })
    await server.waitForDeliveries({ name: WEBHOOK })
    const listed = await admin(server, 'GET', '/__mock/deliveries?outcome=delivered')
    expect(listed.status).toBe(200)
    expect(listed.json.deliveries).toEqual([
      expect.objectContaining({
        id: sent.json.id,
        outcome: 'delivered',
        conformed: true,
        response: expect.objectContaining({ status: 200 }),
      }),
    ])
    expect((await admin(server, 'DELETE', '/__mock/deliveries')).status).toBe(204)
    expect((await admin(server, 'GET', '/__mock/deliveries')).json).toEqual({ deliveries: [] })
  })

  it('close() while a delivery hangs on its receiver records it cancelled, and resolves within a few seconds', async () => {
    const receiver = await receivers.start(hang)
    const server = await startMockServer({ port: 0, spec: WEBHOOKS, quiet: true, logger: silentLogger })
    const sent = await admin(server, 'POST', '/__mock/webhooks', { name: WEBHOOK, to: receiver.url, body: FERN })
    await receiver.next()
    // More than ever settle: a wait the close leaves unmet is rejected, not left to its timer.
    const waiting = server.waitForDeliveries({ name: WEBHOOK, count: 2, timeoutMs: 30_000 })
    const waited = expect(waiting).rejects.toMatchObject({ name: 'DeliveryWaitError', code: 'delivery_closed' })

    // The grace is 2 s, then what is left is aborted.
    await within(server.close(), 8000, 'close()')
    await waited
    const [record] = server.deliveries()
    expect(record).toMatchObject({ id: sent.json.id, outcome: 'cancelled', code: 'delivery_closed' })
    expect(record!.reason).toContain('closed before the delivery settled')
    // Once closed, nothing new is sent: it is recorded cancelled at once.
    expect(server.sendWebhook(WEBHOOK, { to: receiver.url, body: FERN })).toMatchObject({
      outcome: 'cancelled',
      code: 'delivery_closing',
    })
    expect(receiver.received).toHaveLength(1)
  })
})

describe('callbacks over a socket (#17)', () => {
  it('after POST /subscriptions answers 201, both callbacks reach the receiver, and the journal lists them', async () => {
    const receiver = await receivers.start((res, request) => res.writeHead(request.method === 'PUT' ? 204 : 200).end())
    const server = await start(CALLBACKS)
    const response = await fetch(`${server.url}/subscriptions?topic=roses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-mock-session': 'worker-1' },
      body: JSON.stringify({ callbackUrl: receiver.url }),
    })
    expect(response.status).toBe(201)
    const received = await receiver.next(2)
    expect(received.map((r) => `${r.method} ${r.url}`).sort()).toEqual(['POST /hook', 'PUT /hook/topics/roses'])
    await server.waitForDeliveries({ count: 2 })
    const listed = await admin(server, 'GET', '/__mock/deliveries?kind=callback&operation=subscribe&session=worker-1')
    expect(listed.json.deliveries.map((r: { name: string }) => r.name).sort()).toEqual(['onPlantAdded', 'onTopic'])
    expect(listed.json.deliveries.every((r: { conformed: boolean }) => r.conformed)).toBe(true)
  })
})
