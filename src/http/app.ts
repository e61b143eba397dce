import { type Context, Hono } from 'hono'
import { checkSecurity } from '../auth/check-security.js'
import { ADMIN_PREFIX } from '../config.js'
import type { MockControls } from '../controls.js'
import type { CompiledOperation, Engine } from '../engine.js'
import { type MockError, errors, isMockError } from '../errors.js'
import type { RequestRecord } from '../journal/journal.js'
import type { Logger } from '../log.js'
import type { RequestData } from '../request.js'
import { type Preferences, parsePrefer, withScenarioRule } from '../responses/prefer.js'
import { renderError } from '../responses/render-error.js'
import { renderResponse } from '../responses/render-response.js'
import type { Scenario, ScenarioRule } from '../responses/scenarios.js'
import { selectResponse } from '../responses/select-response.js'
import type { TemplateRequest } from '../responses/templates.js'
import { matchOperation } from '../routing/match-operation.js'
import { type BodyOutcome, selectMediaType, validateBody } from '../validation/validate-body.js'
import { validateParameters } from '../validation/validate-params.js'
import { createAdminRoutes } from './admin-routes.js'
import { corsForOperations } from './cors.js'
import { NetworkFault, answerWithFault, drawDelay, waitBeforeAnswering } from './faults.js'
import { incomingOf, toRequestData } from './middleware.js'
import { readBody } from './read-body.js'

/** What one request learns on its way through the pipeline; the journal reads it at the end. */
interface Exchange {
  request: RequestData
  /** Arrival, in ms since the epoch, and on the monotonic clock for the duration. */
  time: number
  started: number
  operation?: CompiledOperation
  scenario?: Scenario
  rule?: ScenarioRule
  prefer?: Preferences
  body?: Uint8Array
}

type Env = { Variables: { exchange: Exchange } }

/** Errors that answer a valid request as asked (by a scenario or a Prefer), rather than report a violation. */
const ANSWERS_NOT_VIOLATIONS = new Set<MockError['kind']>(['forced_by_scenario', 'undeclared_preference'])

/**
 * The request pipeline, in the one place its order is written:
 * match operation → choose scenario → check auth → validate parameters and body → choose response
 * → render → (delay, fault) → record in journal.
 */
export function createApp(engine: Engine, controls: MockControls, closing: AbortSignal): Hono<Env> {
  const app = new Hono<Env>()
  if (engine.options.cors) app.use('*', corsForOperations(engine.router))
  if (engine.options.admin) {
    const adminToken = engine.options.adminToken
    app.route(ADMIN_PREFIX, createAdminRoutes({ controls, adminToken, spec: engine.source, operationCount: engine.operations.length }))
  }

  app.all('*', async function recordInJournal(c, next) {
    const exchange: Exchange = { request: toRequestData(c), time: Date.now(), started: performance.now() }
    c.set('exchange', exchange)
    try {
      await next()
    } catch (error) {
      // A network fault sent no response: it is journaled as status 0, then goes on out of the app.
      if (error instanceof NetworkFault) journalExchange(controls, engine.logger, exchange, c.error, 0)
      throw error
    }
    journalExchange(controls, engine.logger, exchange, c.error, c.res.status)
  })

  app.all('*', async function delayAndBreak(c, next) {
    await next()
    const { rule, prefer } = c.get('exchange')
    const delay = prefer?.delay ?? (rule?.delay ? drawDelay(rule.delay) : drawDelay(engine.options.delay))
    await waitBeforeAnswering(delay, c, closing)
    if (rule?.fault) c.res = await answerWithFault(rule.fault, c.res, c, closing)
  })

  app.all('*', async function handleMockRequest(c) {
    const exchange = c.get('exchange')
    const { request } = exchange
    // 1. Match: unknown path → 404, undeclared method → 405.
    const { operation, params } = matchOperation(engine.router, request.method, request.path)
    exchange.operation = operation
    // 2. Scenario: named by the request, else the session's, else the active one.
    const named = request.header('x-mock-scenario')
    const scenario = named ? findScenario(controls, named, operation) : controls.activeScenario(request.header('x-mock-session'))
    const rule = scenario.rules[operation.index]
    Object.assign(exchange, { scenario, rule })
    // 3. Security comes before anything else the request asks for, Prefer included.
    if (operation.security) checkSecurity(operation.security, request)
    if (rule?.unauthorized) throw errors.unauthorized(`The "${scenario.name}" scenario refuses every credential.`, 'Bearer error="invalid_token"')
    // 4. Every violation of parameters and body is reported in one response.
    const violations = operation.parameters ? validateParameters(operation.parameters, request, params) : []
    let value: unknown
    if (operation.body) {
      const body = await checkBody(c, engine, operation, request)
      violations.push(...body.violations)
      value = body.value
    }
    if (violations.length) throw errors.invalidRequest(operation.responses.violationStatus, violations)
    // 5. Decide the response (scenario rule, refined by Prefer), then render it.
    const prefer = parsePrefer(request.header('prefer'))
    exchange.prefer = prefer
    if (Number.isNaN(prefer.delay)) throw errors.undeclaredPreference(operation.responses.violationStatus, 'Prefer: delay= must be a whole number of milliseconds, at most 600000.')
    if (rule?.forcedError && prefer.code === undefined && prefer.example === undefined) throw errors.forcedByScenario(rule.forcedError, scenario.name, operation.id)
    const plan = selectResponse(operation, withScenarioRule(prefer, rule), engine.options, request.header('accept'))
    const { status, contentType, body } = renderResponse(plan, engine.errorContext, templateRequestOf(request, params, value))
    return new Response(body, { status, headers: contentType ? { 'content-type': contentType } : undefined })
  })

  app.onError(function renderMockError(error, c) {
    if (error instanceof NetworkFault) throw error
    const mockError = isMockError(error) ? error : reportUnexpected(engine, error)
    const { status, headers, body } = renderError(mockError, c.get('exchange')?.operation?.responses, engine.errorContext)
    return new Response(body, { status, headers })
  })

  return app
}

