import { type Context, Hono } from 'hono'
import { checkSecurity } from '../auth/check-security.js'
import { ADMIN_PREFIX, type ValidationMode } from '../config.js'
import type { MockControls } from '../controls.js'
import type { CompiledOperation, Engine } from '../engine.js'
import { type MockError, type Violation, errors, isMockError } from '../errors.js'
import type { AnswerSource, RequestRecord } from '../journal/journal.js'
import type { Logger } from '../log.js'
import type { RequestData } from '../request.js'
import { type Preferences, parsePrefer, withScenarioRule, written } from '../responses/prefer.js'
import { renderError } from '../responses/render-error.js'
import { readQueryPreferences, withQueryPreferences, withoutQueryControls } from '../responses/query-preferences.js'
import { type RenderedResponse, renderResponse } from '../responses/render-response.js'
import type { Fault, Scenario, ScenarioRule } from '../responses/scenarios.js'
import { selectResponse } from '../responses/select-response.js'
import type { TemplateRequest } from '../responses/templates.js'
import { NO_PARAMS, matchOperation } from '../routing/match-operation.js'
import { type BodyOutcome, selectMediaType, validateBody } from '../validation/validate-body.js'
import { validateParameters } from '../validation/validate-params.js'
import { VIOLATIONS_HEADER, renderViolationsHeader } from '../validation/violations-header.js'
import { ADMIN_ROUTES, createAdminRoutes } from './admin-routes.js'
import { corsForMockRequests } from './cors.js'
import { NetworkFault, answerWithFault, drawDelay, waitBeforeAnswering } from './faults.js'
import { incomingOf, toRequestData } from './request-data.js'
import { createOwnPages } from './own-pages.js'
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
  /** What the pipeline threw, if it threw: the journal tells violations from answers by it. */
  error?: unknown
  /** The request's violations, answered past (`--validate report`, or an unreadable body under `off`); set only when there are some. */
  violations?: Violation[]
  /** How the answer breaks the operation's declared response, as far as the mock knows; set only when it does. */
  responseViolations?: readonly Violation[]
  /**
   * The answer as built, where its Response is made: the rendered body string and header object, by
   * reference (the Response's body is a stream, never read back). The journal lists it.
   */
  answer?: AnswerSource
  /** The message of the error answered, which may not be `error` (`--errors` answers a 500 instead). */
  reason?: string
}

type Env = { Variables: { exchange: Exchange } }

/**
 * Errors that answer a valid request as asked (by a scenario or a Prefer), or that refuse the mock's
 * own answer (`--errors`), rather than report a violation of the request.
 */
const ANSWERS_NOT_VIOLATIONS = new Set<MockError['kind']>([
  'forced_by_scenario',
  'undeclared_preference',
  'invalid_response',
])

/**
 * The request pipeline, in the one place its order is written:
 * (query controls) → match operation → choose scenario → check auth → validate parameters and body
 * (strict, report or off) → choose response → render, refused or reported if it breaks its declaration
 * → (delay, fault) → record in journal. A miss (404) at `/` or `/favicon.ico` is answered by
 * the mock's own pages instead, unjournaled (`own-pages.ts`).
 * @note The described API is served by one handler that runs these steps as plain calls: as a chain
 * of Hono middleware (CORS, journal, delay, handler) the same work cost about a quarter more CPU per
 * request (issue #4). Hono routes the admin API and shapes the app; CORS runs only when an Origin asks.
 */
