import { type Context, Hono, type MiddlewareHandler } from 'hono'
import { createTokenMatcher } from '../auth/check-security.js'
import { ADMIN_PREFIX } from '../common/config.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import { type MockError, errors } from '../errors/index.js'
import { hostNameOf, isLoopbackName, isTrustedOrigin, requestHost } from '../internal/host-names.js'
import { corsForAdmin } from './cors.js'
import { JOURNAL_FILTERS, LISTING_PARAMETERS, journalFilterOf, readPage, askedSession } from './read-admin-input.js'
import { addStateRoutes } from './admin-state-routes.js'
import { addStubRoutes } from './admin-stub-routes.js'
import { addDeliveryRoutes } from './admin-delivery-routes.js'
import { addCoverageRoutes } from './admin-coverage.js'
import { addVerifyRoute } from './admin-verify.js'
import type { Engine } from '../engine/engine.js'
import { addScenarioRoutes, describeScenarios } from './admin-scenario-routes.js'
import type { RuleBook } from '../rules/rule-targets.js'
import type { StatefulSetup } from '../state/compile-stateful.js'
import { addDashboardRoutes } from './dashboard-routes.js'
import { addJournalStreamRoute } from './journal-stream.js'

export interface AdminOptions {
  state: RuntimeState
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
  /** `--stateful`: the resources and their record checks, for `/__mock/state`. */
  stateful: StatefulSetup | undefined
  /** Largest body `PUT /__mock/state/{resource}` and `POST /__mock/stubs` take (`--max-body`). */
  maxBodyBytes: number
  /** What runtime stubs are read against. */
  rules: RuleBook
  /** The engine, for the webhooks it sends on demand (`POST /__mock/webhooks`). */
  engine: Engine
  /** Aborted when the server closes: the journal's streams end then. */
  closing?: AbortSignal
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
  { method: 'GET', path: `${ADMIN_PREFIX}/requests/{id}` },
  { method: 'GET', path: `${ADMIN_PREFIX}/coverage` },
  { method: 'POST', path: `${ADMIN_PREFIX}/coverage/reset` },
  { method: 'POST', path: `${ADMIN_PREFIX}/coverage/report` },
  { method: 'POST', path: `${ADMIN_PREFIX}/verify` },
  { method: 'POST', path: `${ADMIN_PREFIX}/reset` },
  { method: 'GET', path: `${ADMIN_PREFIX}/state` },
  { method: 'PUT', path: `${ADMIN_PREFIX}/state/{resource}` },
  { method: 'POST', path: `${ADMIN_PREFIX}/state/{resource}/reset` },
  { method: 'GET', path: `${ADMIN_PREFIX}/stubs` },
  { method: 'POST', path: `${ADMIN_PREFIX}/stubs` },
  { method: 'DELETE', path: `${ADMIN_PREFIX}/stubs` },
  { method: 'GET', path: `${ADMIN_PREFIX}/stubs/{id}` },
  { method: 'DELETE', path: `${ADMIN_PREFIX}/stubs/{id}` },
  { method: 'POST', path: `${ADMIN_PREFIX}/webhooks` },
  { method: 'GET', path: `${ADMIN_PREFIX}/webhooks/targets` },
  { method: 'PUT', path: `${ADMIN_PREFIX}/webhooks/targets` },
  { method: 'GET', path: `${ADMIN_PREFIX}/deliveries` },
  { method: 'DELETE', path: `${ADMIN_PREFIX}/deliveries` },
  { method: 'GET', path: `${ADMIN_PREFIX}/spec` },
  { method: 'GET', path: `${ADMIN_PREFIX}/requests/stream` },
  { method: 'GET', path: `${ADMIN_PREFIX}/` },
  { method: 'GET', path: `${ADMIN_PREFIX}/dashboard/dashboard.js` },
  { method: 'GET', path: `${ADMIN_PREFIX}/dashboard/dashboard.css` },
]

