/**
 * The admin API (`/__mock/*`) and the request journal (issue #3, §3 and §4) as one suite that every
 * transport runs: `test/in-process/admin.test.ts` through `createApp().request()`, `test/socket/admin.test.ts`
 * over a socket with fetch (h3's `describeMatrix`). Every admin response is checked against
 * `admin-openapi.yaml` by the Prism oracle (`admin-oracle.ts`); each test is one behaviour.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppOptions, JournalEntry, MockHandle } from '../../src/index.js'
import { type AdminOracle, createAdminOracle } from './admin-oracle.js'
import { expectErrorBody, fixtures, plantOfSize } from './cases.js'
import { entryId } from './store-under-test.js'

export interface SendInit {
  headers?: Record<string, string>
  body?: string
}

/** One running mock, whatever the transport. */
export interface AdminTarget {
  /** One request; `path` may carry a query string. */
  send(method: string, path: string, init?: SendInit): Promise<Response>
  /** The in-process handle of the same mock. */
  mock: MockHandle
  close(): Promise<void>
}

export type StartTarget = (options?: AppOptions) => Promise<AdminTarget>

interface Answer {
  status: number
  headers: Headers
  text: string
  json: any
}

const root = fileURLToPath(new URL('../../', import.meta.url))
export const specs = {
  plantStore: `${root}openapi.yaml`,
  minimalJson: `${root}test/descriptions/minimal.json`,
  adminPrefix: `${root}test/descriptions/admin-prefix.yaml`,
}

const ADMIN_TOKEN = 'admin-s3cret'
const VALID = '{"id":1,"name":"Fern"}'
const BUILT_IN = ['default', 'error', 'unauthorized', 'dynamic']
const FROM_FILE = ['duplicate-plant', 'slow', 'flaky-network']

/** Every route the admin token protects, with a request that succeeds when the token is right. */
const protectedRoutes: Array<[string, string, SendInit, number]> = [
  ['GET', '/scenario', {}, 200],
  ['PUT', '/scenario', { body: '{"name":"error"}', headers: { 'content-type': 'application/json' } }, 200],
  ['GET', '/requests', {}, 200],
  ['DELETE', '/requests', {}, 204],
  ['GET', '/requests/count', {}, 200],
  ['POST', '/reset', {}, 200],
  ['GET', '/spec', {}, 200],
]