export function createHonoApp(engine: Engine, controls: MockControls, closing: AbortSignal): Hono<Env> {
  const app = new Hono<Env>()
  if (engine.options.admin) {
    const adminToken = engine.options.adminToken
    app.route(
      ADMIN_PREFIX,
      createAdminRoutes({
        controls,
        adminToken,
        spec: engine.source,
        operationCount: engine.operations.length,
        host: engine.options.host,
        allowedHosts: engine.options.allowedHosts,
        cors: engine.options.cors,
      }),
    )
  }
  const cors = engine.options.cors ? corsForMockRequests() : undefined
  const answerOwnPage = createOwnPages(engine, engine.options.admin ? ADMIN_ROUTES : [])
  /** Answers waiting on a delay or a `hang` fault right now. */
  let held = 0

  app.all('*', async function serveMockRequest(c) {
    const exchange: Exchange = { request: toRequestData(c), time: Date.now(), started: performance.now() }
    c.set('exchange', exchange)
    if (!cors || exchange.request.header('origin') === undefined) return answerAndRecord(c, exchange)
    const preflight = await cors(c, async () => {
      c.res = await answerAndRecord(c, exchange)
    })
    return preflight ?? c.res
  })

  /** Steps 1–5, then the error mapping, then delay and fault, then the journal. */
  async function answerAndRecord(c: Context<Env>, exchange: Exchange): Promise<Response> {
    let response: Response
    try {
      response = await answerMockRequest(c, exchange)
    } catch (error) {
      // Only once routing has missed does the mock look for a page of its own (`GET /`, the favicon).
      const own = isMockError(error) && error.kind === 'not_found' ? answerOwnPage(exchange.request, error) : undefined
      if (own) return own
      exchange.error = error
      response = renderFailure(error, exchange)
    }
    const { rule, prefer } = exchange
    const delay = prefer?.delay ?? drawDelay(rule?.delay ?? engine.options.delay)
    const holds = delay > 0 || rule?.fault === 'hang'
    if (holds && held >= MAX_HELD_ANSWERS) {
      // Each held answer holds a connection (and a file descriptor): beyond the cap, every other client would be locked out.
      exchange.error = errors.tooManyHeld(MAX_HELD_ANSWERS)
      response = renderFailure(exchange.error, exchange)
    } else if (holds) {
      held++
      try {
        return await deliver(c, exchange, response, delay)
      } finally {
        held--
      }
    } else if (rule?.fault) {
      return deliver(c, exchange, response, 0)
    }
    journalExchange(controls, engine.logger, exchange, response.status)
    return response
  }

  /** Step 6: the delay, then a fault if the rule has one; then the journal. */
  async function deliver(c: Context<Env>, exchange: Exchange, response: Response, delay: number): Promise<Response> {
    if (delay > 0) await waitBeforeAnswering(delay, c, closing)
    const fault = exchange.rule?.fault
    if (fault) {
      try {
        response = await answerWithFault(fault, response, c, closing)
        if (fault === 'malformed') exchange.answer = await answerSent(response)
      } catch (error) {
        // A network fault sent no response: it is journaled as status 0, then goes on out of the app.
        journalExchange(controls, engine.logger, exchange, 0)
        throw error
      }
    }
    journalExchange(controls, engine.logger, exchange, response.status)
    return response
  }

  async function answerMockRequest(c: Context<Env>, exchange: Exchange): Promise<Response> {
    const { request } = exchange
    // 0. Prism's query controls (`?__code=404`) are looked for only in a query that holds `__`. They are
    // taken out of the request the operation sees (routing, validation, templates); the journal keeps the query as sent.
    const query = request.rawQuery.indexOf('__') === -1 ? undefined : readQueryPreferences(request.rawQuery)
    const described = query ? withoutQueryControls(request, query) : request
    // 1. Match: unknown path → 404, undeclared method → 405.
    const { operation, params } = matchOperation(
      engine.router,
      request.method,
      request.path,
      described,
      hasValidPathParameters,
    )
    exchange.operation = operation
    // 2. Scenario: named by the request, else the session's, else the active one.
    const named = request.header('x-mock-scenario')
    const scenario = named
      ? findScenario(controls, named, operation)
      : controls.activeScenario(request.header('x-mock-session'))
    const rule = scenario.rules[operation.index]
    exchange.scenario = scenario
    exchange.rule = rule
    // 3. Security comes before anything else the request asks for, Prefer included.
    if (operation.security) checkSecurity(operation.security, request)
    if (rule?.unauthorized)
      throw errors.unauthorized(
        `The "${scenario.name}" scenario refuses every credential.`,
        'Bearer error="invalid_token"',
      )
    // Prefer is read before validation, for its `validate=`; the rest of what it asks is answered in step 5.
    const prefer = query
      ? withQueryPreferences(parsePrefer(request.header('prefer')), query)
      : parsePrefer(request.header('prefer'))
    // 4. Every violation of parameters and body is answered in one response (strict), or answered past (report, off).
    if (prefer.validate === null)
      throw errors.undeclaredPreference(
        operation.responses.violationStatus,
        'Prefer: validate= must be strict, report or off (or true, false).',
      )
    const validation = prefer.validate ?? engine.options.validate
    let value: unknown
    if (validation === 'strict') {
      const violations = operation.parameters ? validateParameters(operation.parameters, described, params) : []
      if (operation.body) {
        const body = await checkBody(c, engine, operation, request)
        if (body.violations.length) violations.push(...body.violations)
        value = body.value
      }
      if (violations.length) throw errors.invalidRequest(operation.responses.violationStatus, violations)
    } else {
      value = await validateLeniently(c, exchange, operation, described, params, validation)
    }
    // 5. Decide the response (scenario rule, refined by Prefer), then render it. Only a request that gets this far is delayed by its Prefer.
    exchange.prefer = prefer
    if (Number.isNaN(prefer.delay))
      throw errors.undeclaredPreference(
        operation.responses.violationStatus,
        'Prefer: delay= must be a whole number of milliseconds, at most 600000.',
      )
    if (query && prefer.problem) throw errors.undeclaredPreference(operation.responses.violationStatus, prefer.problem)
    if (rule?.forcedError && prefer.code === undefined && prefer.example === undefined)
      throw errors.forcedByScenario(rule.forcedError, scenario.name, operation.id)
    const plan = selectResponse(operation, withScenarioRule(prefer, rule), engine.options, request.header('accept'))
    // Only a templated fixture reads the request back; other bodies need no view of it.
    const templated = plan.source.kind === 'static' && plan.source.body.template !== undefined
    const rendered = renderResponse(
      plan,
      engine.errorContext,
      templated ? templateRequestOf(described, params, value) : undefined,
    )
    if (rendered.violations !== undefined || exchange.violations !== undefined)
      return answerWithViolations(rendered, exchange, operation)
    const { status, contentType, headers, body } = rendered
    exchange.answer = rendered
    return new Response(body, {
      status,
      headers: contentType
        ? headers
          ? { ...headers, 'content-type': contentType }
          : { 'content-type': contentType }
        : headers,
    })
  }

  /**
   * Step 4 under `--validate report` or `off`: the request is answered as if it were valid. `report`
   * keeps every violation; `off` validates nothing and keeps only what keeps the body from being
   * read (malformed JSON, bad UTF-8), whose templates then see no body. Either way they are reported.
   */
  async function validateLeniently(
    c: Context<Env>,
    exchange: Exchange,
    operation: CompiledOperation,
    request: RequestData,
    params: Record<string, string>,
    mode: ValidationMode,
  ): Promise<unknown> {
    const violations =
      mode === 'report' && operation.parameters ? validateParameters(operation.parameters, request, params) : []
    let value: unknown
    if (operation.body) {
      const body =
        mode === 'report'
          ? await checkBodyForReport(c, engine, operation, request)
          : await readBodyUnchecked(c, engine, operation, request)
      if (body.violations.length) violations.push(...body.violations)
      value = body.value
    }
    if (violations.length) exchange.violations = violations
    return value
  }

  /**
   * An answer the mock knows breaks the operation's declared response: with `--errors`, a 500 naming
   * the violations instead; without, sent with `X-Mock-Violations`, as is an answer to a request whose
   * violations were answered past.
   */
  function answerWithViolations(
    rendered: RenderedResponse,
    exchange: Exchange,
    operation: CompiledOperation,
  ): Response {
    if (rendered.violations) {
      exchange.responseViolations = rendered.violations
      if (engine.options.errors) throw errors.invalidResponse(rendered.status, operation.id, rendered.violations)
    }
    const headers: Record<string, string> = {
      ...rendered.headers,
      [VIOLATIONS_HEADER]: renderViolationsHeader(exchange.violations, exchange.responseViolations),
    }
    if (rendered.contentType) headers['content-type'] = rendered.contentType
    exchange.answer = { status: rendered.status, headers, body: rendered.body }
    return new Response(rendered.body, { status: rendered.status, headers })
  }

  /**
   * The one mapping of a failure to the description's Error shape; unexpected failures are logged once.
   * A declared error body the mock knows to break its schema is refused with `--errors` (the 500 that
   * says so is not judged again), and reported without; reported violations go in `X-Mock-Violations`.
   */
  function renderFailure(error: unknown, exchange: Exchange | undefined): Response {
    const mockError = isMockError(error) ? error : reportUnexpected(engine, error)
    const { status, headers, body, violations } = renderError(
      mockError,
      exchange?.operation?.responses,
      engine.errorContext,
    )
    if (violations && exchange?.operation && mockError.kind !== 'invalid_response') {
      exchange.responseViolations = violations
      // The journal keeps the failure the request met; only the answer changes.
      if (engine.options.errors)
        return renderFailure(errors.invalidResponse(status, exchange.operation.id, violations), exchange)
    }
    if (exchange?.violations || exchange?.responseViolations)
      headers[VIOLATIONS_HEADER] = renderViolationsHeader(exchange.violations, exchange.responseViolations)
    if (exchange) {
      exchange.answer = { status, headers, body }
      exchange.reason = mockError.message
    }
    return new Response(body, { status, headers })
  }

  // The admin API's errors, and anything thrown outside the pipeline above.
  app.onError(function renderMockError(error, c) {
    if (error instanceof NetworkFault) throw error
    return renderFailure(error, c.get('exchange'))
  })

  return app
}

