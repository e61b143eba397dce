import type { Context, MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import { errors } from '../errors/index.js'

/** Headers a browser client may read: the ones the mock's answers carry beyond the CORS-safelisted. */
const EXPOSED = [
  'WWW-Authenticate',
  'Allow',
  'Location',
  'X-Mock-Error',
  'X-Mock-Violations',
  'X-Mock-Scenario',
  'X-Mock-Session',
  'Retry-After',
]

/**
 * CORS for frontends on another origin: the request's Origin is reflected (with credentials), on
 * every answer, 404 and 405 included, and every preflight is answered 204, whatever its path and
 * method. A browser sends the actual request only after a preflight with an ok status: a preflight
 * answered 404 left the page an opaque CORS error, where the actual request now shows the mock's
 * own 404 or 405 and the message that says why. `http/app.ts` calls it only for a request with an Origin.
 */
export function corsForMockRequests(): MiddlewareHandler {
  return reflectingCors(['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS'])
}

/**
 * The headers `corsForMockRequests` adds to an answer for `origin`, for an answer made outside Hono's
 * middleware: the crowded server's 503 (#34), which a browser would otherwise see as a CORS error.
 */
export function corsHeadersFor(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': EXPOSED.join(','),
    vary: 'Origin',
  }
}

/** Hono's CORS, reflecting the Origin with credentials and exposing what a client needs to read. */
function reflectingCors(allowMethods: string[]): MiddlewareHandler {
  return cors({ origin: (origin) => origin, credentials: true, exposeHeaders: EXPOSED, maxAge: 600, allowMethods })
}

/**
 * CORS for the admin API, for the pages it trusts (`isTrusted`: the mock's own host, loopback names,
 * `--allowed-hosts`), so that a frontend on another port can switch scenarios and read the journal.
 * A page of another site gets no CORS headers, so its browser shows it nothing, and its preflight
 * is refused with a 403 that says why. The admin token is not asked of a preflight (a browser sends
 * none with it), only of the request that follows.
 */
export function corsForAdmin(isTrusted: (origin: string, c: Context) => boolean): MiddlewareHandler {
  const applyCors = reflectingCors(['GET', 'HEAD', 'PUT', 'POST', 'DELETE'])
  return async function corsForTrustedPages(c, next) {
    const origin = c.req.header('origin')
    if (origin === undefined) return next()
    if (isTrusted(origin, c)) return applyCors(c, next)
    if (isPreflight(c)) {
      throw errors.adminPreflightRefused(origin)
    }
    return next()
  }
}

function isPreflight(c: Context): boolean {
  return c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined
}
