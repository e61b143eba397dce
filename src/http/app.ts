import { type Context, Hono, type MiddlewareHandler } from 'hono'
import { ADMIN_PREFIX } from '../common/config.js'
import type { Engine } from '../engine/engine.js'
import { answerRequest } from '../pipeline/answer.js'
import { renderFailure } from '../pipeline/failure.js'
import type { Exchange, PipelineDeps } from '../pipeline/exchange.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import { ADMIN_ROUTES, createAdminRoutes } from '../admin/admin-routes.js'
import { corsForMockRequests } from '../admin/cors.js'
import { NetworkFault } from '../pipeline/faults.js'
import { recordExchange } from '../pipeline/record.js'
import type { MockError } from '../errors/index.js'
import { HeldAnswers } from '../pipeline/held-answers.js'
import { createOwnPages } from './own-pages.js'
import { type ServerBindings, type Transport, toRequestData, transportOf } from '../pipeline/request-data.js'

type Env = { Bindings: ServerBindings; Variables: { exchange: Exchange } }

/** What the server calls for a request that came over a connection (`Transport.connection`). */
export type ServeTransport = (transport: Transport) => Response | Promise<Response>

export interface MockApps {
  /** The whole app: `app.request()`, the library's `fetch`, and whatever `serve` hands on. */
  app: Hono<Env>
  /** What the server calls for every request that comes over a connection. */
  serve: ServeTransport
  /**
   * What the server calls instead while it has more connections open than the described API is answered
   * on (#34): the admin API answers, any other request is answered with `refusal`, journaled.
   */
  serveCrowded: (transport: Transport, refusal: MockError) => Response | Promise<Response>
}

/**
 * The Hono app: the admin API under `/__mock`, every other request to the pipeline
 * (`pipeline/answer.ts`), CORS only when an Origin asks, and the one error mapping for what is thrown
 * outside the pipeline. Beside it, the server's own lane to the pipeline (`serve`), which passes Hono
 * by for the requests that need none of it.
 */
export function createMockApps(engine: Engine, state: RuntimeState, closing: AbortSignal): MockApps {
  const app = new Hono<Env>()
  const { options } = engine
  if (options.admin) {
    const admin = {
      state,
      adminToken: options.adminToken,
      spec: engine.source,
      operationCount: engine.operations.length,
      host: options.host,
      allowedHosts: options.allowedHosts,
      cors: options.cors,
      stateful: engine.stateful,
      maxBodyBytes: options.maxBodyBytes,
      rules: engine.rules,
      engine,
      closing,
    }
    app.route(ADMIN_PREFIX, createAdminRoutes(admin))
  }
  const deps: PipelineDeps = {
    engine,
    state,
    answerOwnPage: createOwnPages(engine, options.admin ? ADMIN_ROUTES : []),
    held: new HeldAnswers(closing),
  }
  const cors = options.cors ? corsForMockRequests() : undefined
  // Not async: the pipeline's promise is handed to Hono as it is, one promise fewer a request (#19).
  app.all('*', function serveMockRequest(c) {
    const transport = transportOf(c)
    const exchange: Exchange = { request: toRequestData(transport), time: Date.now(), started: performance.now() }
    c.set('exchange', exchange)
    if (!cors || exchange.request.header('origin') === undefined) return answerRequest(transport, exchange, deps)
    return answerWithCors(c, cors, () => answerRequest(transport, exchange, deps))
  })
  // The admin API's errors, and anything thrown outside the pipeline.
  const failedOutside = (error: unknown, exchange: Exchange | undefined): Response => {
    if (error instanceof NetworkFault) throw error
    return renderFailure(error, exchange, deps)
  }
  app.onError((error, c) => failedOutside(error, c.get('exchange')))

  /**
   * The server's own lane: a request to the described API that came over a connection, with no Origin
   * (so no CORS), goes to the pipeline straight: Hono's context and its routing of `*` cost some 4 % of
   * the valid path's instructions (#19, BENCHMARKS.md). The admin API, a path Hono would decode first
   * (`%`), a CORS request and a HEAD go through Hono, the transport passed as its env: its routes read
   * the connection back from there (`transportOf`).
   */
  const serve: ServeTransport = (transport) => {
    const data = toRequestData(transport)
    const { method, path } = data
    // HEAD too: Hono answers it as the GET without its body.
    if (
      method === 'HEAD' ||
      (cors && data.header('origin') !== undefined) ||
      path.includes('%') ||
      (options.admin && isAdminPath(path))
    )
      return app.fetch(transport.raw, transport)
    const exchange: Exchange = { request: data, time: Date.now(), started: performance.now() }
    return answerRequest(transport, exchange, deps).catch((error: unknown) => failedOutside(error, exchange))
  }
  const serveCrowded: MockApps['serveCrowded'] = (transport, refusal) => {
    const request = toRequestData(transport)
    if (options.admin && isAdminPath(request.path)) return app.fetch(transport.raw, transport)
    const exchange: Exchange = { request, time: Date.now(), started: performance.now(), error: refusal }
    const response = renderFailure(refusal, exchange, deps)
    recordExchange(exchange, deps, response.status)
    return response
  }
  return { app, serve, serveCrowded }
}

const isAdminPath = (path: string) => path === ADMIN_PREFIX || path.startsWith(ADMIN_PREFIX_SLASH)

const ADMIN_PREFIX_SLASH = `${ADMIN_PREFIX}/`

/** A request with an Origin: a preflight is answered by CORS alone, anything else by the pipeline with CORS headers added. */
async function answerWithCors(
  c: Context<Env>,
  cors: MiddlewareHandler,
  answer: () => Promise<Response>,
): Promise<Response> {
  const preflight = await cors(c, async () => {
    c.res = await answer()
  })
  return preflight ?? c.res
}