/** Delayed or hanging answers held at once, at most; beyond, 503 with Retry-After (#12). */
export const MAX_HELD_ANSWERS = 128

/** The one lifecycle point where a request is recorded, and then logged (the line is written later, off the request path). */
function journalExchange(controls: MockControls, logger: Logger, exchange: Exchange, status: number): void {
  const { request } = exchange
  const mockError = isMockError(exchange.error) ? exchange.error : undefined
  // An error that answers the request as asked, or refuses the mock's own answer, says nothing against the request.
  const refused = mockError !== undefined && !ANSWERS_NOT_VIOLATIONS.has(mockError.kind) ? mockError : undefined
  const session = request.header('x-mock-session')
  const record: RequestRecord = {
    time: exchange.time,
    method: request.method,
    path: request.path,
    query: request.rawQuery,
    operation: exchange.operation?.id,
    headers: request.headerSource,
    body: exchange.body,
    status,
    scenario: (exchange.scenario ?? controls.activeScenario(session)).name,
    session,
    valid: !refused && exchange.violations === undefined,
    violations: exchange.violations
      ? [...exchange.violations, ...(refused?.details ?? [])]
      : refused
        ? [...refused.details]
        : [],
    fault: exchange.rule?.fault,
    // A network fault sent none (status 0); otherwise the answer as built, by reference.
    response: status === 0 ? undefined : exchange.answer,
    durationMs: Math.round((performance.now() - exchange.started) * 1000) / 1000,
  }
  if (exchange.responseViolations) record.responseViolations = [...exchange.responseViolations]
  // Set only when there is one, as responseViolations: a field the usual record carries costs every request its copy (~0.1 µs).
  const reason = reasonOf(exchange, status)
  if (reason !== undefined) record.reason = reason
  controls.journal.recordRequest(record)
  if (logger.request) {
    // One more field on the spread line costs every request (as in the journal): only a forced status carries it.
    const forced = forcedBy(exchange, mockError)
    logger.request(
      forced === undefined
        ? { ...record, error: mockError?.message }
        : { ...record, error: mockError?.message, forcedBy: forced },
    )
  }
}

