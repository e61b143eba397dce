/**
 * What the MSW handlers add to the app they wrap (#33): which requests are the mock's (the
 * description's paths, the admin API, `baseUrl`, `strict`) and which go on to MSW, and a fault as a
 * failed fetch. The behaviour they share with the other runtimes is in `test/socket/runtimes.test.ts`.
 */
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterEach, describe, expect, it } from 'vitest'
import { createHandlers } from '../../src/msw.js'
import type { HandlersOptions } from '../../src/msw-handlers/create-mock-handlers.js'

const VALID = { id: 1, name: 'Fern' }
const servers: Array<ReturnType<typeof setupServer>> = []

afterEach(() => {
  for (const server of servers.splice(0)) server.close()
})

/** MSW in this process over the mock's handlers, after a stand-in for the app's other handlers. */
async function intercept(options: HandlersOptions = {}) {
  const { handlers, mock } = await createHandlers(options)
  const unhandled: string[] = []
  const server = setupServer(
    ...handlers,
    http.get('http://other.test/elsewhere', () => HttpResponse.text('theirs')),
  )
  // Told, then refused: an unhandled request never goes on to the network.
  server.listen({
    onUnhandledRequest(request) {
      unhandled.push(`${request.method} ${request.url}`)
      throw new Error('unhandled')
    },
  })
  servers.push(server)
  return { mock, unhandled }
}

function addPlant(base: string, body: unknown = VALID): Promise<Response> {
  return fetch(`${base}/plants`, {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

describe('MSW handlers', () => {
  it('answer a described operation and leave an unknown path to the next handler and to onUnhandledRequest', async () => {
    const { mock, unhandled } = await intercept()
    expect((await addPlant('http://api.test')).status).toBe(200)
    expect(await (await fetch('http://other.test/elsewhere')).text()).toBe('theirs')
    await fetch('http://api.test/nothing-described').catch(() => undefined)
    expect(unhandled).toEqual(['GET http://api.test/nothing-described'])
    expect(mock.requests().map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
      'POST /plants 200',
    ])
  })

  it('answer a method the described path lacks with the mock 405, not another handler', async () => {
    const { unhandled } = await intercept()
    const res = await fetch('http://api.test/plants', { method: 'DELETE' })
    expect(res.status).toBe(405)
    expect(unhandled).toEqual([])
  })

  it('with strict, answer an unknown path with the mock 404 and its Error body', async () => {
    const { mock, unhandled } = await intercept({ strict: true, baseUrl: 'http://api.test' })
    const res = await fetch('http://api.test/nothing-described')
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ error: 404 })
    expect(unhandled).toEqual([])
    expect(() => mock.verifyNoUnmatched()).toThrow(/nothing-described/)
  })

  it('with baseUrl, answer only under it: another origin or path goes on to MSW', async () => {
    const { unhandled } = await intercept({ baseUrl: 'http://api.test/' })
    expect((await addPlant('http://api.test')).status).toBe(200)
    await addPlant('http://elsewhere.test').catch(() => undefined)
    expect(unhandled).toEqual(['POST http://elsewhere.test/plants'])
  })

  it('with a path as baseUrl, answer under that path on any origin, the description servers prefix included', async () => {
    const { unhandled } = await intercept({ baseUrl: '/api', strict: true })
    await addPlant('http://x.test').catch(() => undefined)
    expect(unhandled).toEqual(['POST http://x.test/plants'])
    // Under the base path, but the description (servers: http://127.0.0.1:4010) has no /api prefix: strict's 404.
    expect((await addPlant('http://x.test/api')).status).toBe(404)
  })

  it('serve the admin API to a loopback host and to the base URL host, and refuse another as the server does', async () => {
    const { mock } = await intercept({ baseUrl: 'http://api.test' })
    await fetch('http://api.test/__mock/scenario', { method: 'PUT', body: JSON.stringify({ name: 'error' }) })
    expect(mock.activeScenario()).toBe('error')
    expect((await addPlant('http://api.test')).status).toBe(400)
    const journal = (await (await fetch('http://api.test/__mock/requests')).json()) as { requests: unknown[] }
    expect(journal.requests).toHaveLength(1)
  })

  it('refuse the admin API to a host that is neither loopback nor the base URL one', async () => {
    await intercept()
    expect((await fetch('http://localhost/__mock/requests')).status).toBe(200)
    const refused = await fetch('http://api.test/__mock/requests')
    expect(refused.status).toBe(403)
    expect(await refused.text()).toMatch(/--allowed-hosts/)
  })

  it('make the client fetch reject for a scenario fault that sends no response', async () => {
    const { mock } = await intercept()
    mock.useScenario('flaky-network')
    await expect(addPlant('http://api.test')).rejects.toThrow(TypeError)
    expect(mock.requests()[0]).toMatchObject({ path: '/plants' })
  })
})
