/**
 * What a browser meets at the mock (#13): the index at `GET /`, the favicon it asks for by itself,
 * CORS on the described API's misses, and the admin API driven from a page of another origin. One
 * suite that every transport runs: `test/in-process/browser.test.ts` through `createApp().request()`,
 * `test/socket/browser.test.ts` over a socket with `node:http` (which sends `Origin` and `Host` as given).
 */
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import type { AppOptions, MockHandle, RequestLine } from '../../src/index.js'
import { expectErrorBody } from './cases.js'

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

const specs = {
  indexPage: fileURLToPath(new URL('../descriptions/index-page.yaml', import.meta.url)),
  rootAndFavicon: fileURLToPath(new URL('../descriptions/root-and-favicon.yaml', import.meta.url)),
}

/** What Chrome and Firefox send when the address is typed in. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'
const PAGE = 'http://localhost:5173'
const OTHER_SITE = 'https://evil.example'
const ADMIN_TOKEN = 'admin-s3cret'
const ADMIN_ROUTES = [
  'GET /__mock/health',
  'GET /__mock/scenario',
  'PUT /__mock/scenario',
  'GET /__mock/requests',
  'DELETE /__mock/requests',
  'GET /__mock/requests/count',
  'GET /__mock/requests/{id}',
  'GET /__mock/coverage',
  'POST /__mock/coverage/reset',
  'POST /__mock/coverage/report',
  'POST /__mock/verify',
  'POST /__mock/reset',
  'GET /__mock/state',
  'PUT /__mock/state/{resource}',
  'POST /__mock/state/{resource}/reset',
  'GET /__mock/stubs',
  'POST /__mock/stubs',
  'DELETE /__mock/stubs',
  'GET /__mock/stubs/{id}',
  'DELETE /__mock/stubs/{id}',
  'POST /__mock/webhooks',
  'GET /__mock/webhooks/targets',
  'PUT /__mock/webhooks/targets',
  'GET /__mock/deliveries',
  'DELETE /__mock/deliveries',
  'GET /__mock/spec',
  'GET /__mock/requests/stream',
  'GET /__mock/',
  'GET /__mock/dashboard/dashboard.js',
  'GET /__mock/dashboard/dashboard.css',
]

const preflight = (method: string, headers: Record<string, string> = {}) => ({
  origin: PAGE,
  'access-control-request-method': method,
  ...headers,
})

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

  describe(`GET / without a declared root ${transport}`, () => {
    it('answers JSON listing the operations served and the admin routes, to a client that prefers no HTML (#13)', async () => {
      const target = await mockWith()
      for (const accept of [undefined, '*/*', 'application/json']) {
        const answer = await target.send('GET', '/', accept ? { accept } : {})
        expect(answer.status, String(accept)).toBe(200)
        expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
        expect(answer.headers.get('vary')).toMatch(/accept/i)
        const index = JSON.parse(answer.text)
        expect(index).toMatchObject({
          title: 'Plant Store',
          version: '1.0.0',
          operations: [{ method: 'POST', path: '/plants', operationId: 'addPlant' }],
        })
        expect(index.message).toContain('declares no GET /')
        expect(index.admin.map((r: { method: string; path: string }) => `${r.method} ${r.path}`)).toEqual(ADMIN_ROUTES)
      }
    })

    it('answers HTML to a browser, with the operations and the admin routes (#13)', async () => {
      const answer = await (await mockWith()).send('GET', '/', { accept: BROWSER_ACCEPT })
      expect(answer.status).toBe(200)
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(answer.text).toMatch(/^<!doctype html>/)
      expect(answer.text).toContain('<td>POST</td><td>/plants</td><td>addPlant</td>')
      expect(answer.text).toContain('<a href="/__mock/requests">/__mock/requests</a>')
      expect(answer.text).toContain('POST /__mock/reset')
    })

    it('escapes the description in HTML and leaves out an operationId the description does not give (#13)', async () => {
      const target = await mockWith({ spec: specs.indexPage })
      const html = (await target.send('GET', '/', { accept: BROWSER_ACCEPT })).text
      expect(html).toContain('<title>Things &#60;b&#62;&#38; Co&#60;/b&#62; 2.0.0</title>')
      expect(html).not.toContain('<b>')
      expect(html).toContain('<td>GET</td><td>/things/{id}</td><td>getThing</td>')
      const index = JSON.parse((await target.send('GET', '/')).text)
      expect(index.operations).toEqual([
        { method: 'GET', path: '/things/{id}', operationId: 'getThing' },
        { method: 'POST', path: '/things' },
      ])
    })

    it('answers HEAD / as GET / without the body, for both media types (#13)', async () => {
      const target = await mockWith()
      for (const accept of ['application/json', BROWSER_ACCEPT]) {
        const get = await target.send('GET', '/', { accept })
        const head = await target.send('HEAD', '/', { accept })
        expect(head.status).toBe(200)
        expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'))
        expect(head.text).toBe('')
      }
    })

    it('lists no admin routes with the admin API off (#13)', async () => {
      const target = await mockWith({ admin: false })
      expect(JSON.parse((await target.send('GET', '/')).text)).not.toHaveProperty('admin')
      expect((await target.send('GET', '/', { accept: BROWSER_ACCEPT })).text).not.toContain('/__mock')
    })

    it('is neither journaled nor logged, like the admin API (#13)', async () => {
      const target = await mockWith()
      await target.send('GET', '/')
      await target.send('HEAD', '/', { accept: BROWSER_ACCEPT })
      expect(target.mock.requests()).toEqual([])
      expect(target.logged).toEqual([])
    })

    it('another method on / is the usual 404, journaled (#13)', async () => {
      const target = await mockWith()
      const answer = await target.send('POST', '/', { 'content-type': 'application/json' }, '{}')
      expect(answer.status).toBe(404)
      expect(JSON.parse(answer.text).message).toContain('No operation in the description matches POST /')
      expect(target.mock.requests()).toMatchObject([{ method: 'POST', path: '/', status: 404 }])
    })
  })

  describe(`/favicon.ico without a declared one ${transport}`, () => {
    it('answers 404 with the Error body, kept out of the journal and the request log (#13)', async () => {
      const target = await mockWith()
      for (const method of ['GET', 'HEAD']) {
        const answer = await target.send(method, '/favicon.ico')
        expect(answer.status).toBe(404)
        if (method === 'GET') expectErrorBody(JSON.parse(answer.text), 404)
      }
      expect(target.mock.requests()).toEqual([])
      expect(target.logged).toEqual([])
      // The same miss elsewhere is journaled and logged as before.
      await target.send('GET', '/favicon.png')
      expect(target.mock.requests()).toMatchObject([{ path: '/favicon.png', status: 404 }])
      expect(target.logged).toMatchObject([{ path: '/favicon.png', status: 404 }])
    })
  })

  describe(`a description that declares / and /favicon.ico ${transport}`, () => {
    it('serves both as declared, journaled and logged (#13)', async () => {
      const target = await mockWith({ spec: specs.rootAndFavicon })
      const root = await target.send('GET', '/', { accept: BROWSER_ACCEPT })
      expect(root.status).toBe(200)
      expect(JSON.parse(root.text)).toEqual({ mine: true })
      const icon = await target.send('GET', '/favicon.ico')
      expect(icon.status).toBe(200)
      expect(icon.headers.get('content-type')).toMatch(/^image\/x-icon/)
      expect(target.mock.requests().map((entry) => [entry.operation, entry.status])).toEqual([
        ['getRoot', 200],
        ['getFavicon', 200],
      ])
      expect(target.logged).toHaveLength(2)
    })
  })

  describe(`CORS on the described API's misses ${transport}`, () => {
    it('answers the preflight of an unknown path 204 with CORS headers, then the request 404 with them (#13)', async () => {
      const target = await mockWith()
      const answer = await target.send(
        'OPTIONS',
        '/trees',
        preflight('GET', { 'access-control-request-headers': 'authorization' }),
      )
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
      const answer = await target.send(
        'POST',
        '/plants',
        { origin: PAGE, authorization: 'Bearer t', 'content-type': 'application/json' },
        '{"id":1,"name":"Fern"}',
      )
      expect(answer.status).toBe(200)
      expectCors(answer)
    })
  })

  describe(`the admin API from a page ${transport}`, () => {
    it('answers the preflight of a page on a loopback origin without the admin token, then its requests with it (#13)', async () => {
      const target = await mockWith({ adminToken: ADMIN_TOKEN })
      const answer = await target.send(
        'OPTIONS',
        '/__mock/scenario',
        preflight('PUT', { 'access-control-request-headers': 'authorization,content-type' }),
      )
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
      const answer = await target.send(
        'PUT',
        '/__mock/scenario',
        { origin: PAGE, 'content-type': 'application/json' },
        '{"name":"error"}',
      )
      expect(answer.status).toBe(401)
      expectCors(answer)
      expect(answer.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate')
      expect(target.mock.activeScenario()).toBe('default')
    })

    it('answers health, and the admin 404 and 405, to a page with CORS headers (#13)', async () => {
      const target = await mockWith()
      expectCors(await target.send('GET', '/__mock/health', { origin: PAGE }))
      const wrong = await target.send(
        'PATCH',
        '/__mock/scenario',
        { origin: PAGE, 'content-type': 'application/json' },
        '{}',
      )
      expect(wrong.status).toBe(405)
      expectCors(wrong)
      const unknown = await target.send('GET', '/__mock/nope', { origin: PAGE })
      expect(unknown.status).toBe(404)
      expectCors(unknown)
    })

    it('trusts a page of a host given with allowedHosts (#13)', async () => {
      const target = await mockWith({ allowedHosts: ['dev.internal'] })
      const origin = 'http://dev.internal:3000'
      expect(
        (await target.send('OPTIONS', '/__mock/reset', { origin, 'access-control-request-method': 'POST' })).status,
      ).toBe(204)
      target.mock.useScenario('error')
      const reset = await target.send('POST', '/__mock/reset', { origin })
      expect(reset.status).toBe(200)
      expectCors(reset, origin)
      expect(target.mock.activeScenario()).toBe('default')
    })

    it('refuses the preflight of a page of another site with 403, and gives it no CORS header to read anything with (#13)', async () => {
      const target = await mockWith()
      const answer = await target.send('OPTIONS', '/__mock/scenario', {
        origin: OTHER_SITE,
        'access-control-request-method': 'PUT',
      })
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
