import type { Context, MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import { isMockError } from '../errors.js'
import type { Routable, Router } from '../routing/match-operation.js'
import { matchOperation } from '../routing/match-operation.js'

/** Headers a browser client may read: the ones the mock's answers carry beyond the CORS-safelisted. */
const EXPOSED = ['WWW-Authenticate', 'Allow', 'Location', 'X-Mock-Error', 'X-Mock-Scenario', 'X-Mock-Session', 'Retry-After']

/**
 * CORS for frontends on another origin: the request's Origin is reflected (with credentials), and
 * a preflight is answered only for an operation the description declares; a preflight for an
 * unknown path or method falls through to the usual 404 / 405.
 */
export function corsForOperations(router: Router<Routable>): MiddlewareHandler {
  const applyCors = cors({
    origin: (origin) => origin,
    credentials: true,
    exposeHeaders: EXPOSED,
    maxAge: 600,
    allowMethods: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS'],
  })
  return async function corsForDeclaredOperations(c, next) {
    if (!c.req.header('origin')) return next()
    if (isPreflight(c) && !isDeclared(router, c)) return next()
    return applyCors(c, next)
  }
}

function isPreflight(c: Context): boolean {
  return c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined
}

function isDeclared(router: Router<Routable>, c: Context): boolean {
  try {
    matchOperation(router, c.req.header('access-control-request-method')!.toUpperCase(), new URL(c.req.url).pathname)
    return true
  } catch (error) {
    if (isMockError(error)) return false
    throw error
  }
}
