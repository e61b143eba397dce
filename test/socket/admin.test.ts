/**
 * The admin API and the request journal over a real socket (port 0) with global fetch: the shared
 * suite (`test/support/admin-cases.ts`), then what only a socket can show.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import { describeAdminApi } from '../support/admin-cases.js'
import { silentLogger } from '../../src/common/log.js'

describeAdminApi('over a socket', async (options = {}) => {
  const server = await startMockServer({ port: 0, logger: silentLogger, ...options })
  return {
    send: (method, path, init = {}) => fetch(server.url + path, { method, headers: init.headers, body: init.body }),
    mock: server,
    close: () => server.close(),
  }
})

describe('admin API, over a socket only', () => {
  const servers: MockServer[] = []
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()))
  })

  it('the server handle and the admin API share one journal and one scenario', async () => {
    const server = await startMockServer({ port: 0, logger: silentLogger })
    servers.push(server)
    await fetch(`${server.url}/__mock/scenario`, { method: 'PUT', body: '{"name":"error"}' })
    expect(server.activeScenario()).toBe('error')
    const response = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"id":1,"name":"Fern"}',
    })
    expect(response.status).toBe(400)
    expect(server.requests()).toMatchObject([{ operation: 'addPlant', status: 400, scenario: 'error' }])
    server.reset()
    const listed = (await (await fetch(`${server.url}/__mock/requests`)).json()) as { requests: unknown[] }
    expect(listed.requests).toEqual([])
  })

  it('a declared Content-Length over 64 KiB on PUT /__mock/scenario answers 413', async () => {
    const server = await startMockServer({ port: 0, logger: silentLogger })
    servers.push(server)
    const response = await fetch(`${server.url}/__mock/scenario`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'error', pad: 'x'.repeat(65 * 1024) }),
    })
    expect(response.status).toBe(413)
    expect(await response.json()).toMatchObject({ error: 413 })
    expect(server.activeScenario()).toBe('default')
  })
})
