/**
 * `NetworkFault`, as docs/scenarios.md ("Latency and faults") promises it (#13): imported by the package's own name, which Node
 * resolves through "exports" to the built `dist/index.js`, as a consumer's test suite imports it.
 */
import { describe, expect, it } from 'vitest'
import { NetworkFault, createApp } from 'plant-store-mock'
import { silentLogger } from '../../src/common/log.js'

function addPlant(app: Awaited<ReturnType<typeof createApp>>) {
  return app.request('/plants', {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
    body: '{"id":1,"name":"Fern"}',
  })
}

describe('NetworkFault from plant-store-mock', () => {
  it('is what app.request() rejects with under a reset fault, naming the fault (#13)', async () => {
    const app = await createApp({ scenario: 'flaky-network', logger: silentLogger })
    const failure = await Promise.resolve(addPlant(app)).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(NetworkFault)
    expect(failure).toBeInstanceOf(Error)
    expect(failure).toMatchObject({ name: 'NetworkFault', fault: 'reset' })
    expect(app.mock.requests()).toMatchObject([{ operation: 'addPlant', status: 0, fault: 'reset' }])
  })

  it('is not thrown by an answer that has a response (#13)', async () => {
    const app = await createApp({ logger: silentLogger })
    expect((await addPlant(app)).status).toBe(200)
  })
})
