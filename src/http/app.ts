import { type Context, Hono, type MiddlewareHandler } from 'hono'
import { ADMIN_PREFIX } from '../config.js'
import type { Engine } from '../engine.js'
import { answerRequest } from '../pipeline/answer.js'
import { renderFailure } from '../pipeline/failure.js'
import type { Exchange, PipelineDeps } from '../pipeline/exchange.js'
import type { RuntimeState } from '../state/runtime-state.js'
import { ADMIN_ROUTES, createAdminRoutes } from './admin-routes.js'
import { corsForMockRequests } from './cors.js'
import { NetworkFault } from './faults.js'
import { createOwnPages } from './own-pages.js'
import { toRequestData } from './request-data.js'

type Env = { Variables: { exchange: Exchange } }

/**
 * The Hono app: the admin API under `/__mock`, every other request to the pipeline
 * (`pipeline/answer.ts`), CORS only when an Origin asks, and the one error mapping for what is thrown
 * outside the pipeline.
 */
export function createHonoApp(engine: Engine, state: RuntimeState, closing: AbortSignal): Hono<Env> {
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
    }
    app.route(ADMIN_PREFIX, createAdminRoutes(admin))
  }
  const deps: PipelineDeps = {
    engine,
    state,
    closing,
    answerOwnPage: createOwnPages(engine, options.admin ? ADMIN_ROUTES : []),
    held: { count: 0 },
  }
  const cors = options.cors ? corsForMockRequests() : undefined
  // Not async: the pipeline's promise is handed to Hono as it is, one promise fewer a request (#19).
  app.all('*', function serveMockRequest(c) {
    const exchange: Exchange = { request: toRequestData(c), time: Date.now(), started: performance.now() }
    c.set('exchange', exchange)
    if (!cors || exchange.request.header('origin') === undefined) return answerRequest(c, exchange, deps)
    return answerWithCors(c, cors, () => answerRequest(c, exchange, deps))
  })
  // The admin API's errors, and anything thrown outside the pipeline.
  app.onError(function renderMockError(error, c) {
    if (error instanceof NetworkFault) throw error
    return renderFailure(error, c.get('exchange'), deps)
  })
  return app
}

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
