import { Hono } from 'hono'
import { createTokenMatcher } from '../auth/check-security.js'
import type { MockControls } from '../controls.js'
import { errors } from '../errors.js'
import type { JournalFilter } from '../journal/journal.js'
import type { Scenario } from '../responses/scenarios.js'
import { incomingOf } from './middleware.js'
import { readBody } from './read-body.js'

export interface AdminOptions {
  controls: MockControls
  /** Required as a bearer token on every route but health. */
  adminToken: string | undefined
  /** The description as read from disk, for `GET /__mock/spec`. */
  spec: { text: string; mediaType: string }
  operationCount: number
}

/** `/__mock/*`: health, scenario, request journal, reset, spec. Admin calls are never journaled. */
export function createAdminRoutes({ controls, adminToken, spec, operationCount }: AdminOptions): Hono {
  const admin = new Hono()
  const accept = adminToken === undefined ? undefined : createTokenMatcher([adminToken])

  admin.get('/health', (c) =>
    c.json({ status: 'ok', operations: operationCount, scenario: controls.activeScenario().name }),
  )

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
    if (typeof body.name !== 'string') throw errors.invalidAdminRequest('The body must be {"name": "<scenario>"}, with an optional "session".')
    if (body.session !== undefined && typeof body.session !== 'string') throw errors.invalidAdminRequest('The "session" of the body must be a string.')
    const session = sessionOf(body.session, c.req.header('x-mock-session'))
    controls.useScenario(body.name, session)
    return c.json(describeScenarios(controls, session))
  })

  admin.get('/requests', (c) => {
    const filter = readFilter(c.req.query())
    // X-Mock-Session scopes the listing as it scopes DELETE and reset; ?session= wins over it.
    filter.session = sessionOf(filter.session, c.req.header('x-mock-session'))
    return c.json({ requests: controls.journal.listRequests(filter) })
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

  admin.all('*', (c) => {
    throw errors.notFound(c.req.method, new URL(c.req.url).pathname)
  })
  return admin
}

function describeScenarios(controls: MockControls, session: string | undefined) {
  const describe = ({ name, description, builtIn }: Scenario) => ({ name, description, builtIn })
  return {
    active: controls.activeScenario(session).name,
    ...(session === undefined ? {} : { session }),
    scenarios: controls.listScenarios().map(describe),
  }
}

function readFilter(query: Record<string, string>): JournalFilter {
  const filter: JournalFilter = {}
  if (query.method) filter.method = query.method
  if (query.path) filter.path = query.path
  if (query.operation) filter.operation = query.operation
  if (query.session) filter.session = query.session
  if (query.status !== undefined) {
    if (!/^[1-5]\d\d$/.test(query.status)) throw errors.invalidAdminRequest(`The "status" filter must be an HTTP status from 100 to 599, got "${query.status}".`)
    filter.status = Number(query.status)
  }
  return filter
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
    throw errors.invalidAdminRequest('The body must be a JSON object.')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw errors.invalidAdminRequest('The body must be a JSON object.')
  return value as Record<string, unknown>
}
