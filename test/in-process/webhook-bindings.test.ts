/**
 * Webhooks on an event (#17): `fixtures/webhooks.yaml` binds the Plant Store's `/plant/webhook` to an
 * operation or, with `--stateful`, to a resource event; each session may give its own receiver
 * (`PUT /__mock/webhooks/targets`). Real receivers on loopback; every binding mistake stops start-up.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type AppOptions, type MockApp, createApp } from '../../src/index.js'
import { type Receiver, startReceiver } from '../support/receivers.js'
import { expectStartupError } from '../support/startup-error.js'
import { removeTempDirs, tempDirSync } from '../support/temp-dirs.js'

const spec = fileURLToPath(new URL('../descriptions/events/plant-store-webhook.yaml', import.meta.url))

/** One receiver for the file; each test reads what arrived during it, by path and parsed body. */
let receiver: Receiver
let base: string
const received = () =>
  receiver.received.map((request) => ({ path: request.url, body: request.body ? JSON.parse(request.body) : undefined }))

beforeAll(async () => {
  receiver = await startReceiver()
  base = receiver.origin
})

afterAll(() => receiver.close())

afterEach(async () => {
  receiver.received.length = 0
  await removeTempDirs()
})

/** The Plant Store mock (with its webhook) and this webhooks file, its answers from the description's examples. */
function appWith(webhooks: string, options: AppOptions = {}): Promise<MockApp> {
  const fixtures = tempDirSync('webhook-bindings-', { 'webhooks.yaml': webhooks })
  return createApp({ spec, fixtures, ...options })
}

const plant = (app: MockApp, body: object, session?: string) =>
  app.request('/plants', {
    method: 'POST',
    headers: {
      authorization: 'Bearer t',
      'content-type': 'application/json',
      ...(session ? { 'x-mock-session': session } : {}),
    },
    body: JSON.stringify(body),
  })

