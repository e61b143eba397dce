/**
 * The in-process API as a consumer's test suite sees it (#3 §5): imported by the package's own name,
 * which Node resolves through "exports" to the built `dist/index.js` (`npm test` builds first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockServer, StartupError, createApp, startMockServer, startupErrorCodes } from 'plant-store-mock'
import { silentLogger } from '../../src/common/log.js'

const auth = { authorization: 'Bearer t', 'content-type': 'application/json' }

function postPlant(url: string, headers: Record<string, string> = {}, body = '{"id":1,"name":"Fern","tag":"fern"}') {
  return fetch(`${url}/plants`, {
    method: 'POST',
    headers: { ...auth, ...headers },
    body,
    signal: AbortSignal.timeout(10_000),
  })
}

describe('startMockServer from plant-store-mock', () => {
  let mock: MockServer

  beforeAll(async () => {
    mock = await startMockServer({ port: 0, logger: silentLogger })
  })

  afterAll(async () => {
    await mock.close()
  })

  it('listens on a free port and gives its url (#3)', () => {
    expect(mock.port).toBeGreaterThan(0)
    expect(mock.url).toBe(`http://127.0.0.1:${mock.port}`)
  })

  it('names the description and the operations it serves', () => {
    expect(mock.title).toBe('Plant Store 1.0.0')
    expect(mock.operations).toEqual(['POST /plants'])
  })

  it('serves the templated 200 at its url', async () => {
    mock.reset()
    const response = await postPlant(mock.url)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ name: 'Fern', tag: 'fern' })
  })

  it('useScenario forces the 400 path for POST /plants (#3)', async () => {
    mock.reset()
    mock.useScenario('error')
    const response = await postPlant(mock.url)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: 400, message: 'The plant could not be added.' })
  })

  it('useScenario for one session leaves other clients alone', async () => {
    mock.reset()
    mock.useScenario('duplicate-plant', { session: 'w1' })
    expect((await postPlant(mock.url, { 'x-mock-session': 'w1' })).status).toBe(400)
    expect((await postPlant(mock.url)).status).toBe(200)
    expect(mock.activeScenario({ session: 'w1' })).toBe('duplicate-plant')
    expect(mock.activeScenario()).toBe('default')
  })

  it('useScenario throws on an unknown scenario', () => {
    expect(() => mock.useScenario('nope')).toThrow(/no scenario "nope"/)
  })

  it('requests() lists what the client sent, with Authorization redacted (#3)', async () => {
    mock.reset()
    await postPlant(mock.url, { 'x-trace': 'abc' })
    const [entry] = mock.requests()
    expect(entry).toMatchObject({
      method: 'POST',
      path: '/plants',
      operation: 'addPlant',
      status: 200,
      scenario: 'default',
      valid: true,
    })
    expect(entry?.headers.authorization).toBe('[redacted]')
    expect(entry?.headers['x-trace']).toBe('abc')
    expect(JSON.parse(entry?.body ?? 'null')).toEqual({ id: 1, name: 'Fern', tag: 'fern' })
  })

  it('requests(filter) keeps only the matching entries (#3)', async () => {
    mock.reset()
    await postPlant(mock.url)
    await postPlant(mock.url, {}, '{"name":"Fern"}')
    await fetch(`${mock.url}/trees`, { signal: AbortSignal.timeout(10_000) })
    expect(mock.requests({ status: 400 }).map((r) => r.violations.map((v) => v.path))).toEqual([['body.id']])
    expect(mock.requests({ operation: 'addPlant' })).toHaveLength(2)
    expect(mock.requests({ path: '/trees' }).map((r) => r.status)).toEqual([404])
    expect(mock.requests({ method: 'get' })).toHaveLength(1)
  })

  it('clearRequests empties the journal and keeps the scenario', async () => {
    mock.reset()
    mock.useScenario('error')
    await postPlant(mock.url)
    mock.clearRequests()
    expect(mock.requests()).toEqual([])
    expect(mock.activeScenario()).toBe('error')
  })

  it('reset brings back the start scenario and empties the journal (#3)', async () => {
    mock.useScenario('error')
    await postPlant(mock.url)
    mock.reset()
    expect(mock.activeScenario()).toBe('default')
    expect(mock.requests()).toEqual([])
    expect((await postPlant(mock.url)).status).toBe(200)
  })
})

describe('close() from plant-store-mock', () => {
  it('stops the server: its port refuses connections afterwards (#3)', async () => {
    const mock = await startMockServer({ port: 0, logger: silentLogger })
    expect((await postPlant(mock.url)).status).toBe(200)
    await mock.close()
    const error = await postPlant(mock.url).then(
      () => undefined,
      (e: unknown) => e as Error & { cause?: { code?: string } },
    )
    expect(error?.cause?.code).toBe('ECONNREFUSED')
  })

  it('can be called on two servers running side by side', async () => {
    const [a, b] = await Promise.all([
      startMockServer({ port: 0, logger: silentLogger }),
      startMockServer({ port: 0, logger: silentLogger }),
    ])
    expect(a.port).not.toBe(b.port)
    await Promise.all([a.close(), b.close()])
  })

  it('rejects with a StartupError for an unknown start scenario', async () => {
    const error = await startMockServer({ port: 0, logger: silentLogger, scenario: 'nope' }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    )
    expect((error as StartupError | undefined)?.code).toBe('scenario_unknown')
    expect(error).toBeInstanceOf(StartupError)
    expect((error as StartupError).message).toContain('"nope"')
  })
})

describe('createApp from plant-store-mock', () => {
  it('answers app.request() without a socket (#3)', async () => {
    const app = await createApp()
    const response = await app.request('/plants', { method: 'POST', headers: auth, body: '{"id":1,"name":"Fern"}' })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ name: 'Fern' })
  })

  it('app.mock.useScenario forces the 400 path (#3)', async () => {
    const app = await createApp()
    app.mock.useScenario('error')
    const response = await app.request('/plants', { method: 'POST', headers: auth, body: '{"id":1,"name":"Fern"}' })
    expect(response.status).toBe(400)
    expect(app.mock.activeScenario()).toBe('error')
  })

  it('app.mock.requests() sees what app.request() sent', async () => {
    const app = await createApp()
    await app.request('/plants', { method: 'POST', headers: auth, body: '{"id":1,"name":"Fern"}' })
    expect(app.mock.requests({ operation: 'addPlant' }).map((r) => [r.status, r.body])).toEqual([
      [200, '{"id":1,"name":"Fern"}'],
    ])
  })

  it('app.mock.reset() empties the journal and brings back the start scenario', async () => {
    const app = await createApp({ scenario: 'unauthorized' })
    app.mock.useScenario('error')
    await app.request('/plants', { method: 'POST', headers: auth, body: '{"id":1,"name":"Fern"}' })
    app.mock.reset()
    expect(app.mock.requests()).toEqual([])
    expect(app.mock.activeScenario()).toBe('unauthorized')
  })

  it('two apps keep their own scenario and journal', async () => {
    const [a, b] = await Promise.all([createApp(), createApp()])
    a.mock.useScenario('error')
    await b.request('/plants', { method: 'POST', headers: auth, body: '{"id":1,"name":"Fern"}' })
    expect(b.mock.activeScenario()).toBe('default')
    expect(a.mock.requests()).toEqual([])
  })

  it('rejects with a StartupError for a bad option, its code one of the exported startupErrorCodes', async () => {
    const error = await createApp({ delay: 'soon' }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    )
    expect((error as StartupError | undefined)?.code).toBe('option_bad_delay')
    expect(error).toBeInstanceOf(StartupError)
    expect(startupErrorCodes).toContain('option_bad_delay')
  })
})
