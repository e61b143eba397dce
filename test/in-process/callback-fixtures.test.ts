/**
 * A callback's body from a fixture (#17): `fixtures/<operationId>/callbacks/<name>.json`, its
 * `{{request...}}` placeholders filled from the request that triggered it, checked at start-up against
 * the callback's body schema. A real receiver on loopback.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { type Receiver, startReceiver } from '../support/receivers.js'
import { expectStartupError } from '../support/startup-error.js'
import { removeTempDirs, tempDirSync } from '../support/temp-dirs.js'

const spec = fileURLToPath(new URL('../descriptions/events/callbacks.yaml', import.meta.url))

let receiver: Receiver
let base: string

beforeAll(async () => {
  // onTopic declares 204, onPlantAdded 200.
  receiver = await startReceiver((res, request) => void res.writeHead(request.method === 'PUT' ? 204 : 200).end())
  base = receiver.origin
})

afterAll(() => receiver.close())

afterEach(async () => {
  receiver.received.length = 0
  await removeTempDirs()
})

const subscribe = (app: Awaited<ReturnType<typeof createApp>>, body: object) =>
  app.request('/subscriptions?topic=ferns', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('callback bodies from fixtures (#17)', () => {
  it('sends the fixture, its placeholders read from the triggering request and its answer', async () => {
    const fixtures = tempDirSync('callback-fixtures-', {
      'subscribe/callbacks/onPlantAdded.json': { subscription: '{{response.body.id}}', name: '{{request.body.plant}}' },
    })
    const app = await createApp({ spec, fixtures })
    expect((await subscribe(app, { callbackUrl: `${base}/cb`, plant: 'Monstera' })).status).toBe(201)
    await app.mock.waitForDeliveries({ name: 'onPlantAdded' })
    expect(receiver.received.filter((r) => r.url === '/cb').map((r) => JSON.parse(r.body))).toEqual([
      { subscription: 'sub-1', name: 'Monstera' },
    ])
  })

  it('refuses {{response...}} in an answer’s own fixture: only a callback reads the answer that triggered it', async () => {
    const fixtures = tempDirSync('callback-fixtures-', { 'subscribe/201.json': { id: '{{response.body.id}}' } })
    const error = await expectStartupError(createApp({ spec, fixtures }), 'template_bad_expression')
    expect(error.message).toContain('only a callback’s fixture reads the answer that triggered it')
  })

  it('stops start-up on a fixture that breaks the callback’s schema, or names no callback', async () => {
    const broken = tempDirSync('callback-fixtures-', { 'subscribe/callbacks/onPlantAdded.json': { name: 5 } })
    const mismatch = await expectStartupError(createApp({ spec, fixtures: broken }), 'fixture_mismatch')
    expect(mismatch.message).toContain('onPlantAdded.json')
    const unknown = tempDirSync('callback-fixtures-', { 'subscribe/callbacks/onNothing.json': {} })
    const error = await expectStartupError(createApp({ spec, fixtures: unknown }), 'fixture_unknown_callback')
    expect(error.message).toContain('its callbacks: onPlantAdded, onTopic')
  })
})
