import { type Context, Hono, type MiddlewareHandler } from 'hono'
import { ADMIN_PREFIX } from '../common/config.js'
import type { Engine } from '../engine/engine.js'
import { answerRequest } from '../pipeline/answer.js'
import { renderFailure } from '../pipeline/failure.js'
import type { Exchange, PipelineDeps } from '../pipeline/exchange.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import { ADMIN_ROUTES, createAdminRoutes } from '../admin/admin-routes.js'
import { corsForMockRequests, corsHeadersFor } from '../admin/cors.js'
import { NetworkFault } from '../pipeline/faults.js'
import { recordExchange } from '../pipeline/record.js'
import type { MockError } from '../errors/index.js'
import { HeldAnswers } from '../pipeline/held-answers.js'
import { createOwnPages } from './own-pages.js'
import {
  type ServerBindings,
  type Transport,
  isPlainTarget,
  toRequestData,
  transportOf,
} from '../pipeline/request-data.js'
import type { Reply } from '../pipeline/reply.js'
import type { RequestData } from '../common/request.js'
import { responseOf } from './response-of.js'

type Env = { Bindings: ServerBindings; Variables: { exchange: Exchange } }

/**
 * What the server calls for a request that came over a connection (`Transport.connection`): the
 * reply of a request to the described API, or `undefined` for one the app must answer (`app.fetch`).
 */
export type ServeTransport = (transport: Transport) => Reply | Promise<Reply> | undefined

export interface MockApps {
  /** The whole app: `app.request()`, the library's `fetch`, and whatever `serve` leaves to it. */
  app: Hono<Env>
  /** What the server calls for every request that comes over a connection. */
  serve: ServeTransport
  /**
   * What the server calls instead while it has more connections open than the described API is answered
   * on (#34): any request but the admin API's (`undefined`: the app answers it) is answered with
   * `refusal`, journaled.
   */
  serveCrowded: (transport: Transport, refusal: MockError) => Reply | undefined
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
  // The fetch lane's one Response, made of the pipeline's reply (`responseOf`).
  app.all('*', function serveMockRequest(c) {
    const transport = transportOf(c)
    const exchange: Exchange = { request: toRequestData(transport), time: Date.now(), started: performance.now() }
    c.set('exchange', exchange)
    const answer = () => answerRequest(transport, exchange, deps).then(responseOf)
    if (!cors || exchange.request.header('origin') === undefined) return answer()
    return answerWithCors(c, cors, answer)
  })
  // The admin API's errors, and anything thrown outside the pipeline.
  const failedOutside = (error: unknown, exchange: Exchange | undefined): Reply => {
    if (error instanceof NetworkFault) throw error
    return renderFailure(error, exchange, deps)
  }
  app.onError((error, c) => responseOf(failedOutside(error, c.get('exchange'))))

  /**
   * The request, where the server's own lane may answer it: `undefined` for the admin API and for a
   * target the fetch lane's URL would change, both left to the app.
   */
  const ownLaneRequest = (transport: Transport): RequestData | undefined => {
    if (!transport.raw && !isPlainTarget(transport.connection.target)) return undefined
    const data = toRequestData(transport)
    return data.path.includes('%') || (options.admin && isAdminPath(data.path)) ? undefined : data
  }
  /**
   * The server's own lane: a request to the described API that came over a connection, with no Origin
   * (so no CORS), goes to the pipeline straight, and its reply to the server's writer: Hono's context,
   * its routing of `*` and the fetch Request and Response around them cost some 11 % of the valid
   * path's instructions (#19, #34 §6, BENCHMARKS.md). The admin API, a target the fetch lane's URL
   * would change (`%`, dot segments, `isPlainTarget`) and a CORS request are left to the app
   * (`undefined`); a HEAD is answered as the GET, and the writer leaves its body out.
   */
  const serve: ServeTransport = (transport) => {
    const data = ownLaneRequest(transport)
    if (data === undefined || (cors && data.header('origin') !== undefined)) return undefined
    const exchange: Exchange = { request: data, time: Date.now(), started: performance.now() }
    return answerRequest(transport, exchange, deps).catch((error: unknown) => failedOutside(error, exchange))
  }
  const serveCrowded: MockApps['serveCrowded'] = (transport, refusal) => {
    const request = ownLaneRequest(transport)
    if (request === undefined) return undefined
    const exchange: Exchange = { request, time: Date.now(), started: performance.now(), error: refusal }
    const reply = renderFailure(refusal, exchange, deps)
    recordExchange(exchange, deps, reply.status)
    // A page of another origin reads the 503 and its Retry-After, as it reads the mock's other answers.
    const origin = cors ? request.header('origin') : undefined
    return origin === undefined ? reply : { ...reply, headers: { ...reply.headers, ...corsHeadersFor(origin) } }
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