/**
 * Why the request got its status (#13 §4), for the journal and the request line: the error answered,
 * else what forced the status, else that the description declares no 2xx; and a fault, named. A 2xx
 * answered as asked has none: the usual request pays a few property reads here.
 */
function reasonOf(exchange: Exchange, status: number): string | undefined {
  const fault = exchange.rule?.fault
  // What the pipeline answered: a network fault leaves status 0, not the status it replaced.
  const answered = exchange.answer?.status ?? status
  const why = exchange.reason ?? (answered >= 200 && answered < 300 ? undefined : statusReason(exchange, answered))
  if (fault === undefined) return why
  return why === undefined ? FAULT_REASONS[fault] : `${why}; ${FAULT_REASONS[fault]}`
}

/** A non-2xx that no error answered: forced, or the lowest status the operation declares. */
function statusReason(exchange: Exchange, status: number): string | undefined {
  const forced = forcedBy(exchange, undefined)
  if (forced !== undefined) return `forced by ${forced}`
  if (exchange.operation === undefined || status === 0) return undefined
  return `${exchange.operation.id} declares no 2xx response; ${status} is the lowest status it declares`
}

/** What each fault did to the answer, as the journal's reason tells it. */
const FAULT_REASONS: Record<Fault, string> = {
  reset: 'fault reset: the connection was reset, no response was sent',
  empty: 'fault empty: the connection was closed before any byte of a response',
  malformed: 'fault malformed: the status and headers were sent, then half of the body',
  hang: 'fault hang: no answer until the client gave up or the server closed',
}