export function describeAdminApi(transport: string, start: StartTarget): void {
  let oracle: AdminOracle
  const started: AdminTarget[] = []

  beforeAll(async () => {
    oracle = await createAdminOracle()
  })

  afterAll(async () => {
    await Promise.all(started.map((target) => target.close()))
  })

  /** A fresh mock per test, closed after the file. */
  async function mockWith(options: AppOptions = {}): Promise<AdminTarget> {
    const target = await start(options)
    started.push(target)
    return target
  }

  /** An admin call: its response must conform to admin-openapi.yaml. */
  async function admin(target: AdminTarget, method: string, path: string, init: SendInit = {}): Promise<Answer> {
    const response = await target.send(method, `/__mock${path}`, init)
    const text = await response.text()
    const exchange = { method, path: `/__mock${path}`, status: response.status, headers: response.headers, text }
    expect(oracle.problems(exchange), `${method} /__mock${path} → ${response.status} ${text.slice(0, 200)}`).toEqual([])
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: text && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : undefined,
    }
  }

  async function putScenario(
    target: AdminTarget,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    return admin(target, 'PUT', '/scenario', {
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...headers },
    })
  }

  async function journal(
    target: AdminTarget,
    query = '',
    headers: Record<string, string> = {},
  ): Promise<JournalEntry[]> {
    const answer = await admin(target, 'GET', `/requests${query}`, { headers })
    expect(answer.status).toBe(200)
    return answer.json.requests
  }

  /** A valid POST /plants, with what the test changes. */
  async function addPlant(
    target: AdminTarget,
    {
      headers = {},
      body = VALID,
      path = '/plants',
    }: { headers?: Record<string, string>; body?: string; path?: string } = {},
  ) {
    const response = await target.send('POST', path, {
      headers: { authorization: 'Bearer t', 'content-type': 'application/json', ...headers },
      body,
    })
    await response.arrayBuffer()
    return response.status
  }

  describe(`admin API ${transport}`, () => {
    describe('GET /__mock/health', () => {
      it('answers ok with the operation count, the active scenario and the deliveries dropped', async () => {
        const answer = await admin(await mockWith(), 'GET', '/health')
        expect(answer.status).toBe(200)
        expect(answer.json).toEqual({ status: 'ok', operations: 1, scenario: 'default', deliveries: { dropped: 0 } })
      })

      it('reports the scenario the mock was started with', async () => {
        const answer = await admin(await mockWith({ scenario: 'error' }), 'GET', '/health')
        expect(answer.json.scenario).toBe('error')
      })
    })

    describe('GET and PUT /__mock/scenario', () => {
      it('GET lists the built-in scenarios first, then those of fixtures/scenarios.yaml', async () => {
        const answer = await admin(await mockWith(), 'GET', '/scenario')
        expect(answer.status).toBe(200)
        expect(answer.json.active).toBe('default')
        expect(answer.json).not.toHaveProperty('session')
        expect(answer.json.scenarios.map((s: { name: string }) => s.name)).toEqual([...BUILT_IN, ...FROM_FILE])
        expect(answer.json.scenarios.map((s: { builtIn: boolean }) => s.builtIn)).toEqual([
          true,
          true,
          true,
          true,
          false,
          false,
          false,
        ])
      })

      it('PUT switches the scenario every client gets', async () => {
        const target = await mockWith()
        const answer = await putScenario(target, { name: 'error' })
        expect(answer.status).toBe(200)
        expect(answer.json.active).toBe('error')
        expect(await addPlant(target)).toBe(400)
        expect((await admin(target, 'GET', '/scenario')).json.active).toBe('error')
        expect(target.mock.activeScenario()).toBe('error')
      })

      it('PUT to duplicate-plant serves the named fixture of that scenario', async () => {
        const target = await mockWith()
        await putScenario(target, { name: 'duplicate-plant' })
        const response = await target.send('POST', '/plants', {
          headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
          body: VALID,
        })
        expect(response.status).toBe(400)
        expect(await response.json()).toEqual(fixtures.duplicateId)
      })

      it.each([
        ['a body that is not JSON', 'name=error'],
        ['an empty body', ''],
        ['a JSON array', '["error"]'],
        ['a JSON string', '"error"'],
        ['a body without name', '{"scenario":"error"}'],
        ['a numeric name', '{"name":5}'],
        ['a numeric session', '{"name":"error","session":5}'],
      ])('PUT with %s answers 400 {error, message} and changes nothing', async (_what, body) => {
        const target = await mockWith()
        const answer = await admin(target, 'PUT', '/scenario', {
          body,
          headers: { 'content-type': 'application/json' },
        })
        expect(answer.status).toBe(400)
        expectErrorBody(answer.json, 400)
        expect(target.mock.activeScenario()).toBe('default')
      })

      it('PUT with an unknown scenario answers 400 naming every known scenario', async () => {
        const target = await mockWith()
        const answer = await putScenario(target, { name: 'nope' })
        expect(answer.status).toBe(400)
        expectErrorBody(answer.json, 400)
        expect(answer.json.message).toContain('"nope"')
        for (const name of [...BUILT_IN, ...FROM_FILE]) expect(answer.json.message).toContain(name)
        expect(target.mock.activeScenario()).toBe('default')
      })

      it('PUT with a body over 64 KiB answers 413 and changes nothing', async () => {
        const target = await mockWith()
        const answer = await putScenario(target, { name: 'error', pad: 'x'.repeat(70 * 1024) })
        expect(answer.status).toBe(413)
        expectErrorBody(answer.json, 413)
        expect(target.mock.activeScenario()).toBe('default')
      })

      it('PUT with X-Mock-Session switches only that session', async () => {
        const target = await mockWith()
        const answer = await putScenario(target, { name: 'error' }, { 'x-mock-session': 'a' })
        expect(answer.json).toMatchObject({ active: 'error', session: 'a' })
        expect((await admin(target, 'GET', '/scenario')).json.active).toBe('default')
        expect((await admin(target, 'GET', '/scenario?session=a')).json).toMatchObject({
          active: 'error',
          session: 'a',
        })
        expect((await admin(target, 'GET', '/scenario', { headers: { 'x-mock-session': 'a' } })).json.active).toBe(
          'error',
        )
      })

      it('the session in the PUT body wins over X-Mock-Session', async () => {
        const target = await mockWith()
        const answer = await putScenario(target, { name: 'error', session: 'a' }, { 'x-mock-session': 'b' })
        expect(answer.json).toMatchObject({ active: 'error', session: 'a' })
        expect(target.mock.activeScenario({ session: 'a' })).toBe('error')
        expect(target.mock.activeScenario({ session: 'b' })).toBe('default')
      })

      it('two sessions with different scenarios get different answers to the same request', async () => {
        const target = await mockWith()
        await putScenario(target, { name: 'error', session: 'a' })
        await putScenario(target, { name: 'unauthorized', session: 'b' })
        expect(await addPlant(target, { headers: { 'x-mock-session': 'a' } })).toBe(400)
        expect(await addPlant(target, { headers: { 'x-mock-session': 'b' } })).toBe(401)
        expect(await addPlant(target, { headers: { 'x-mock-session': 'c' } })).toBe(200)
        expect(await addPlant(target)).toBe(200)
      })

      it('a scenario switched through the in-process handle shows in GET /__mock/scenario', async () => {
        const target = await mockWith()
        target.mock.useScenario('dynamic')
        expect((await admin(target, 'GET', '/scenario')).json.active).toBe('dynamic')
      })
    })

    describe('the request journal', () => {
      it('admin calls are not recorded, whatever their outcome', async () => {
        const target = await mockWith()
        await admin(target, 'GET', '/health')
        await admin(target, 'GET', '/scenario')
        await putScenario(target, { name: 'default' })
        await putScenario(target, { name: 'nope' })
        await admin(target, 'GET', '/spec')
        await admin(target, 'GET', '/nope')
        await admin(target, 'GET', '/requests?status=abc')
        expect(await journal(target)).toEqual([])
        expect(target.mock.requests()).toEqual([])
      })

      it('records a 200 with its operation, scenario, body and a valid outcome', async () => {
        const target = await mockWith()
        await addPlant(target)
        const [entry, ...rest] = await journal(target)
        expect(rest).toEqual([])
        expect(entry).toMatchObject({
          method: 'POST',
          path: '/plants',
          query: '',
          operation: 'addPlant',
          status: 200,
          scenario: 'default',
          valid: true,
          violations: [],
          body: VALID,
        })
        expect(entry).not.toHaveProperty('session')
        expect(entry).not.toHaveProperty('bodyTruncated')
        expect(entry!.id).toBeGreaterThan(0)
        expect(Date.parse(entry!.time)).not.toBeNaN()
        expect(entry!.durationMs).toBeGreaterThanOrEqual(0)
        expect(entry!.headers['content-type']).toBe('application/json')
      })

      it('records a 400 with every violation and an invalid outcome', async () => {
        const target = await mockWith()
        expect(await addPlant(target, { body: '{"id":"1","tag":5}' })).toBe(400)
        const [entry] = await journal(target)
        expect(entry).toMatchObject({ operation: 'addPlant', status: 400, valid: false, body: '{"id":"1","tag":5}' })
        expect(entry!.violations.map((v) => v.path).sort()).toEqual(['body.id', 'body.name', 'body.tag'])
      })

      it('records a 401 for a missing credential as invalid, with its operation', async () => {
        const target = await mockWith()
        const response = await target.send('POST', '/plants', {
          headers: { 'content-type': 'application/json' },
          body: VALID,
        })
        expect(response.status).toBe(401)
        const [entry] = await journal(target)
        expect(entry).toMatchObject({ operation: 'addPlant', status: 401, valid: false })
      })

      it('records a 404 without an operation', async () => {
        const target = await mockWith()
        expect(await addPlant(target, { path: '/trees' })).toBe(404)
        const [entry] = await journal(target)
        expect(entry).toMatchObject({ method: 'POST', path: '/trees', status: 404, valid: false, violations: [] })
        expect(entry).not.toHaveProperty('operation')
      })

      it('records a 405 without an operation', async () => {
        const target = await mockWith()
        expect((await target.send('GET', '/plants', { headers: { authorization: 'Bearer t' } })).status).toBe(405)
        const [entry] = await journal(target)
        expect(entry).toMatchObject({ method: 'GET', path: '/plants', status: 405, valid: false })
        expect(entry).not.toHaveProperty('operation')
      })

      it('records a 400 forced by the error scenario as valid, with the scenario', async () => {
        const target = await mockWith({ scenario: 'error' })
        expect(await addPlant(target)).toBe(400)
        const [entry] = await journal(target)
        expect(entry).toMatchObject({ status: 400, scenario: 'error', valid: true, violations: [] })
      })

      it('records the scenario a request named with X-Mock-Scenario', async () => {
        const target = await mockWith()
        expect(await addPlant(target, { headers: { 'x-mock-scenario': 'error' } })).toBe(400)
        expect((await journal(target))[0]).toMatchObject({ status: 400, scenario: 'error' })
      })

      it('records the query string and the X-Mock-Session of a request', async () => {
        const target = await mockWith()
        await addPlant(target, { path: '/plants?color=green', headers: { 'x-mock-session': 'worker-1' } })
        expect((await journal(target))[0]).toMatchObject({ path: '/plants', query: 'color=green', session: 'worker-1' })
      })

      it('redacts Authorization, Proxy-Authorization and Cookie', async () => {
        const target = await mockWith()
        await addPlant(target, {
          headers: {
            authorization: 'Bearer top-secret',
            'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
            cookie: 'sid=cookie-secret',
            'x-trace': 'kept',
          },
        })
        const answer = await admin(target, 'GET', '/requests')
        const [entry] = answer.json.requests as JournalEntry[]
        expect(entry!.headers).toMatchObject({
          authorization: '[redacted]',
          'proxy-authorization': '[redacted]',
          cookie: '[redacted]',
          'x-trace': 'kept',
        })
        for (const secret of ['top-secret', 'cHJveHk6c2VjcmV0', 'cookie-secret'])
          expect(answer.text).not.toContain(secret)
        expect(JSON.stringify(target.mock.requests())).not.toContain('top-secret')
      })

      it('keeps the first 64 KiB of a larger body, marked bodyTruncated', async () => {
        const target = await mockWith()
        const body = plantOfSize(100 * 1024)
        expect(await addPlant(target, { body })).toBe(200)
        const [entry] = await journal(target)
        expect(entry!.body).toBe(body.slice(0, 64 * 1024))
        expect(entry!.bodyTruncated).toBe(true)
      })

      it('the journalSize option bounds the list and drops the oldest', async () => {
        const target = await mockWith({ journalSize: 3 })
        for (let n = 1; n <= 5; n++) await addPlant(target, { path: `/plants?n=${n}` })
        const entries = await journal(target)
        expect(entries.map((e) => e.query)).toEqual(['n=3', 'n=4', 'n=5'])
        expect(entries.map((e) => e.id)).toEqual([3, 4, 5].map(entryId))
      })

      it('journalSize 0 records nothing', async () => {
        const target = await mockWith({ journalSize: 0 })
        await addPlant(target)
        expect(await journal(target)).toEqual([])
      })
    })

    describe('GET /__mock/requests filters', () => {
      /** A 200 of session a, a 401 of session b, a 404 and a 405 without a session. */
      async function mixedJournal(): Promise<AdminTarget> {
        const target = await mockWith()
        await addPlant(target, { headers: { 'x-mock-session': 'a' } })
        await target.send('POST', '/plants', {
          headers: { 'x-mock-session': 'b', 'content-type': 'application/json' },
          body: VALID,
        })
        await addPlant(target, { path: '/trees' })
        await target.send('GET', '/plants')
        return target
      }
      const statuses = (entries: JournalEntry[]) => entries.map((e) => e.status)

      it('lists every entry oldest first without a filter', async () => {
        const entries = await journal(await mixedJournal())
        expect(statuses(entries)).toEqual([200, 401, 404, 405])
        expect(entries.map((e) => e.id)).toEqual([...entries.map((e) => e.id)].sort((x, y) => x - y))
      })

      it('method filters case-insensitively', async () => {
        const target = await mixedJournal()
        expect(statuses(await journal(target, '?method=get'))).toEqual([405])
        expect(statuses(await journal(target, '?method=POST'))).toEqual([200, 401, 404])
      })

      it('path filters by the exact path', async () => {
        const target = await mixedJournal()
        expect(statuses(await journal(target, '?path=/trees'))).toEqual([404])
        expect(statuses(await journal(target, '?path=/plant'))).toEqual([])
      })

      it('operation filters by operationId', async () => {
        expect(statuses(await journal(await mixedJournal(), '?operation=addPlant'))).toEqual([200, 401])
      })

      it('status filters by the status returned', async () => {
        expect(statuses(await journal(await mixedJournal(), '?status=401'))).toEqual([401])
      })

      it('session filters by X-Mock-Session', async () => {
        expect(statuses(await journal(await mixedJournal(), '?session=a'))).toEqual([200])
      })

      it('filters combine: every one given must match', async () => {
        const target = await mixedJournal()
        expect(statuses(await journal(target, '?method=post&operation=addPlant&status=200'))).toEqual([200])
        expect(statuses(await journal(target, '?method=post&status=405'))).toEqual([])
      })

      it.each(['abc', '600', '20', '2000'])('a status filter of "%s" answers 400', async (status) => {
        const answer = await admin(await mixedJournal(), 'GET', `/requests?status=${status}`)
        expect(answer.status).toBe(400)
        expectErrorBody(answer.json, 400)
        expect(answer.json.message).toContain(status)
      })

      it('two sessions see only their own entries via ?session=', async () => {
        const target = await mockWith()
        await putScenario(target, { name: 'error', session: 'a' })
        await addPlant(target, { headers: { 'x-mock-session': 'a' } })
        await addPlant(target, { headers: { 'x-mock-session': 'b' } })
        await addPlant(target, { headers: { 'x-mock-session': 'b' } })
        const a = await journal(target, '?session=a')
        const b = await journal(target, '?session=b')
        expect(a.map((e) => [e.session, e.status, e.scenario])).toEqual([['a', 400, 'error']])
        expect(b.map((e) => [e.session, e.status, e.scenario])).toEqual([
          ['b', 200, 'default'],
          ['b', 200, 'default'],
        ])
      })

      it('X-Mock-Session on GET /__mock/requests lists only that session, as it scopes DELETE and reset', async () => {
        const target = await mixedJournal()
        expect(statuses(await journal(target, '', { 'x-mock-session': 'b' }))).toEqual([401])
        expect(statuses(await journal(target, '?session=a', { 'x-mock-session': 'b' }))).toEqual([200])
      })
    })

    describe('GET /__mock/requests/count and the filters it shares with the listing (#13)', () => {
      /** A 200 of session a, a 400 of session a, a 400 without a session, then a 405. */
      async function countJournal(): Promise<AdminTarget> {
        const target = await mockWith()
        await addPlant(target, { headers: { 'x-mock-session': 'a' } })
        await addPlant(target, { headers: { 'x-mock-session': 'a' }, body: '{"name":1}' })
        await addPlant(target, { body: '{}' })
        await target.send('GET', '/plants')
        return target
      }

      async function count(target: AdminTarget, query = '', headers: Record<string, string> = {}): Promise<number> {
        const answer = await admin(target, 'GET', `/requests/count${query}`, { headers })
        expect(answer.status, answer.text).toBe(200)
        return answer.json.count
      }

      it('counts the entries every filter matches: ?operation=addPlant&status=400 → {"count": 2}', async () => {
        const target = await countJournal()
        const answer = await admin(target, 'GET', '/requests/count?operation=addPlant&status=400')
        expect(answer.json).toEqual({ count: 2 })
        expect(await count(target)).toBe(4)
        expect(await count(target, '?method=get')).toBe(1)
      })

      it('status takes a class, 4xx or 4XX, on the count and on the listing', async () => {
        const target = await countJournal()
        expect(await count(target, '?status=4xx')).toBe(3)
        expect(await count(target, '?status=4XX')).toBe(3)
        expect(await count(target, '?status=2xx')).toBe(1)
        expect((await journal(target, '?status=4xx')).map((e) => e.status)).toEqual([400, 400, 405])
      })

      it('valid=false counts and lists the requests that broke the description, valid=true the others', async () => {
        const target = await countJournal()
        const invalid = (await journal(target)).filter((e) => !e.valid).length
        expect(invalid).toBeGreaterThanOrEqual(2)
        expect(await count(target, '?valid=false')).toBe(invalid)
        expect(await count(target, '?valid=true')).toBe(4 - invalid)
        expect((await journal(target, '?valid=false&operation=addPlant')).map((e) => e.status)).toEqual([400, 400])
      })

      it('since takes an ISO 8601 time or epoch milliseconds, and keeps entries at or after it', async () => {
        const target = await countJournal()
        const third = (await journal(target))[2]!
        expect(await count(target, `?since=${encodeURIComponent(third.time)}`)).toBeGreaterThanOrEqual(2)
        expect(await count(target, `?since=${Date.parse(third.time)}`)).toBe(
          await count(target, `?since=${encodeURIComponent(third.time)}`),
        )
        expect(await count(target, '?since=0')).toBe(4)
        expect(await count(target, '?since=2000-01-01')).toBe(4)
        expect(await count(target, `?since=${Date.now() + 3_600_000}`)).toBe(0)
        expect(
          await journal(target, `?since=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`),
        ).toEqual([])
      })

      it('counts as the listing lists, filter by filter', async () => {
        const target = await countJournal()
        for (const query of [
          '',
          '?session=a',
          '?status=400',
          '?status=5xx',
          '?valid=true&session=a',
          '?path=/plants&method=post',
        ]) {
          expect(await count(target, query), query).toBe((await journal(target, query)).length)
        }
      })

      it('X-Mock-Session scopes the count as it scopes the listing; ?session= wins over it', async () => {
        const target = await countJournal()
        expect(await count(target, '', { 'x-mock-session': 'a' })).toBe(2)
        expect(await count(target, '?status=400', { 'x-mock-session': 'a' })).toBe(1)
        expect(await count(target, '?session=b', { 'x-mock-session': 'a' })).toBe(0)
      })

      it.each([
        ['status=abc', 'status', '4xx'],
        ['status=6xx', 'status', '4xx'],
        ['valid=maybe', 'valid', 'true or false'],
        ['since=yesterday', 'since', 'ISO 8601'],
        ['since=2025-13-01', 'since', 'ISO 8601'],
      ])(
        '?%s answers 400 naming the filter and what it takes, on the count and the listing',
        async (query, filter, takes) => {
          const target = await countJournal()
          for (const path of ['/requests/count', '/requests']) {
            const answer = await admin(target, 'GET', `${path}?${query}`)
            expect(answer.status).toBe(400)
            expectErrorBody(answer.json, 400)
            expect(answer.json.message).toContain(`"${filter}"`)
            expect(answer.json.message).toContain(takes)
          }
        },
      )

      it('an unknown filter answers 400 listing the known ones; the count takes no paging', async () => {
        const target = await countJournal()
        const listing = await admin(target, 'GET', '/requests?colour=red')
        expect(listing.status).toBe(400)
        expect(listing.json.message).toContain('"colour"')
        expect(listing.json.message).toContain(
          'method, path, operation, status, valid, since, session, answeredBy, limit, cursor',
        )
        const counting = await admin(target, 'GET', '/requests/count?limit=1')
        expect(counting.status).toBe(400)
        expect(counting.json.message).toContain('"limit"')
        expect(counting.json.message).toContain(
          'known: method, path, operation, status, valid, since, session, answeredBy.',
        )
      })

      it('the count is not journaled', async () => {
        const target = await countJournal()
        await count(target)
        await admin(target, 'GET', '/requests/count?status=abc')
        expect(await count(target)).toBe(4)
      })

      it('mock.requests() takes the same filters in process: { valid: false, status: "4xx", since }', async () => {
        const target = await countJournal()
        const since = new Date(Date.parse(target.mock.requests()[1]!.time))
        const entries = target.mock.requests({ valid: false, status: '4xx', since })
        expect(entries.map((e) => e.status)).toEqual(
          target.mock
            .requests({ since })
            .filter((e) => !e.valid && e.status >= 400)
            .map((e) => e.status),
        )
        expect(entries.map((e) => [e.operation, e.status]).slice(0, 2)).toEqual([
          ['addPlant', 400],
          ['addPlant', 400],
        ])
        expect(target.mock.requests({ valid: true, status: '2xx' }).map((e) => e.session)).toEqual(['a'])
        expect(target.mock.requests({ since: Date.now() + 3_600_000 })).toEqual([])
      })
    })

    describe('DELETE /__mock/requests', () => {
      it('empties the journal and answers 204 with no body', async () => {
        const target = await mockWith()
        await addPlant(target, { headers: { 'x-mock-session': 'a' } })
        await addPlant(target)
        const answer = await admin(target, 'DELETE', '/requests')
        expect(answer.status).toBe(204)
        expect(answer.text).toBe('')
        expect(await journal(target)).toEqual([])
      })

      it('with ?session= clears only that session', async () => {
        const target = await mockWith()
        await addPlant(target, { headers: { 'x-mock-session': 'a' } })
        await addPlant(target, { headers: { 'x-mock-session': 'b' } })
        await addPlant(target)
        expect((await admin(target, 'DELETE', '/requests?session=a')).status).toBe(204)
        expect((await journal(target)).map((e) => e.session ?? null)).toEqual(['b', null])
      })

      it('with X-Mock-Session clears only that session', async () => {
        const target = await mockWith()
        await addPlant(target, { headers: { 'x-mock-session': 'a' } })
        await addPlant(target, { headers: { 'x-mock-session': 'b' } })
        await admin(target, 'DELETE', '/requests', { headers: { 'x-mock-session': 'b' } })
        expect((await journal(target)).map((e) => e.session)).toEqual(['a'])
      })

      it('ids keep increasing after a clear', async () => {
        const target = await mockWith()
        await addPlant(target)
        const [first] = await journal(target)
        await admin(target, 'DELETE', '/requests')
        await addPlant(target)
        const [second] = await journal(target)
        expect(second!.id).toBeGreaterThan(first!.id)
      })
    })

    describe('POST /__mock/reset', () => {
      it('restores the start scenario, forgets sessions and empties the journal', async () => {
        const target = await mockWith({ scenario: 'duplicate-plant' })
        await putScenario(target, { name: 'error' })
        await putScenario(target, { name: 'dynamic', session: 'a' })
        await addPlant(target)
        await addPlant(target, { headers: { 'x-mock-session': 'a' } })
        const answer = await admin(target, 'POST', '/reset')
        expect(answer.status).toBe(200)
        expect(answer.json.active).toBe('duplicate-plant')
        expect(answer.json).not.toHaveProperty('session')
        expect(await journal(target)).toEqual([])
        expect((await admin(target, 'GET', '/scenario?session=a')).json.active).toBe('duplicate-plant')
      })

      it('with ?session= resets only that session', async () => {
        const target = await mockWith()
        await putScenario(target, { name: 'error' })
        await putScenario(target, { name: 'dynamic', session: 'a' })
        await addPlant(target, { headers: { 'x-mock-session': 'a' } })
        await addPlant(target, { headers: { 'x-mock-session': 'b' } })
        const answer = await admin(target, 'POST', '/reset?session=a')
        expect(answer.json).toMatchObject({ active: 'error', session: 'a' })
        expect(target.mock.activeScenario()).toBe('error')
        expect((await journal(target)).map((e) => e.session)).toEqual(['b'])
      })

      it('with X-Mock-Session resets only that session', async () => {
        const target = await mockWith()
        await putScenario(target, { name: 'error', session: 'a' })
        await putScenario(target, { name: 'error', session: 'b' })
        await admin(target, 'POST', '/reset', { headers: { 'x-mock-session': 'a' } })
        expect(target.mock.activeScenario({ session: 'a' })).toBe('default')
        expect(target.mock.activeScenario({ session: 'b' })).toBe('error')
      })
    })

    describe('GET /__mock/spec', () => {
      it('returns the served YAML description as written, as application/yaml', async () => {
        const answer = await admin(await mockWith(), 'GET', '/spec')
        expect(answer.status).toBe(200)
        expect(answer.headers.get('content-type')).toMatch(/^application\/yaml/)
        expect(answer.text).toBe(readFileSync(specs.plantStore, 'utf8'))
      })

      it('returns a JSON description as written, as application/json', async () => {
        const answer = await admin(await mockWith({ spec: specs.minimalJson }), 'GET', '/spec')
        expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
        expect(answer.text).toBe(readFileSync(specs.minimalJson, 'utf8'))
      })
    })

    describe('routes the admin API does not declare', () => {
      it('an unknown path under /__mock answers 404 {error, message} listing the admin routes, and is not journaled (#13)', async () => {
        const target = await mockWith()
        const answer = await admin(target, 'GET', '/nope')
        expect(answer.status).toBe(404)
        expectErrorBody(answer.json, 404)
        expect(answer.json.message).toContain('/__mock/nope')
        expect(answer.json.message).not.toContain('No operation in the description')
        for (const route of [
          'GET /__mock/health',
          'PUT /__mock/scenario',
          'DELETE /__mock/requests',
          'POST /__mock/reset',
          'GET /__mock/spec',
        ])
          expect(answer.json.message).toContain(route)
        expect(target.mock.requests()).toEqual([])
      })

      it('an undeclared method on an admin path answers 405 with Allow, and is not journaled (#13)', async () => {
        const target = await mockWith()
        const answer = await admin(target, 'PATCH', '/scenario', { body: '{"name":"error"}' })
        expect(answer.status).toBe(405)
        expectErrorBody(answer.json, 405)
        expect(answer.headers.get('allow')).toBe('GET, HEAD, PUT')
        expect(answer.json.message).toContain('PATCH')
        expect(answer.json.message).not.toContain('No operation in the description')
        expect(target.mock.activeScenario()).toBe('default')
        expect(target.mock.requests()).toEqual([])
      })

      it.each([
        ['GET', '/reset', 'POST'],
        ['POST', '/health', 'GET, HEAD'],
        ['PUT', '/requests', 'GET, HEAD, DELETE'],
        ['DELETE', '/requests/count', 'GET, HEAD'],
        ['DELETE', '/spec', 'GET, HEAD'],
      ])('%s /__mock%s answers 405 with Allow: %s (#13)', async (method, path, allow) => {
        const answer = await admin(await mockWith(), method, path)
        expect(answer.status).toBe(405)
        expect(answer.headers.get('allow')).toBe(allow)
      })

      it('the admin token is asked before a wrong method or path is told (#13)', async () => {
        const target = await mockWith({ adminToken: ADMIN_TOKEN })
        expect((await admin(target, 'PATCH', '/scenario')).status).toBe(401)
        expect((await admin(target, 'GET', '/nope')).status).toBe(401)
        const authorization = `Bearer ${ADMIN_TOKEN}`
        expect((await admin(target, 'PATCH', '/scenario', { headers: { authorization } })).status).toBe(405)
        expect((await admin(target, 'GET', '/nope', { headers: { authorization } })).status).toBe(404)
      })
    })

    describe('--admin-token', () => {
      it.each(protectedRoutes)(
        '%s /__mock%s without Authorization answers 401 with a Bearer challenge',
        async (method, path, init) => {
          const target = await mockWith({ adminToken: ADMIN_TOKEN })
          const answer = await admin(target, method, path, init)
          expect(answer.status).toBe(401)
          expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer\b/)
          expectErrorBody(answer.json, 401)
        },
      )

      it.each(protectedRoutes)('%s /__mock%s with the admin token succeeds', async (method, path, init, status) => {
        const target = await mockWith({ adminToken: ADMIN_TOKEN })
        const answer = await admin(target, method, path, {
          ...init,
          headers: { ...init.headers, authorization: `Bearer ${ADMIN_TOKEN}` },
        })
        expect(answer.status).toBe(status)
      })

      it.each([
        ['another token', 'Bearer wrong'],
        ['the token with a different case', `Bearer ${ADMIN_TOKEN.toUpperCase()}`],
        ['a prefix of the token', `Bearer ${ADMIN_TOKEN.slice(0, -1)}`],
        ['the token in another scheme', `Basic ${ADMIN_TOKEN}`],
        ['the bearer scheme without a token', 'Bearer'],
      ])('%s answers 401 and changes nothing', async (_what, authorization) => {
        const target = await mockWith({ adminToken: ADMIN_TOKEN })
        const answer = await putScenario(target, { name: 'error' }, { authorization })
        expect(answer.status).toBe(401)
        expectErrorBody(answer.json, 401)
        expect(target.mock.activeScenario()).toBe('default')
      })

      it('GET /__mock/health stays open without the token', async () => {
        const answer = await admin(await mockWith({ adminToken: ADMIN_TOKEN }), 'GET', '/health')
        expect(answer.status).toBe(200)
        expect(answer.json.status).toBe('ok')
      })

      it('a refused admin call is not journaled', async () => {
        const target = await mockWith({ adminToken: ADMIN_TOKEN })
        await admin(target, 'GET', '/requests')
        expect(target.mock.requests()).toEqual([])
      })

      it('the described API still takes its own credentials, not the admin token', async () => {
        const target = await mockWith({ adminToken: ADMIN_TOKEN, tokens: ['api-token'] })
        expect(await addPlant(target, { headers: { authorization: 'Bearer api-token' } })).toBe(200)
        expect(await addPlant(target, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).toBe(401)
      })
    })

    describe('admin: false and paths under /__mock', () => {
      it('with admin: false, /__mock/health is the description side: 404, journaled', async () => {
        const target = await mockWith({ admin: false })
        const response = await target.send('GET', '/__mock/health')
        expect(response.status).toBe(404)
        const body = (await response.json()) as Record<string, unknown>
        expectErrorBody(body, 404)
        expect(body.message).toContain('No operation in the description matches GET /__mock/health')
        expect(target.mock.requests()).toMatchObject([{ method: 'GET', path: '/__mock/health', status: 404 }])
      })

      it('a description with a path under /__mock fails start-up while the admin API is on', async () => {
        await expect(start({ spec: specs.adminPrefix })).rejects.toThrow(/\/__mock\/health.*\/__mock.*--no-admin/)
        await expect(start({ spec: specs.adminPrefix })).rejects.toMatchObject({ name: 'StartupError' })
      })

      it('with admin: false, a description may declare paths under /__mock and they are served and journaled', async () => {
        const target = await mockWith({ spec: specs.adminPrefix, admin: false })
        const response = await target.send('GET', '/__mock/health')
        expect(response.status).toBe(200)
        expect(await response.json()).toEqual({ mine: true })
        expect(target.mock.requests()).toMatchObject([{ path: '/__mock/health', operation: 'ownHealth', status: 200 }])
      })
    })
  })
}
