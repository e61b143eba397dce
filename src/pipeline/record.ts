import { requestSession } from '../request.js'
import { type MockError, isMockError } from '../errors.js'
import type { AnswerSource, RequestRecord } from '../journal/journal.js'
import { written } from '../responses/prefer.js'
import type { Fault } from '../scenarios/scenarios.js'
import type { Exchange, PipelineDeps } from './exchange.js'
import { sendEvents } from '../events/send-events.js'
import type { ScenarioDecision } from '../scenarios/apply-scenario.js'

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
])

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
  const record: RequestRecord = {
    time: exchange.time,
    method: request.method,
    path: request.path,
    query: request.rawQuery,
    operation: exchange.operation?.id,
    headers: request.headerSource,
    body: exchange.body,
    status,
    scenario: (exchange.scenario ?? state.activeScenario(session)).name,
    session,
    valid: !refused && exchange.violations === undefined,
    violations: exchange.violations
      ? [...exchange.violations, ...(refused?.details ?? [])]
      : refused
        ? [...refused.details]
        : [],
    fault: exchange.decision?.fault,
    // A network fault sent none (status 0); otherwise the answer as built, by reference.
    response: status === 0 ? undefined : exchange.answer,
    durationMs: Math.round((performance.now() - exchange.started) * 1000) / 1000,
  }
  if (exchange.responseViolations) record.responseViolations = [...exchange.responseViolations]
  // Set only when there is one, as responseViolations: a field the usual record carries costs every request its copy (~0.1 µs).
  const reason = reasonOf(exchange, status)
  if (reason !== undefined) record.reason = reason
  if (exchange.dataEffect !== undefined) record.data = exchange.dataEffect
  if (exchange.proxied !== undefined) record.proxied = exchange.proxied
  if (exchange.proxy !== undefined) record.proxy = exchange.proxy
  // The rule that chose the answer, unless an error other than its own answered instead (a 406 after the choice).
  const decision = exchange.decision
  if (decision?.rule !== undefined && (mockError === undefined || isOwnError(decision, mockError)))
    record.answeredBy = decision.rule.label
  if (exchange.nearMiss !== undefined) record.nearMiss = exchange.nearMiss
  state.journal.recordRequest(record)
  const input = exchange.eventInput
  if (input !== undefined && status >= 200 && status < 300 && mockError === undefined)
    setImmediate(() => sendEvents(exchange, deps, input))
  const logger = engine.logger
  if (logger.request) {
    // The record is the line, as it is: only an error or a forced status makes a copy with them (a
    // spread of its fields cost 2.2 µs a request, #19). The logger formats it at once, keeping nothing.
    const forced = forcedBy(exchange, mockError)
    logger.request(
      mockError === undefined && forced === undefined
        ? record
        : { ...record, error: mockError?.message, forcedBy: forced },
    )
  }
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

/**
 * What a `malformed` fault sent instead: read back from its Response, a clone of it. Only this
 * fault's answers pay for it; every other answer is kept as built.
 */
export async function answerSent(response: Response): Promise<AnswerSource> {
  return { status: response.status, headers: response.headers, body: await response.clone().text() }
}

/** What chose the status, where neither the request nor the description did: a `Prefer` (or `__code`), or a scenario. */
function forcedBy(exchange: Exchange, error: MockError | undefined): string | undefined {
  if (error?.kind === 'forced_by_scenario') return `scenario ${exchange.scenario?.name}`
  if (error !== undefined) return undefined
  const code = exchange.prefer?.code
  if (code !== undefined) return `${written('code', exchange.prefer!.from)}${code}`
  return exchange.decision?.forcedBy
}