/**
 * What a `malformed` fault sent instead: read back from its Response, a clone of it. Only this
 * fault's answers pay for it; every other answer is kept as built.
 */
async function answerSent(response: Response): Promise<AnswerSource> {
  return { status: response.status, headers: response.headers, body: await response.clone().text() }
}

/** What chose the status, where neither the request nor the description did: a `Prefer` (or `__code`), or a scenario. */
function forcedBy(exchange: Exchange, error: MockError | undefined): string | undefined {
  if (error?.kind === 'forced_by_scenario') return `scenario ${exchange.scenario?.name}`
  if (error !== undefined) return undefined
  const code = exchange.prefer?.code
  if (code !== undefined) return `${written('code', exchange.prefer!.from)}${code}`
  return exchange.rule?.status !== undefined ? `scenario ${exchange.scenario?.name}` : undefined
}

function findScenario(controls: MockControls, name: string, operation: CompiledOperation): Scenario {
  try {
    return controls.findScenario(name)
  } catch (error) {
    // The request names it, so the request is wrong: answer with the operation's violation status.
    if (isMockError(error))
      throw errors.unknownScenario(
        operation.responses.violationStatus,
        name,
        controls.listScenarios().map((s) => s.name),
      )
    throw error
  }
}

async function readRequestBody(c: Context<Env>, engine: Engine, exchange: Exchange): Promise<Uint8Array> {
  exchange.body = await readBody(c.req.raw, incomingOf(c), engine.options.maxBodyBytes)
  return exchange.body
}

