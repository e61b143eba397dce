import { securityFailure } from '../auth/check-security.js'
import type { CompiledOperation } from '../engine/compile-operation.js'
import { BODY_NOT_DECLARED, type MockError, errors, isMockError } from '../errors/index.js'
import type { RequestData } from '../common/request.js'
import type { Transport } from './request-data.js'
import type { Preferences } from '../responses/prefer.js'
import { type QueryPreferences, readQueryPreferences, withoutQueryControls } from '../responses/query-preferences.js'
import { type RenderedResponse, renderResponse } from '../responses/render-response.js'
import { type HandOff, isHandOff } from '../responses/made-body.js'
import { type ResponsePlan, selectResponse } from '../responses/select-response.js'
import { selectRecording } from '../proxy/select-recording.js'
import { templateRequestOf } from '../responses/template-request.js'
import { type RouteMatch, matchOperation } from '../routing/match-operation.js'
import { validateParameters } from '../validation/validate-params.js'
import type { Exchange, PipelineDeps } from './exchange.js'
import { chooseStep, countHit, mayAnswerPastViolations, scenarioStep, unclaim } from './choose.js'
import { proxyStep } from './proxy.js'
import { dataStep } from './data.js'
import { deliverStep } from './deliver.js'
import { answerWithViolations, renderFailure } from './failure.js'
import { streamAnswer } from './stream-answer.js'
import { type BodyReading, readRequestBodyUnchecked, reportRequestBody, validateRequestBody } from './request-body.js'
import type { Reply } from './reply.js'
import { replyOfRendered } from './static-reply.js'

/**
 * One request to the described API, from the parsed request to the journal, in the order the steps run:
 * 0 query controls → 1 match → 2 scenario → 3 security → 4 validate → 5 decide → 5b data (`--stateful`,
 * `data.ts`) → 6 render → (a failure is mapped to the description's Error shape) → 7 deliver (delay,
 * fault) → 8 record. A miss (404) at
 * `/` or `/favicon.ico` is answered by the mock's own pages instead, unjournaled (`own-pages.ts`).
 * New steps (stubs and conditions, proxying, events) go between these, as functions of
 * `(exchange, deps)` like them.
 * @note The steps are plain calls: as a chain of Hono middleware (CORS, journal, delay, handler) the
 * same work cost about a quarter more CPU per request (issue #4).
 */
export async function answerRequest(transport: Transport, exchange: Exchange, deps: PipelineDeps): Promise<Reply> {
  let response: Reply
  try {
    const answered = await answerDescribed(transport, exchange, deps)
    if (isMockError(answered)) {
      exchange.error = answered
      response = renderFailure(answered, exchange, deps)
    } else response = answered
  } catch (error) {
    // Only once routing has missed does the mock look for a page of its own (`GET /`, the favicon).
    const own =
      isMockError(error) && error.kind === 'not_found' ? deps.answerOwnPage(exchange.request, error) : undefined
    if (own) return own
    exchange.error = error
    response = renderFailure(error, exchange, deps)
  }
  return deliverStep(transport, exchange, deps, response)
}

/**
 * Steps 0 to 6: what the description says to answer, or the error that answers instead when it is a
 * common answer: a refused credential, the request's violations, a scenario's forced error. They are
 * returned, not thrown: a throw and the rejections it passes through cost such an answer some 17k
 * instructions (#19). Rarer errors are still thrown.
 */
async function answerDescribed(
  transport: Transport,
  exchange: Exchange,
  deps: PipelineDeps,
): Promise<Reply | MockError> {
  const query = queryControlsStep(exchange.request)
  const described = query ? withoutQueryControls(exchange.request, query) : exchange.request
  const { operation, params } = matchStep(exchange, deps, described)
  const prefer = scenarioStep(exchange, deps, operation, query)
  const refusal = securityStep(exchange, operation)
  if (refusal) return refused(exchange, refusal, prefer)
  const value = await validateStep(transport, exchange, deps, { operation, params, described, prefer })
  if (isMockError(value)) return refused(exchange, value, prefer)
  if (exchange.choice) {
    // A promise only where a shared store (`--store`) counts the rule chosen.
    const claiming = chooseStep(exchange, deps, operation, prefer, { params, value })
    if (claiming) await claiming
  }
  if (operation.sendsEvents) exchange.eventInput = { params, value }
  const { upstream } = deps.engine
  const proxied = upstream && (await proxyStep(transport, exchange, deps, operation, upstream))
  if (proxied) return proxied
  const decided = exchange.choice?.claimed
    ? await decideClaimed(exchange, deps, operation, prefer, query)
    : decideStep(exchange, deps, operation, prefer, query)
  if (isMockError(decided)) return decided
  if (exchange.choice) countHit(exchange, deps)
  const plan = operation.stateful
    ? await dataStep(exchange, deps, operation, operation.stateful, { params, value }, decided)
    : decided
  return renderStep(exchange, deps, plan, operation, { described, params, value }, transport)
}

