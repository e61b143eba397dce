import { type HeaderSource, requestSession } from '../common/request.js'
import { type MockError, type Violation, isMockError } from '../errors/index.js'
import type { AnswerSource, RequestRecord } from '../journal/journal.js'
import type { RequestLine } from '../common/log.js'
import { written } from '../responses/prefer.js'
import type { Fault } from '../rules/rule.js'
import type { Exchange, PipelineDeps } from './exchange.js'
import { sendEvents } from './send-events.js'
import type { ScenarioDecision } from '../scenarios/apply-scenario.js'
import { afterThisTurn } from '../internal/later.js'
import type { Reply } from './reply.js'

/**
 * Errors that answer a valid request as asked (by a scenario or a Prefer), or that refuse the mock's
 * own answer (`--errors`), rather than report a violation of the request.
 */
const ANSWERS_NOT_VIOLATIONS = new Set<MockError['kind']>([
  'forced_by_scenario',
  'undeclared_preference',
  'invalid_response',
  'upstream_failed',
  'upstream_timeout',
  'store_unavailable',
])

/** A valid request's violations: one empty list for all of them, not one a request that the journal keeps. */
const NO_VIOLATIONS: Violation[] = Object.freeze([]) as unknown as Violation[]

/** The journal's record, which is also the request line: with the line's `error` and `forcedBy`. */
type RecordedRequest = RequestRecord & Pick<RequestLine, 'error' | 'forcedBy'>

/**
 * Step 8, the one lifecycle point where a request is recorded, and then logged (the line is written
 * later, off the request path), and a 2xx answer's callbacks sent (after this turn: never before the
 * answer). `status` is 0 when a network fault sent no response.
 */
export function recordExchange(exchange: Exchange, deps: PipelineDeps, status: number): void {
  const { state, engine } = deps
  const { request } = exchange
  const mockError = isMockError(exchange.error) ? exchange.error : undefined
  // An error that answers the request as asked, or refuses the mock's own answer, says nothing against the request.
  const refused = mockError !== undefined && !ANSWERS_NOT_VIOLATIONS.has(mockError.kind) ? mockError : undefined
  const session = requestSession(request)
  const decision = exchange.decision
  const forced = forcedBy(exchange, mockError)
  // Every field in the literal, in one order, undefined where a request has none: records of every kind
  // (a 200, a 401, a forced 400) then share one shape. Fields added afterwards when present, and the
  // request line's copy with `error` added, gave each kind a shape of its own: the journal and the
  // request line read them through V8's slowest lookups, some 37k instructions an error answer (#19).
  const record: RecordedRequest = {
    // Numbered by the journal; here so that numbering it changes no shape (and allocates no property store).
    id: 0,
    time: exchange.time,
    method: request.method,
    path: request.path,
    query: request.rawQuery,
    operation: exchange.operation?.id,
    headers: request.headerSource,
    rawHeaders: request.rawHeaders,
    // The text the body was decoded to, where it was: one string to keep rather than a copy of its bytes.
    body: exchange.bodyText ?? exchange.body,
    status,
    scenario: (exchange.scenario ?? state.activeScenario(session)).name,
    session,
    valid: !refused && exchange.violations === undefined,
    violations: exchange.violations
      ? [...exchange.violations, ...(refused?.details ?? [])]
      : refused
        ? [...refused.details]
        : NO_VIOLATIONS,
    responseViolations: exchange.responseViolations,
    fault: decision?.fault,
    reason: reasonOf(exchange, status),
    data: exchange.dataEffect,
    proxied: exchange.proxied,
    proxy: exchange.proxy,
    // The rule that chose the answer, unless an error other than its own answered instead (a 406 after the choice).
    answeredBy:
      decision?.rule !== undefined && (mockError === undefined || isOwnError(decision, mockError))
        ? decision.rule.label
        : undefined,
    nearMiss: exchange.nearMiss,
    // A network fault sent none (status 0); otherwise the answer as built, handed over by reference.
    response: status === 0 ? undefined : exchange.answer,
    durationMs: Math.round((performance.now() - exchange.started) * 1000) / 1000,
    // The request line's own (the journal leaves them out): the error answered, what forced the status.
    error: mockError?.message,
    forcedBy: forced,
    replica: undefined,
  }
  state.coverage.count(record, exchange.operation)
  state.journal.recordRequest(record)
  const input = exchange.eventInput
  if (input !== undefined && status >= 200 && status < 300 && mockError === undefined)
    afterThisTurn(() => sendEvents(exchange, deps, input))
  // The record is the line, as it is (a copy of its fields cost 2.2 µs a request, #19); the logger
  // formats it at once, keeping nothing.
  engine.logger.request?.(record)
}

function isOwnError(decision: ScenarioDecision, error: MockError): boolean {
  return error === decision.forced || error === decision.refusal
}

/**
 * Why the request got its status (#13 §4), for the journal and the request line: the error answered,
 * else what forced the status, else that the description declares no 2xx; and a fault, named. A 2xx
 * answered as asked has none: the usual request pays a few property reads here.
 */
function reasonOf(exchange: Exchange, status: number): string | undefined {
  const fault = exchange.decision?.fault
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
  if (exchange.proxied !== undefined && exchange.proxy?.startsWith('forwarded'))
    return `the upstream answered ${status}`
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

/** What a `malformed` fault sent instead, its half body: every other answer is kept as built. */
export function answerSent({ status, headers, body }: Reply): AnswerSource {
  return { status, headers: headers as HeaderSource, body: body as string }
}

/** What chose the status, where neither the request nor the description did: a `Prefer` (or `__code`, `__example`), or a scenario. */
function forcedBy(exchange: Exchange, error: MockError | undefined): string | undefined {
  if (error?.kind === 'forced_by_scenario') return `scenario ${exchange.scenario?.name}`
  if (error !== undefined) return undefined
  const prefer = exchange.prefer
  if (prefer?.code !== undefined) return `${written('code', prefer.from)}${prefer.code}`
  // A named example of another status (`example=duplicate-id`, a 400's) chose that status.
  if (prefer?.example !== undefined) return `${written('example', prefer.from)}${prefer.example}`
  return exchange.decision?.forcedBy
}
