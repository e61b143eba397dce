/**
 * json-schema-faker in a browser (#33): a chunk of its own, fetched only when a body is generated.
 * `runtimes.test.ts` runs the behaviour suite in Chromium; these look at when the page fetches the
 * faker's chunk: at start-up for `dynamic: true`, else before the first request that asks for
 * generated bodies, and, for a static body only it can make, on that request, which is refused.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type BrowserMock, startInBrowser } from '../support/browser-runtime.js'
import { hasChromium, sayWhenSkipped } from '../support/chromium.js'

sayWhenSkipped('json-schema-faker loading in a browser')

const FAKER = 'json-schema-faker'
const START_TIMEOUT = 60_000
const running: BrowserMock[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((mock) => mock.close()))
})

async function start(options: Parameters<typeof startInBrowser>[0]): Promise<BrowserMock> {
  const mock = await startInBrowser(options)
  running.push(mock)
  return mock
}

function addPlant(mock: BrowserMock, headers: Record<string, string> = {}): Promise<Response> {
  return mock.request('/plants', {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ id: 1, name: 'Fern' }),
  })
}

describe.skipIf(!hasChromium)('json-schema-faker in Chromium, loaded on demand', () => {
  it(
    'is not fetched for fixtures, errors and the journal, and is fetched before the first Prefer: dynamic=true answer',
    async () => {
      const mock = await start({ tokens: ['t'] })
      expect((await addPlant(mock)).status).toBe(200)
      expect((await addPlant(mock, { authorization: '' })).status).toBe(401)
      expect((await mock.request('/__mock/requests')).status).toBe(200)
      expect(mock.fetchedPackages()).not.toContain(FAKER)
      const generated = await addPlant(mock, { prefer: 'dynamic=true' })
      expect(generated.status).toBe(200)
      expect(await generated.json()).toEqual({ name: expect.any(String), tag: expect.any(String) })
      expect(mock.fetchedPackages()).toContain(FAKER)
    },
    START_TIMEOUT,
  )

  it(
    'is fetched before the first answer under the dynamic scenario, switched to through the handle',
    async () => {
      const mock = await start({ tokens: ['t'] })
      await mock.steer((handle) => handle.useScenario('dynamic'))
      expect(mock.fetchedPackages()).not.toContain(FAKER)
      const generated = await addPlant(mock)
      expect(generated.status).toBe(200)
      expect(await generated.json()).not.toEqual({ name: 'Fern' })
      expect(mock.fetchedPackages()).toContain(FAKER)
    },
    START_TIMEOUT,
  )

  it(
    'is fetched at start-up under dynamic: true',
    async () => {
      const mock = await start({ tokens: ['t'], dynamic: true })
      expect(mock.fetchedPackages()).toContain(FAKER)
    },
    START_TIMEOUT,
  )

  it(
    'refuses a static body only it can make with a 500 saying it is loading, and serves the body once it has loaded',
    async () => {
      const mock = await start({ spec: 'test/descriptions/static-body-beyond-sampler.yaml' })
      const first = await mock.request('/readings')
      expect(first.status).toBe(500)
      expect(await first.json()).toEqual({ error: 500, message: expect.stringMatching(/json-schema-faker.*loading/) })
      let readings = first
      // The chunk comes from loopback: a few tries at most, each a round trip through the worker.
      for (let tries = 0; tries < 50 && readings.status === 500; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        readings = await mock.request('/readings')
      }
      expect(readings.status).toBe(200)
      expect(await readings.json()).toHaveLength(3000)
      expect(mock.fetchedPackages()).toContain(FAKER)
    },
    START_TIMEOUT,
  )
})