async function checkBody(
  c: Context<Env>,
  engine: Engine,
  operation: CompiledOperation,
  request: RequestData,
): Promise<BodyOutcome> {
  const body = operation.body!
  const read = () => readRequestBody(c, engine, c.get('exchange'))
  const contentType = request.header('content-type')
  const length = request.header('content-length')
  const announced =
    contentType !== undefined ||
    (length !== undefined && length !== '0') ||
    request.header('transfer-encoding') !== undefined
  // Under app.request() a body (bytes, a stream) may come with none of the headers that announce
  // one; reading tells, and bytes without a Content-Type then get 415, as they do over a socket.
  const bytes = !announced && !incomingOf(c) && c.req.raw.body !== null ? await read() : undefined
  if (!announced && !bytes?.byteLength) {
    return { violations: body.required ? [{ path: 'body', message: 'is required but the request has no body' }] : [] }
  }
  const media = selectMediaType(body, contentType)
  return validateBody(body, media, bytes ?? (await read()), contentType)
}

/**
 * Step 4 of `--validate report` for the body: as in strict mode, but a media type the operation does
 * not declare is a violation like any other, and the body (read for the journal) is not parsed.
 */
async function checkBodyForReport(
  c: Context<Env>,
  engine: Engine,
  operation: CompiledOperation,
  request: RequestData,
): Promise<BodyOutcome> {
  try {
    return await checkBody(c, engine, operation, request)
  } catch (error) {
    if (!isMockError(error) || error.kind !== 'unsupported_media_type') throw error
    if (!c.get('exchange').body) await readRequestBody(c, engine, c.get('exchange'))
    const contentType = request.header('content-type')
    const sent = contentType === undefined ? 'missing' : `"${contentType.slice(0, 128)}"`
    return {
      violations: [
        {
          path: 'header["content-type"]',
          message: `is ${sent}, which the operation does not accept; send ${operation.body!.declared.join(' or ')}`,
        },
      ],
    }
  }
}

/**
 * Step 4 of `--validate off` for the body: read (413 still applies) and parsed for templates when its
 * media type is declared, with no schema; only a body that cannot be parsed is reported.
 */
async function readBodyUnchecked(
  c: Context<Env>,
  engine: Engine,
  operation: CompiledOperation,
  request: RequestData,
): Promise<BodyOutcome> {
  const body = operation.body!
  const contentType = request.header('content-type')
  const bytes = await readRequestBody(c, engine, c.get('exchange'))
  const media = findMediaType(body, contentType)
  if (!media || (bytes.byteLength === 0 && media.kind !== 'form')) return { violations: [] }
  return validateBody(body, { ...media, validate: undefined }, bytes, contentType)
}

/** The declared media type of a body, or none where strict validation would answer 415. */
function findMediaType(body: NonNullable<CompiledOperation['body']>, contentType: string | undefined) {
  try {
    return selectMediaType(body, contentType)
  } catch {
    return undefined
  }
}

/** Where several templates match a path (`…/{FileName}`, `…/{AttachmentID}`), the router takes the first whose path parameters are valid. */
function hasValidPathParameters(
  operation: CompiledOperation,
  params: Record<string, string>,
  request: RequestData,
): boolean {
  const path = operation.parameters?.filter((location) => location.location === 'path')
  return !path?.length || validateParameters(path, request, params).length === 0
}

function templateRequestOf(request: RequestData, params: Record<string, string>, body: unknown): TemplateRequest {
  return new TemplateRequestOf(request, decodeParams(params), body)
}

/** Most templates read only the body: the query is parsed only if one reads it. */
class TemplateRequestOf implements TemplateRequest {
  readonly method: string
  readonly path: string
  readonly header: (name: string) => string | undefined

  constructor(
    private readonly request: RequestData,
    readonly params: Record<string, string>,
    readonly body: unknown,
  ) {
    this.method = request.method
    this.path = request.path
    this.header = request.header
  }

  get query(): URLSearchParams {
    return this.request.query()
  }
}

function decodeParams(params: Record<string, string>): Record<string, string> {
  if (params === NO_PARAMS) return params
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
  const detail =
    engine.options.debug && error instanceof Error ? error.stack : String((error as Error)?.message ?? error)
  engine.logger.error(`unexpected failure while answering a request: ${detail}`)
  return errors.internal()
}