/** A refused request's answer is the declared one for its status, with the example its Prefer names, if any (#30). */
function refused(exchange: Exchange, error: MockError, prefer: Preferences): MockError {
  if (prefer.example !== undefined) exchange.errorExample = prefer.example
  return error
}

/**
 * 0. Prism's query controls (`?__code=404`) are looked for only in a query that holds `__`. They are
 * taken out of the request the operation sees (routing, validation, templates); the journal keeps the query as sent.
 */
function queryControlsStep(request: RequestData): QueryPreferences | undefined {
  return request.rawQuery.indexOf('__') === -1 ? undefined : readQueryPreferences(request.rawQuery)
}

/** 1. Match: unknown path → 404, undeclared method → 405. */
function matchStep(
  exchange: Exchange,
  { engine }: PipelineDeps,
  described: RequestData,
): RouteMatch<CompiledOperation> {
  const { request } = exchange
  const match = matchOperation(engine.router, request.method, request.path, described, hasValidPathParameters)
  exchange.operation = match.operation
  return match
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

/** 3. Security comes before anything else the request asks for, Prefer included; then a scenario that refuses every credential. */
function securityStep(exchange: Exchange, operation: CompiledOperation): MockError | undefined {
  return (operation.security && securityFailure(operation.security, exchange.request)) ?? exchange.decision!.refusal
}

interface Validation {
  operation: CompiledOperation
  params: Record<string, string>
  /** The request as the operation sees it (query controls taken out). */
  described: RequestData
  prefer: Preferences
}

/**
 * 4. Every violation of parameters and body is answered in one response (strict), or answered past
 * (`--validate report`, `off`, or `Prefer: validate=`) and kept for the journal: the parsed body.
 */
async function validateStep(
  transport: Transport,
  exchange: Exchange,
  deps: PipelineDeps,
  { operation, params, described, prefer }: Validation,
): Promise<unknown> {
  if (prefer.validate === null) throw errors.badPreferValidate(operation.responses.violationStatus)
  let mode = prefer.validate ?? deps.engine.options.validate
  // A rule or stub may answer past violations (`validate: false`): which one answers is known only
  // once the request is read, so violations are kept, and answered at step 4b unless it does.
  if (mode === 'strict' && exchange.choice && mayAnswerPastViolations(exchange.choice)) {
    exchange.choice.strict = true
    mode = 'report'
  }
  const reading: BodyReading = { transport, exchange, deps, operation, request: exchange.request }
  // A body the operation does not declare: 415 as Prism answers (#30), or reported; never read.
  const undeclaredBody = operation.body === undefined && sendsBody(exchange.request, transport)
  if (undeclaredBody && mode === 'strict') return errors.bodyNotDeclared(operation.id)
  if (mode === 'strict') {
    const violations = operation.parameters ? validateParameters(operation.parameters, described, params) : []
    let value: unknown
    if (operation.body) {
      const body = await validateRequestBody(reading)
      if (body.violations.length) violations.push(...body.violations)
      value = body.value
      exchange.bodyText = body.text
    }
    // Returned, not thrown, as a refused credential is (see answerDescribed).
    if (violations.length) return errors.invalidRequest(operation.responses.violationStatus, violations)
    return value
  }
  // Answered as if valid: `report` keeps every violation; `off` validates nothing and keeps only what
  // keeps the body from being read (malformed JSON, bad UTF-8), whose templates then see no body.
  const violations =
    mode === 'report' && operation.parameters ? validateParameters(operation.parameters, described, params) : []
  let value: unknown
  if (operation.body) {
    const body = mode === 'report' ? await reportRequestBody(reading) : await readRequestBodyUnchecked(reading)
    if (body.violations.length) violations.push(...body.violations)
    value = body.value
    exchange.bodyText = body.text
  }
  if (undeclaredBody && mode === 'report') violations.push(BODY_NOT_DECLARED)
  if (violations.length) exchange.violations = violations
  return value
}

/**
 * A body is sent: a `Content-Length` above 0, or a chunked one (a `Content-Type` alone sends none); in
 * process (`app.request()`, no connection), a Request made with a body.
 */
function sendsBody(request: RequestData, transport: Transport): boolean {
  const length = request.header('content-length')
  if ((length !== undefined && length !== '0') || request.header('transfer-encoding') !== undefined) return true
  return transport.connection === undefined && length === undefined && transport.raw!.body !== null
}

/**
 * 5. Decide the response: the scenario's rule refined by Prefer picks status, media type and body
 * source. Only a request that gets this far is delayed by its Prefer.
 */
/** Step 5 for a rule whose answer the shared store counted already (`--store`): a refusal here (a 406) gives the count back. */
async function decideClaimed(...args: Parameters<typeof decideStep>): Promise<ResponsePlan | MockError> {
  let decided: ResponsePlan | MockError
  try {
    decided = decideStep(...args)
  } catch (error) {
    await unclaim(args[0], args[1])
    throw error
  }
  if (isMockError(decided)) await unclaim(args[0], args[1])
  return decided
}

function decideStep(
  exchange: Exchange,
  { engine }: PipelineDeps,
  operation: CompiledOperation,
  prefer: Preferences,
  query: QueryPreferences | undefined,
): ResponsePlan | MockError {
  exchange.prefer = prefer
  const { violationStatus } = operation.responses
  if (Number.isNaN(prefer.delay)) throw errors.badPreferDelay(violationStatus)
  if (query && prefer.problem) throw errors.undeclaredPreference(violationStatus, prefer.problem)
  const decision = exchange.decision!
  if (decision.forced) return decision.forced
  const { inline } = decision
  if (inline)
    return {
      status: inline.status,
      response: inline.response,
      media: inline.media,
      source: { kind: 'static', body: inline.body },
    }
  const preferences = operation.recordings
    ? selectRecording(
        operation.recordings,
        decision.preferences,
        exchange,
        engine.redaction,
        engine.platform.crypto.sha256,
      )
    : decision.preferences
  return selectResponse(operation, preferences, engine.options, exchange.request.header('accept'))
}

interface TemplateSource {
  described: RequestData
  params: Record<string, string>
  value: unknown
}

/**
 * A body too costly for the main thread, made off it (`Platform.offThread`) while other requests are
 * answered, then rendered as any other (`renderAgain`): the render takes the body handed to it, once.
 */
async function renderHandedOff(
  handOff: HandOff,
  operation: CompiledOperation,
  deps: PipelineDeps,
  renderAgain: () => Reply | Promise<Reply>,
): Promise<Reply> {
  const context = deps.engine.errorContext
  const { code, media, sampled } = handOff
  const made = await context.offThread!.make({ operation: operation.index, code, mediaType: media.mediaType, sampled })
  // Set and taken back within one synchronous render: no other request renders in between.
  context.handed = { media, made }
  try {
    return renderAgain()
  } finally {
    context.handed = undefined
  }
}

/**
 * 6. Render the plan into bytes; an answer the mock knows breaks the operation's declared response
 * is refused (`--errors`) or sent with `X-Mock-Violations`, as is one to a request answered past its violations.
 */
function renderStep(
  exchange: Exchange,
  deps: PipelineDeps,
  plan: ResponsePlan,
  operation: CompiledOperation,
  template: TemplateSource,
  transport: Transport,
  handOff = true,
): Reply | Promise<Reply> {
  const { engine } = deps
  // Only a templated fixture reads the request back; other bodies need no view of it.
  const templated =
    plan.source.kind === 'static' &&
    (plan.source.body.template !== undefined || plan.source.body.stream?.templated === true)
  let rendered: RenderedResponse
  try {
    rendered = renderResponse(
      plan,
      engine.errorContext,
      templated ? templateRequestOf(template.described, template.params, template.value) : undefined,
      handOff,
    )
  } catch (error) {
    if (!isHandOff(error)) throw error
    // Making the body outlasted its slice of the main thread: it is made off it, then rendered here (#34).
    return renderHandedOff(error, operation, deps, () =>
      renderStep(exchange, deps, plan, operation, template, transport, false),
    )
  }
  if (rendered.streamPlan) return streamAnswer(rendered, rendered.streamPlan, exchange, deps, operation, transport)
  const { headers: added, violations: forced } = exchange.decision!
  if (added) rendered = { ...rendered, headers: { ...rendered.headers, ...added } }
  if (forced) rendered = { ...rendered, violations: [...(rendered.violations ?? []), ...forced] }
  if (rendered.violations !== undefined || exchange.violations !== undefined)
    return answerWithViolations(rendered, exchange, operation, engine.options.errors)
  exchange.answer = rendered
  return replyOfRendered(rendered)
}