/** `/__mock/*`: health, scenario, request journal, reset, spec. Admin calls are never journaled. */
export function createAdminRoutes({
  state,
  adminToken,
  spec,
  operationCount,
  host,
  allowedHosts,
  cors,
  stateful,
  maxBodyBytes,
  rules,
  engine,
  closing,
}: AdminOptions): Hono {
  const admin = new Hono()
  const accept = adminToken === undefined ? undefined : createTokenMatcher([adminToken], engine.platform.crypto)
  const allowed = new Set(allowedHosts.map((name) => name.toLowerCase()))
  const onLoopback = isLoopbackName(host)
  const isTrusted = (origin: string, c: Context) => isTrustedOrigin(origin, hostNameOf(requestHost(c)), allowed)
  const adminCors: MiddlewareHandler = cors ? corsForAdmin(isTrusted) : (_c, next) => next()

  // Health answers everyone, before the checks below; a page it trusts may read it too.
  admin.get('/health', adminCors, async (c) =>
    c.json({
      status: 'ok',
      operations: operationCount,
      scenario: state.activeScenario().name,
      ...(state.records ? { state: await state.records.size() } : {}),
      ...(state.deliveries ? { deliveries: { dropped: state.deliveries.dropped } } : {}),
    }),
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

  // After the caller checks, before the token: a browser's navigation sends no bearer token.
  addDashboardRoutes(admin)

  // After the caller checks, before the token: a browser sends its preflight without credentials.
  admin.use('*', adminCors)

  admin.use('*', async function checkAdminToken(c, next) {
    if (!accept) return next()
    const header = c.req.header('authorization') ?? ''
    const token = /^bearer /i.test(header) ? header.slice(7).trim() : ''
    if (!token || !accept(token)) throw errors.adminUnauthorized()
    return next()
  })

  addScenarioRoutes(admin, state)

  admin.get('/requests', (c) => {
    const filter = journalFilterOf(c.req.query(), c.req.header('x-mock-session'), LISTING_PARAMETERS)
    const { entries, next } = state.journal.pageRequests(filter, readPage(c.req.query()))
    return c.body(streamPage(entries, next), 200, { 'content-type': 'application/json' })
  })

  // WireMock's verification: how many requests matched, counted over the records, no entry built.
  addJournalStreamRoute(admin, state.journal, closing)

  admin.get('/requests/count', (c) => {
    const filter = journalFilterOf(c.req.query(), c.req.header('x-mock-session'), JOURNAL_FILTERS)
    return c.json({ count: state.journal.countRequests(filter) })
  })

  // One entry whole, as listed: what the dashboard's summary row opens to.
  admin.get('/requests/:id{[0-9]{1,15}}', (c) => {
    const id = c.req.param('id')
    const entry = state.journal.getRequest(Number(id))
    if (entry === undefined) throw errors.journalEntryNotFound(id)
    return c.json(entry)
  })

  addVerifyRoute(admin, engine, state, maxBodyBytes)

  admin.delete('/requests', (c) => {
    state.journal.clearRequests({ session: askedSession(c) })
    return c.body(null, 204)
  })

  admin.post('/reset', async (c) => {
    const session = askedSession(c)
    await state.reset(session)
    return c.json(describeScenarios(state, session))
  })

  addStateRoutes(admin, state, stateful, maxBodyBytes)
  addStubRoutes(admin, state, rules, maxBodyBytes)
  addDeliveryRoutes(admin, engine, state, maxBodyBytes)

  addCoverageRoutes(admin, engine, state)

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
  const allow = ADMIN_METHODS.get(templateOf(path))
  if (allow) return errors.adminMethodNotAllowed(method, path, allow)
  return errors.adminNotFound(
    method,
    path,
    ADMIN_ROUTES.map((route) => `${route.method} ${route.path}`),
  )
}

/** The admin route template a path is one of: `/__mock/state/plants` is `/__mock/state/{resource}`. */
function templateOf(path: string): string {
  if (/^\/__mock\/state\/[^/]+$/.test(path)) return `${ADMIN_PREFIX}/state/{resource}`
  if (/^\/__mock\/state\/[^/]+\/reset$/.test(path)) return `${ADMIN_PREFIX}/state/{resource}/reset`
  if (/^\/__mock\/stubs\/[^/]+$/.test(path)) return `${ADMIN_PREFIX}/stubs/{id}`
  // The journal's own paths (count, stream) are listed as they are; an id is any other segment.
  if (/^\/__mock\/requests\/[0-9]+$/.test(path)) return `${ADMIN_PREFIX}/requests/{id}`
  return path
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
