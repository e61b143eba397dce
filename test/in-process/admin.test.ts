/**
 * The admin API and the request journal in process, through `createApp().request()`: the shared
 * suite (`test/support/admin-cases.ts`), then what only the in-process path can show.
 */
import { describe, expect, it, vi } from 'vitest'
import { createTokenMatcher } from '../../src/auth/check-security.js'
import { createApp } from '../support/store-under-test.js'
import { createAdminOracle } from '../support/admin-oracle.js'
import { describeAdminApi } from '../support/admin-cases.js'

// Every matcher the admin routes build is recorded, to show the token goes through the timing-safe compare.
vi.mock('../../src/auth/check-security.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/auth/check-security.js')>()
  return {
    ...original,
    createTokenMatcher: vi.fn((tokens: readonly string[], crypto: Parameters<typeof original.createTokenMatcher>[1]) =>
      vi.fn(original.createTokenMatcher(tokens, crypto)),
    ),
  }
})

describeAdminApi('through app.request()', async (options = {}) => {
  const app = await createApp(options)
  return {
    send: async (method, path, init = {}) => app.request(path, { method, headers: init.headers, body: init.body }),
    mock: app.mock,
    close: async () => {},
  }
})

describe('admin API, in process only', () => {
  it('the admin token is checked with createTokenMatcher, the timing-safe compare of check-security', async () => {
    const built = vi.mocked(createTokenMatcher)
    built.mockClear()
    const app = await createApp({ adminToken: 'admin-s3cret' })
    expect(built).toHaveBeenCalledWith(['admin-s3cret'], expect.anything())
    const matcher = built.mock.results.at(-1)!.value as ReturnType<typeof vi.fn>
    const response = await app.request('/__mock/scenario', { headers: { authorization: 'Bearer guess' } })
    expect(response.status).toBe(401)
    expect(matcher).toHaveBeenCalledWith('guess')
  })

  it('without an admin token, no token matcher is built for the admin API', async () => {
    const built = vi.mocked(createTokenMatcher)
    built.mockClear()
    const app = await createApp()
    expect(built).not.toHaveBeenCalled()
    expect((await app.request('/__mock/scenario')).status).toBe(200)
  })

  it('the admin oracle rejects a response that breaks admin-openapi.yaml', async () => {
    const oracle = await createAdminOracle()
    const json = new Headers({ 'content-type': 'application/json' })
    const health = { method: 'GET', path: '/__mock/health', status: 200, headers: json }
    expect(oracle.problems({ ...health, text: '{"status":"ok","operations":1,"scenario":"default"}' })).toEqual([])
    expect(oracle.problems({ ...health, text: '{"status":"ok"}' })).not.toEqual([])
    expect(oracle.problems({ ...health, status: 500, text: '{"error":500,"message":"x"}' })).not.toEqual([])
    expect(
      oracle.problems({
        method: 'GET',
        path: '/__mock/scenario',
        status: 401,
        headers: json,
        text: '{"error":401,"message":"x"}',
      }),
    ).not.toEqual([])
    const wrongMethod = { method: 'PATCH', path: '/__mock/scenario', status: 405, text: '{"error":405,"message":"x"}' }
    expect(
      oracle.problems({
        ...wrongMethod,
        headers: new Headers({ 'content-type': 'application/json', allow: 'GET, HEAD, PUT' }),
      }),
    ).toEqual([])
    expect(oracle.problems({ ...wrongMethod, headers: json })).not.toEqual([])
    expect(oracle.problems({ ...wrongMethod, status: 404, headers: json })).not.toEqual([])
    expect(
      oracle.problems({
        method: 'GET',
        path: '/__mock/nope',
        status: 405,
        headers: json,
        text: '{"error":405,"message":"x"}',
      }),
    ).not.toEqual([])
  })
})
