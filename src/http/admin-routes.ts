import { type Context, Hono, type MiddlewareHandler } from 'hono'
import { createTokenMatcher } from '../auth/check-security.js'
import { ADMIN_PREFIX } from '../config.js'
import type { MockControls } from '../scenarios/controls.js'
import { type MockError, errors } from '../errors.js'
import type { JournalFilter, StatusClass } from '../journal/journal-filter.js'
import { isPlainObject } from '../plain-object.js'
import type { Scenario } from '../scenarios/scenarios.js'
import { corsForAdmin } from './cors.js'
import { incomingOf } from './request-data.js'
import { readBody } from './read-body.js'

export interface AdminOptions {
  controls: MockControls
  /** Required as a bearer token on every route but health. */
  adminToken: string | undefined
  /** The description as read from disk, for `GET /__mock/spec`. */
  spec: { text: string; mediaType: string }
  operationCount: number
  /** Where the mock listens: on loopback, only loopback `Host`s (and `allowedHosts`) reach the admin API. */
  host: string
  /** Host names besides loopback ones that may reach the admin API, and whose pages may change its state. */
  allowedHosts: readonly string[]
  /** Answer CORS for pages of the origins the admin API trusts (`--no-cors` turns it off with the rest). */
  cors: boolean
}

/** One route of the admin API, as `admin-openapi.yaml` declares it. */
export interface AdminRoute {
  method: string
  path: string
}

/** Every admin route: the 405's `Allow`, the 404's list and the index page (`GET /`) read it. */
export const ADMIN_ROUTES: readonly AdminRoute[] = [
  { method: 'GET', path: `${ADMIN_PREFIX}/health` },
  { method: 'GET', path: `${ADMIN_PREFIX}/scenario` },
  { method: 'PUT', path: `${ADMIN_PREFIX}/scenario` },
  { method: 'GET', path: `${ADMIN_PREFIX}/requests` },
  { method: 'DELETE', path: `${ADMIN_PREFIX}/requests` },
  { method: 'GET', path: `${ADMIN_PREFIX}/requests/count` },
  { method: 'POST', path: `${ADMIN_PREFIX}/reset` },
  { method: 'GET', path: `${ADMIN_PREFIX}/spec` },
]

