import { type HttpHandler, http } from 'msw'
import type { MockHandle } from '../admin/mock-handle.js'
import { ADMIN_PREFIX } from '../common/config.js'
import { silentLogger } from '../common/log.js'
import type { Platform } from '../common/platform.js'
import { type Engine, createEngine } from '../engine/engine.js'
import { openRecords } from '../engine/open-records.js'
import { isMockError } from '../errors/index.js'
import { type AppOptions, assemble } from '../http/create-app.js'
import { NetworkFault } from '../pipeline/faults.js'
import { matchOperation } from '../routing/match-operation.js'
import { mayGenerate } from './may-generate.js'

export interface HandlersOptions extends AppOptions {
  /**
   * Answer every request (within `baseUrl`) that the description does not know with the mock's 404,
   * instead of leaving it to the next handler and to MSW's `onUnhandledRequest` (`onUnhandledFrame` in msw 3).
   * @default false
   */
  strict?: boolean
  /**
   * Only requests under this URL are the mock's: `'https://api.example.com'`, `'http://localhost/api'`,
   * or a path (`'/api'`), which any origin matches. The path is matched as the server matches it, prefix
   * included (a description whose `servers` say `/api` serves `/api/plants`). Its host may use the admin
   * API (`/__mock/...`), as loopback names may.
   * @default every request
   */
  baseUrl?: string
}

/** What `createHandlers` gives: MSW's request handlers, and the mock's handle. */
export interface MockHandlers {
  /** MSW request handlers (msw 2 or 3): `setupServer(...handlers)` in Node, `setupWorker(...handlers)` in a browser. */
  handlers: HttpHandler[]
  /** The same handle as `createApp().mock`: scenarios, stubs, stateful data, the journal, verification. */
  mock: MockHandle
}

/**
 * The mock as MSW request handlers over a platform (Node's, or a bundle's in a browser): each request
 * the description knows goes through the same app as `app.fetch`, so validation, security, Prefer,
 * scenarios, stubs, stateful data and the journal all apply; any other is left to MSW.
 */
export async function createMockHandlers(options: HandlersOptions, platform: Platform): Promise<MockHandlers> {
  const { strict = false, baseUrl, ...rest } = options
  // No socket here, so no other site can reach the admin API: the base URL's own host may, as loopback names may.
  const appOptions =
    baseUrl === undefined || baseUrl.startsWith('/')
      ? rest
      : { ...rest, allowedHosts: [...(rest.allowedHosts ?? []), new URL(baseUrl).hostname] }
  const engine = await createEngine(appOptions, appOptions.logger ?? silentLogger, { platform })
  const { app, state } = assemble(engine, new AbortController().signal, undefined, await openRecords(engine))
  const inBase = baseUrl === undefined ? undefined : createBaseMatcher(baseUrl)
  // A custom predicate (msw 2.11, and 3): a request the mock does not take matches no handler here, so
  // MSW tries the next one and then tells `onUnhandledRequest` (msw 3: `onUnhandledFrame`), as for any
  // request no handler knows.
  const isMockRequest = ({ request }: { request: Request }) => {
    const url = new URL(request.url)
    return (!inBase || inBase(url)) && (strict || isKnown(engine, request.method, url.pathname))
  }
  const handler = http.all(isMockRequest, async function answerFromMock({ request }) {
    // Generation is synchronous: where json-schema-faker is loaded on demand (a browser), a request
    // that may generate waits for it here, before the pipeline runs.
    // One that fails to load is told by the answer: the faker refuses with `generator_loading`.
    if (!engine.faker.loaded && mayGenerate(state, request)) await engine.faker.load().catch(() => undefined)
    try {
      return await app.fetch(request)
    } catch (error) {
      // A scenario's `reset`, `empty` or `hang` fault: the client's fetch rejects, as with a dropped connection.
      if (error instanceof NetworkFault) return Response.error()
      throw error
    }
  })
  return { handlers: [handler], mock: app.mock }
}

/**
 * Whether the mock answers this request: a path the description declares (a method it lacks is its
 * 405, not another handler's), or the admin API. Only a path the router finds nowhere is not.
 */
function isKnown(engine: Engine, method: string, path: string): boolean {
  if (engine.options.admin && (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`))) return true
  try {
    matchOperation(engine.router, method, path)
    return true
  } catch (error) {
    return !(isMockError(error) && error.kind === 'not_found')
  }
}

/** `baseUrl` as a test of a request's URL: the same origin (unless a bare path is given) and a path at or under its path. */
function createBaseMatcher(baseUrl: string): (url: URL) => boolean {
  const pathOnly = baseUrl.startsWith('/')
  const base = new URL(baseUrl, 'http://localhost')
  const prefix = base.pathname.replace(/\/+$/, '')
  return (url) =>
    (pathOnly || url.origin === base.origin) &&
    (prefix === '' || url.pathname === prefix || url.pathname.startsWith(`${prefix}/`))
}
