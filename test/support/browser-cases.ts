/**
 * What a browser meets at the mock (#13): CORS on the described API's misses, and the admin API
 * driven from a page of another origin. One
 * suite that every transport runs: `test/http/browser.test.ts` through `createApp().request()`,
 * `test/client/browser.test.ts` over a socket with `node:http` (which sends `Origin` and `Host` as given).
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { AppOptions, MockHandle, RequestLine } from '../../src/index.js'

export interface BrowserAnswer {
  status: number
  headers: Headers
  text: string
}

/** One running mock, whatever the transport, with the request lines it logged. */
export interface BrowserTarget {
  send(method: string, path: string, headers?: Record<string, string>, body?: string): Promise<BrowserAnswer>
  mock: MockHandle
  logged: RequestLine[]
  close(): Promise<void>
}

export type StartBrowserTarget = (options: AppOptions) => Promise<BrowserTarget>

const PAGE = 'http://localhost:5173'
const OTHER_SITE = 'https://evil.example'
const ADMIN_TOKEN = 'admin-s3cret'

const preflight = (method: string, headers: Record<string, string> = {}) => ({ origin: PAGE, 'access-control-request-method': method, ...headers })

export function describeBrowserCases(transport: string, start: StartBrowserTarget): void {
  const started: BrowserTarget[] = []
  afterAll(async () => {
    await Promise.all(started.map((target) => target.close()))
  })

  async function mockWith(options: AppOptions = {}): Promise<BrowserTarget> {
    const target = await start(options)
    started.push(target)
    return target
  }

  function expectCors(answer: BrowserAnswer, origin = PAGE): void {
    expect(answer.headers.get('access-control-allow-origin')).toBe(origin)
    expect(answer.headers.get('access-control-allow-credentials')).toBe('true')
  }

  function expectNoCors(answer: BrowserAnswer): void {
    expect(answer.headers.get('access-control-allow-origin')).toBeNull()
  }

  describe(`CORS on the described API's misses ${transport}`, () => {
    it('answers the preflight of an unknown path 204 with CORS headers, then the request 404 with them (#13)', async () => {
      const target = await mockWith()
      const answer = await target.send('OPTIONS', '/trees', preflight('GET', { 'access-control-request-headers': 'authorization' }))
      expect(answer.status).toBe(204)
      expectCors(answer)
      expect(answer.headers.get('access-control-allow-methods')).toContain('GET')
      expect(answer.headers.get('access-control-allow-headers')).toBe('authorization')
      const actual = await target.send('GET', '/trees', { origin: PAGE })
      expect(actual.status).toBe(404)
      expectCors(actual)
      expect(JSON.parse(actual.text).message).toContain('GET /trees')
    })

    it('answers the preflight of an undeclared method 204, then the request 405 with CORS headers and Allow exposed (#13)', async () => {
      const target = await mockWith()
      expect((await target.send('OPTIONS', '/plants', preflight('DELETE'))).status).toBe(204)
      const actual = await target.send('DELETE', '/plants', { origin: PAGE })
      expect(actual.status).toBe(405)
      expectCors(actual)
      expect(actual.headers.get('allow')).toBe('POST')
      expect(actual.headers.get('access-control-expose-headers')).toContain('Allow')
    })

    it('journals the request a preflight announced, not the preflight (#13)', async () => {
      const target = await mockWith()
      await target.send('OPTIONS', '/trees', preflight('PUT'))
      await target.send('PUT', '/trees', { origin: PAGE })
      expect(target.mock.requests().map((entry) => `${entry.method} ${entry.status}`)).toEqual(['PUT 404'])
    })

    it('still answers a declared operation with CORS headers (#13)', async () => {
      const target = await mockWith()
      expect((await target.send('OPTIONS', '/plants', preflight('POST'))).status).toBe(204)
      const answer = await target.send('POST', '/plants', { origin: PAGE, authorization: 'Bearer t', 'content-type': 'application/json' }, '{"id":1,"name":"Fern"}')
      expect(answer.status).toBe(200)
      expectCors(answer)
    })
  })

  describe(`the admin API from a page ${transport}`, () => {
    it('answers the preflight of a page on a loopback origin without the admin token, then its requests with it (#13)', async () => {
      const target = await mockWith({ adminToken: ADMIN_TOKEN })
      const answer = await target.send('OPTIONS', '/__mock/scenario', preflight('PUT', { 'access-control-request-headers': 'authorization,content-type' }))
      expect(answer.status).toBe(204)
      expectCors(answer)
      expect(answer.headers.get('access-control-allow-methods')).toContain('PUT')
      expect(answer.headers.get('access-control-allow-headers')).toBe('authorization,content-type')

      const authorized = { origin: PAGE, authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }
      const put = await target.send('PUT', '/__mock/scenario', authorized, '{"name":"error"}')
      expect(put.status).toBe(200)
      expectCors(put)
      expect(target.mock.activeScenario()).toBe('error')
      const journal = await target.send('GET', '/__mock/requests', authorized)
      expect(journal.status).toBe(200)
      expectCors(journal)
    })

    it('still asks a page for the admin token, and lets it read why (#13)', async () => {
      const target = await mockWith({ adminToken: ADMIN_TOKEN })
      const answer = await target.send('PUT', '/__mock/scenario', { origin: PAGE, 'content-type': 'application/json' }, '{"name":"error"}')
      expect(answer.status).toBe(401)
      expectCors(answer)
      expect(answer.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate')
      expect(target.mock.activeScenario()).toBe('default')
    })

    it('answers health, and the admin 404 and 405, to a page with CORS headers (#13)', async () => {
      const target = await mockWith()
      expectCors(await target.send('GET', '/__mock/health', { origin: PAGE }))
      const wrong = await target.send('PATCH', '/__mock/scenario', { origin: PAGE, 'content-type': 'application/json' }, '{}')
      expect(wrong.status).toBe(405)
      expectCors(wrong)
      const unknown = await target.send('GET', '/__mock/nope', { origin: PAGE })
      expect(unknown.status).toBe(404)
      expectCors(unknown)
    })

    it('trusts a page of a host given with allowedHosts (#13)', async () => {
      const target = await mockWith({ allowedHosts: ['dev.internal'] })
      const origin = 'http://dev.internal:3000'
      expect((await target.send('OPTIONS', '/__mock/reset', { origin, 'access-control-request-method': 'POST' })).status).toBe(204)
      target.mock.useScenario('error')
      const reset = await target.send('POST', '/__mock/reset', { origin })
      expect(reset.status).toBe(200)
      expectCors(reset, origin)
      expect(target.mock.activeScenario()).toBe('default')
    })

    it('refuses the preflight of a page of another site with 403, and gives it no CORS header to read anything with (#13)', async () => {
      const target = await mockWith()
      const answer = await target.send('OPTIONS', '/__mock/scenario', { origin: OTHER_SITE, 'access-control-request-method': 'PUT' })
      expect(answer.status).toBe(403)
      expectNoCors(answer)
      expect(JSON.parse(answer.text).message).toContain(OTHER_SITE)
      expectNoCors(await target.send('GET', '/__mock/requests', { origin: OTHER_SITE }))
      expectNoCors(await target.send('GET', '/__mock/health', { origin: OTHER_SITE }))
      target.mock.useScenario('error')
      const reset = await target.send('POST', '/__mock/reset', { origin: OTHER_SITE })
      expect(reset.status).toBe(403)
      expectNoCors(reset)
      expect(target.mock.activeScenario()).toBe('error')
    })
  })

  describe(`--no-cors ${transport}`, () => {
    it('turns off every CORS answer: the described API, its misses and the admin API (#13)', async () => {
      const target = await mockWith({ cors: false })
      const unknown = await target.send('OPTIONS', '/trees', preflight('GET'))
      expect(unknown.status).toBe(404)
      expectNoCors(unknown)
      expectNoCors(await target.send('GET', '/trees', { origin: PAGE }))
      const admin = await target.send('OPTIONS', '/__mock/scenario', preflight('PUT'))
      expect(admin.status).toBe(405)
      expectNoCors(admin)
      expectNoCors(await target.send('GET', '/__mock/health', { origin: PAGE }))
      expectNoCors(await target.send('GET', '/__mock/requests', { origin: PAGE }))
    })
  })
}