/** `/__mock/*`: health, scenario, request journal, reset, spec. Admin calls are never journaled. */
export function createAdminRoutes({
  controls,
  adminToken,
  spec,
  operationCount,
  host,
  allowedHosts,
  cors,
}: AdminOptions): Hono {
  const admin = new Hono()
  const accept = adminToken === undefined ? undefined : createTokenMatcher([adminToken])
  const allowed = new Set(allowedHosts.map((name) => name.toLowerCase()))
  const onLoopback = isLoopbackName(host)
  const isTrusted = (origin: string, c: Context) => isTrustedOrigin(origin, hostNameOf(requestHost(c)), allowed)
  const adminCors: MiddlewareHandler = cors ? corsForAdmin(isTrusted) : (_c, next) => next()

  // Health answers everyone, before the checks below; a page it trusts may read it too.
  admin.get('/health', adminCors, (c) =>
    c.json({ status: 'ok', operations: operationCount, scenario: controls.activeScenario().name }),
  )

  /**
   * Any web page the developer visits can send requests to a mock on their machine: a cross-site
   * `POST /__mock/reset` went through blind, and a rebinding `Host` made the journal readable. As
   * Vite and webpack-dev-server do, a mock on loopback answers its admin API only to loopback host
   * names (or `--allowed-hosts`), and a route that changes state refuses another site's `Origin`,
   * and from a browser (any `Origin`) a body that is not JSON.
   */
  admin.use('*', async function checkAdminCaller(c, next) {
    const hostName = hostNameOf(requestHost(c))
    if (onLoopback && !isLoopbackName(hostName) && !allowed.has(hostName)) {
      throw errors.adminHostNotLoopback(host, hostName)
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.method !== 'OPTIONS') {
      const origin = c.req.header('origin')
      if (origin !== undefined && !isTrustedOrigin(origin, hostName, allowed)) {
        throw errors.adminOriginRefused(origin)
      }
      // A page may send text/plain or a form without asking first (no preflight); JSON it may not.
      const contentType = c.req.header('content-type')
      if (
        origin !== undefined &&
        contentType !== undefined &&
        !/^application\/(.+\+)?json\b/i.test(contentType.trim())
      ) {
        throw errors.adminBodyNotJson(contentType)
      }
    }
    return next()
  })

  // After the caller checks, before the token: a browser sends its preflight without credentials.
  admin.use('*', adminCors)

  admin.use('*', async function checkAdminToken(c, next) {
    if (!accept) return next()
    const header = c.req.header('authorization') ?? ''
    const token = /^bearer /i.test(header) ? header.slice(7).trim() : ''
    if (!token || !accept(token)) throw errors.adminUnauthorized()
    return next()
  })

  admin.get('/scenario', (c) => {
    const session = sessionOf(c.req.query('session'), c.req.header('x-mock-session'))
    return c.json(describeScenarios(controls, session))
  })

  admin.put('/scenario', async (c) => {
    const body = parseJsonObject(await readBody(c.req.raw, incomingOf(c), ADMIN_BODY_LIMIT))
    if (typeof body.name !== 'string') throw errors.adminBodyNotScenario()
    if (body.session !== undefined && typeof body.session !== 'string') throw errors.adminSessionNotString()
    const session = sessionOf(body.session, c.req.header('x-mock-session'))
    controls.useScenario(body.name, session)
    return c.json(describeScenarios(controls, session))
  })

  admin.get('/requests', (c) => {
    const filter = journalFilterOf(c.req.query(), c.req.header('x-mock-session'), LISTING_PARAMETERS)
    const { entries, next } = controls.journal.pageRequests(filter, readPage(c.req.query()))
    return c.body(streamPage(entries, next), 200, { 'content-type': 'application/json' })
  })

  // WireMock's verification: how many requests matched, counted over the records, no entry built.
  admin.get('/requests/count', (c) => {
    const filter = journalFilterOf(c.req.query(), c.req.header('x-mock-session'), JOURNAL_FILTERS)
    return c.json({ count: controls.journal.countRequests(filter) })
  })

  admin.delete('/requests', (c) => {
    controls.journal.clearRequests({ session: sessionOf(c.req.query('session'), c.req.header('x-mock-session')) })
    return c.body(null, 204)
  })

  admin.post('/reset', (c) => {
    const session = sessionOf(c.req.query('session'), c.req.header('x-mock-session'))
    controls.reset(session)
    return c.json(describeScenarios(controls, session))
  })

  admin.get('/spec', (c) => c.body(spec.text, 200, { 'content-type': spec.mediaType }))

  // Reached only when no route above matched: a method the path does not take, or no such path.
  admin.all('*', (c) => {
    throw missedAdminRoute(c.req.method, new URL(c.req.url).pathname)
  })
  return admin
}

/** Methods by admin path; HEAD wherever GET is, as Hono answers HEAD with the GET route. */
const ADMIN_METHODS = new Map<string, string[]>()
for (const { method, path } of ADMIN_ROUTES) {
  const methods = ADMIN_METHODS.get(path) ?? []
  methods.push(...(method === 'GET' ? ['GET', 'HEAD'] : [method]))
  ADMIN_METHODS.set(path, methods)
}

/** 405 with `Allow` for an admin path asked with another method, else 404 listing the admin routes. */
function missedAdminRoute(method: string, path: string): MockError {
  const allow = ADMIN_METHODS.get(path)
  if (allow) return errors.adminMethodNotAllowed(method, path, allow)
  return errors.adminNotFound(
    method,
    path,
    ADMIN_ROUTES.map((route) => `${route.method} ${route.path}`),
  )
}

/** The request's `Host`; in process (app.request()) a request has none, and its URL says the same. */
function requestHost(c: Context): string {
  return c.req.header('host') ?? new URL(c.req.url).host
}

/**
 * A page the developer's own tools serve: of the host the mock is reached by, of a loopback name,
 * or of a host given with `--allowed-hosts`. Such a page may change the admin API's state, and
 * read its answers through CORS; a page of any other site may do neither.
 */