/** The one lifecycle point where a request is recorded, and then logged (the line is written later, off the request path). */
function journalExchange(controls: MockControls, logger: Logger, exchange: Exchange, error: unknown, status: number): void {
  const { request } = exchange
  const mockError = isMockError(error) ? error : undefined
  const session = request.header('x-mock-session')
  const record: RequestRecord = {
    time: exchange.time,
    method: request.method,
    path: request.path,
    query: request.rawQuery,
    operation: exchange.operation?.id,
    headers: request.headerEntries,
    body: exchange.body,
    status,
    scenario: (exchange.scenario ?? controls.activeScenario(session)).name,
    session,
    valid: !mockError || ANSWERS_NOT_VIOLATIONS.has(mockError.kind),
    violations: mockError ? [...mockError.details] : [],
    fault: exchange.rule?.fault,
    durationMs: Math.round((performance.now() - exchange.started) * 1000) / 1000,
  }
  controls.journal.recordRequest(record)
  logger.request?.({ ...record, error: mockError?.message })
}

function findScenario(controls: MockControls, name: string, operation: CompiledOperation): Scenario {
  try {
    return controls.findScenario(name)
  } catch (error) {
    // The request names it, so the request is wrong: answer with the operation's violation status.
    if (isMockError(error)) throw errors.unknownScenario(operation.responses.violationStatus, name, controls.listScenarios().map((s) => s.name))
    throw error
  }
}

async function readRequestBody(c: Context<Env>, engine: Engine, exchange: Exchange): Promise<Uint8Array> {
  exchange.body = await readBody(c.req.raw, incomingOf(c), engine.options.maxBodyBytes)
  return exchange.body
}

async function checkBody(c: Context<Env>, engine: Engine, operation: CompiledOperation, request: RequestData): Promise<BodyOutcome> {
  const body = operation.body!
  const read = () => readRequestBody(c, engine, c.get('exchange'))
  const contentType = request.header('content-type')
  const length = request.header('content-length')
  const announced = contentType !== undefined || (length !== undefined && length !== '0') || request.header('transfer-encoding') !== undefined
  // Under app.request() a body (bytes, a stream) may come with none of the headers that announce
  // one; reading tells, and bytes without a Content-Type then get 415, as they do over a socket.
  const bytes = !announced && !incomingOf(c) && c.req.raw.body !== null ? await read() : undefined
  if (!announced && !bytes?.byteLength) {
    return { violations: body.required ? [{ path: 'body', message: 'is required but the request has no body' }] : [] }
  }
  const media = selectMediaType(body, contentType)
  return validateBody(body, media, bytes ?? (await read()), contentType)
}

function templateRequestOf(request: RequestData, params: Record<string, string>, body: unknown): TemplateRequest {
  return {
    method: request.method,
    path: request.path,
    params: decodeParams(params),
    query: request.query(),
    header: request.header,
    body,
  }
}

function decodeParams(params: Record<string, string>): Record<string, string> {
  const decoded: Record<string, string> = {}
  for (const [name, value] of Object.entries(params)) {
    try {
      decoded[name] = decodeURIComponent(value)
    } catch {
      decoded[name] = value
    }
  }
  return decoded
}

function reportUnexpected(engine: Engine, error: unknown) {
  const detail = engine.options.debug && error instanceof Error ? error.stack : String((error as Error)?.message ?? error)
  engine.logger.error(`unexpected failure while answering a request: ${detail}`)
  return errors.internal()
}