describe('fixtures/webhooks.yaml (#17)', () => {
  it('sends the webhook after each 2xx answer of the operation, with the request body as it came', async () => {
    const app = await appWith(`/plant/webhook:\n  on: addPlant\n  to: ${base}/hook\n  body: "{{request.body}}"\n`)
    expect((await plant(app, { id: 7, name: 'Ivy' })).status).toBe(200)
    expect((await plant(app, { id: 'seven' })).status).toBe(400)
    const [delivery] = await app.mock.waitForDeliveries({ name: '/plant/webhook' })
    expect(delivery).toMatchObject({ kind: 'webhook', operation: 'addPlant', outcome: 'delivered', conformed: true })
    expect(received()).toEqual([{ path: '/hook', body: { id: 7, name: 'Ivy' } }])
    expect(app.mock.deliveries()).toHaveLength(1)
  })

  it('sends the webhook’s example or static body where the binding gives none, checked against NewPlant', async () => {
    const app = await appWith(`/plant/webhook:\n  on: POST /plants\n  to: ${base}/made\n`)
    await plant(app, { id: 3, name: 'Fern', tag: 'fern' })
    const [delivery] = await app.mock.waitForDeliveries({ name: '/plant/webhook' })
    expect(delivery).toMatchObject({ outcome: 'delivered', operation: 'addPlant' })
    expect(received()).toHaveLength(1)
    expect(received()[0]!.body).toMatchObject({ name: expect.any(String), id: expect.any(Number) })
  })

  it('fills a body of the binding’s own from the request and the answer, values keeping their types', async () => {
    const app = await appWith(
      `/plant/webhook:\n  on: addPlant\n  to: ${base}/hook\n  body: { id: "{{request.body.id}}", name: "{{response.body.name}} ({{request.body.name}})", tag: "{{request.headers.x-tag}}" }\n`,
    )
    await app.request('/plants', {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json', 'x-tag': 'new' },
      body: JSON.stringify({ id: 12, name: 'Ivy' }),
    })
    await app.mock.waitForDeliveries({ name: '/plant/webhook' })
    expect(received()).toHaveLength(1)
    expect(received()[0]!.body).toMatchObject({ id: 12, tag: 'new', name: expect.stringMatching(/ \(Ivy\)$/) })
  })

  it('sends a session to its own target (PUT /__mock/webhooks/targets), others to the binding’s', async () => {
    const app = await appWith(`/plant/webhook:\n  on: addPlant\n  to: ${base}/shared\n  body: "{{request.body}}"\n`)
    const put = await app.request('/__mock/webhooks/targets', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-mock-session': 'worker-1' },
      body: JSON.stringify({ '/plant/webhook': `${base}/worker-1` }),
    })
    expect(put.status).toBe(200)
    expect(await put.json()).toEqual({ session: 'worker-1', targets: { '/plant/webhook': `${base}/worker-1` } })
    await Promise.all([plant(app, { id: 1, name: 'A' }, 'worker-1'), plant(app, { id: 2, name: 'B' }, 'worker-2')])
    await app.mock.waitForDeliveries({ count: 2 })
    expect(
      received()
        .map((r) => `${r.path} ${(r.body as { name: string }).name}`)
        .sort(),
    ).toEqual(['/shared B', '/worker-1 A'])
    expect(app.mock.deliveries({ session: 'worker-1' })).toHaveLength(1)
    const refused = await app.request('/__mock/webhooks/targets', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ '/nope': `${base}/x` }),
    })
    expect(refused.status).toBe(404)
    await app.request('/__mock/reset?session=worker-1', { method: 'POST' })
    expect(await (await app.request('/__mock/webhooks/targets?session=worker-1')).json()).toEqual({
      session: 'worker-1',
      targets: {},
    })
  })

  it('follows a resource event in stateful mode: plants.created, not a read or a refused create', async () => {
    const app = await appWith(
      `/plant/webhook:\n  on: plants.created\n  to: ${base}/created\n  body: "{{request.body}}"\n`,
      {
        stateful: true,
      },
    )
    expect((await plant(app, { id: 8, name: 'Oak' })).status).toBe(200)
    expect((await plant(app, { id: 8, name: 'Oak' })).status).toBe(400)
    await app.mock.waitForDeliveries({ name: '/plant/webhook' })
    expect(received()).toEqual([{ path: '/created', body: { id: 8, name: 'Oak' } }])
  })

  it('skips a binding whose body breaks the webhook’s schema, and logs it', async () => {
    const warnings: string[] = []
    const app = await appWith(`/plant/webhook:\n  on: addPlant\n  to: ${base}/hook\n  body: "{{response.body}}"\n`, {
      logger: { info: () => {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
    })
    // The Plant Store answers a Plant, without the id NewPlant requires.
    await plant(app, { id: 9, name: 'Moss' })
    await new Promise((resolve) => setImmediate(resolve))
    expect(app.mock.deliveries()).toEqual([])
    expect(warnings.join('\n')).toMatch(
      /webhook \/plant\/webhook on addPlant not sent: its body breaks the webhook's schema/,
    )
  })
})

describe('fixtures/webhooks.yaml mistakes stop start-up (#17)', () => {
  it.each([
    ['an unknown webhook', `/nope:\n  on: addPlant\n`, /declares no such webhook/],
    ['an unknown operation', `/plant/webhook:\n  on: nope\n`, /"nope" names no operation and no resource event/],
    ['a data event without --stateful', `/plant/webhook:\n  on: plants.created\n`, /--stateful/],
    [
      'a target that is no URL',
      `/plant/webhook:\n  on: addPlant\n  to: ftp://x\n`,
      /"to" must be an http: or https: URL/,
    ],
    [
      'a body breaking the schema',
      `/plant/webhook:\n  on: addPlant\n  body: { name: 5 }\n`,
      /"body" breaks the webhook's schema/,
    ],
    ['an unknown field', `/plant/webhook:\n  on: addPlant\n  when: x\n`, /unknown field\(s\) when/],
    [
      'a placeholder that reads nothing',
      `/plant/webhook:\n  on: addPlant\n  body: { id: "{{reqest.body.id}}" }\n`,
      /did you mean \{\{request\.body\.id\}\}/,
    ],
  ])('%s', async (_, yaml, message) => {
    const error = await expectStartupError(appWith(yaml), 'webhook_bad_binding')
    expect(error.message).toMatch(message)
    expect(error.message).toContain('webhooks.yaml')
  })

  it('a file that is not YAML', async () => {
    await expectStartupError(appWith('a: [b\n'), 'webhook_file_invalid')
  })
})