function isTrustedOrigin(origin: string, hostName: string, allowed: ReadonlySet<string>): boolean {
  const originHost = origin === 'null' ? origin : hostNameOf(origin.replace(/^[a-z][a-z0-9+.-]*:\/\//i, ''))
  return originHost === hostName || isLoopbackName(originHost) || allowed.has(originHost)
}

/** `localhost`, `*.localhost`, 127.0.0.0/8 and ::1: names that only this machine answers to. */
function isLoopbackName(name: string): boolean {
  const bare = name.toLowerCase().replace(/^\[|\]$/g, '')
  return bare === 'localhost' || bare.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(bare) || bare === '::1'
}

/** The host name of a `Host` header or of an origin without its scheme: `[::1]:4010` → `[::1]`, `example.com:80` → `example.com`. */
function hostNameOf(authority: string): string {
  const host = authority.trim().toLowerCase().split('/')[0]!
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '')
}

function describeScenarios(controls: MockControls, session: string | undefined) {
  const describe = ({ name, description, builtIn }: Scenario) => ({ name, description, builtIn })
  return {
    active: controls.activeScenario(session).name,
    ...(session === undefined ? {} : { session }),
    scenarios: controls.listScenarios().map(describe),
  }
}

/** The journal's filters, as the listing and the count take them. */
const JOURNAL_FILTERS: readonly string[] = ['method', 'path', 'operation', 'status', 'valid', 'since', 'session']
/** The listing takes the filters and its paging. */
const LISTING_PARAMETERS: readonly string[] = [...JOURNAL_FILTERS, 'limit', 'cursor']

/** The journal filter of a query; X-Mock-Session scopes it as it scopes DELETE and reset, and ?session= wins over it. */
function journalFilterOf(
  query: Record<string, string>,
  sessionHeader: string | undefined,
  known: readonly string[],
): JournalFilter {
  const filter = readFilter(query, known)
  filter.session = sessionOf(filter.session, sessionHeader)
  return filter
}

/** The query's filters; 400 for a parameter not in `known` or a value the filter does not take. */
function readFilter(query: Record<string, string>, known: readonly string[]): JournalFilter {
  for (const name of Object.keys(query)) {
    if (!known.includes(name)) throw errors.unknownJournalFilter(name, known)
  }
  const filter: JournalFilter = {}
  if (query.method) filter.method = query.method
  if (query.path) filter.path = query.path
  if (query.operation) filter.operation = query.operation
  if (query.session) filter.session = query.session
  if (query.status !== undefined) filter.status = readStatus(query.status)
  if (query.valid !== undefined) filter.valid = readValid(query.valid)
  if (query.since !== undefined) filter.since = readSince(query.since)
  return filter
}

/** `404`, or a class: `4xx`, `4XX`. */
function readStatus(text: string): number | StatusClass {
  if (/^[1-5]\d\d$/.test(text)) return Number(text)
  if (/^[1-5]xx$/i.test(text)) return text as StatusClass
  throw errors.badStatusFilter(text)
}

function readValid(text: string): boolean {
  if (text === 'true' || text === 'false') return text === 'true'
  throw errors.badValidFilter(text)
}

/** An ISO 8601 time (`2025-01-01`, `2025-01-01T12:00:00Z`) or milliseconds since the epoch. */
function readSince(text: string): number {
  if (/^\d{1,15}$/.test(text)) return Number(text)
  const time = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.test(text)
    ? Date.parse(text)
    : Number.NaN
  if (Number.isNaN(time)) throw errors.badSinceFilter(text)
  return time
}

/** Entries of one page of the journal listing, at most; `limit` asks for fewer. */
const MAX_PAGE = 1000
const DEFAULT_PAGE = 100

function readPage(query: Record<string, string>): { limit: number; after?: number } {
  const limit = query.limit === undefined ? DEFAULT_PAGE : Number(query.limit)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw errors.badPageLimit(MAX_PAGE, query.limit)
  if (query.cursor === undefined) return { limit }
  if (!/^\d{1,15}$/.test(query.cursor)) throw errors.badPageCursor(query.cursor)
  return { limit, after: Number(query.cursor) }
}

/**
 * `{"requests": [...], "next": "..."}` written an entry at a time: a page of large entries is never
 * one string, and other requests are answered between entries (a listing of everything stalled
 * every client for 10 s, then answered 500, #12).
 */
function streamPage(entries: readonly unknown[], next: number | undefined): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let index = 0
  return new ReadableStream({
    pull(controller) {
      if (index === 0) controller.enqueue(encoder.encode('{"requests":['))
      if (index < entries.length) {
        controller.enqueue(encoder.encode(`${index === 0 ? '' : ','}${JSON.stringify(entries[index])}`))
        index++
        return
      }
      controller.enqueue(encoder.encode(next === undefined ? ']}' : `],"next":"${next}"}`))
      controller.close()
    },
  })
}

function sessionOf(...candidates: Array<string | undefined>): string | undefined {
  return candidates.find((value) => value !== undefined && value !== '')
}

const ADMIN_BODY_LIMIT = 64 * 1024

function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder().decode(bytes))
  } catch {
    throw errors.adminBodyNotObject()
  }
  if (!isPlainObject(value)) throw errors.adminBodyNotObject()
  return value as Record<string, unknown>
}
