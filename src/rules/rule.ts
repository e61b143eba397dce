import type { Delay } from '../common/config.js'
import type { RequestData } from '../common/request.js'
import type { Violation } from '../errors/index.js'
import type { DeclaredMedia, DeclaredResponse, ResponseSet, StaticBody } from '../responses/declared-responses.js'

/** Ways to break an answer on purpose, so a client's error paths can be tested. */
export const FAULTS = ['reset', 'empty', 'malformed', 'hang'] as const
export type Fault = (typeof FAULTS)[number]

/** The part of an operation scenarios look at. */
export interface ScenarioTarget {
  index: number
  id: string
  method: string
  path: string
  secured: boolean
  responses: ResponseSet
}

/**
 * What a rule or a stub says to answer: each field optional, unset ones change nothing. A scenario's
 * plain rule (`ScenarioRule`) is one of these; a runtime stub and a sequence step are too.
 */
export interface RuleAnswer {
  /** A declared status to answer with (its fixture, example or generated body). */
  status?: number
  /** A named fixture or example to serve. */
  example?: string
  dynamic?: boolean
  delay?: Delay
  fault?: Fault
  /** A streamed answer's pace and faults (#31 §2); `Prefer: stream-items=` and `stream-interval=` win over its pace. */
  stream?: StreamControl
  /** Answer 401 to secured operations, whatever the credentials (the built-in `unauthorized` scenario). */
  unauthorized?: boolean
  /** Answer this error status even though the operation declares no such response (the built-in `error` scenario). */
  forcedError?: number
  /** An inline body (a stub's or a rule's `body`), checked against the declared response when the rule was read. */
  body?: InlineBody
  /** Headers sent besides the response's own (over them), lower-case names. */
  headers?: Record<string, string>
  /** How its body or headers break the declared response: a stub accepted with `"force": true`; reported with each answer. */
  violations?: readonly Violation[]
}

/**
 * How a rule streams (#31 §2): how many items, how far apart, and a fault after some of them: `cut`
 * (the connection breaks after item N: no closing event, no end of the body), `stall` (nothing more
 * after item N, the stream left open until the client leaves) or `malformed` (item N is not JSON).
 */
export interface StreamControl {
  items?: number
  interval?: number
  cut?: number
  stall?: number
  malformed?: number
}

/** A rule's inline `body`: the declared response and JSON media type it is served as. */
export interface InlineBody {
  status: number
  response: DeclaredResponse
  media: DeclaredMedia
  body: StaticBody
}

/** Where a condition reads the request. */
export type ConditionSource = 'body' | 'query' | 'headers' | 'params' | 'cookies' | 'session'

/** What conditions read of one request. */
export interface MatchRequest {
  request: RequestData
  /** Path parameters as the router gives them: percent-encoded. */
  params: Record<string, string>
  /** The parsed body (`undefined` when none was read); integers beyond 2^53 as `LosslessNumber` where a condition compares one (`Conditions.readsExactBody`). */
  body: unknown
  session: string | undefined
}

/** How the closest rule missed: the first condition that failed and the value it read (`undefined`: absent). */
export interface Miss {
  condition: number
  actual: unknown
}

/** A rule's `when`, compiled once (start-up, or a stub's creation): never interpreted from text per request. */
export interface Conditions {
  /** How many conditions fail for this request (0: all hold); the first failure is written to `miss` when given. */
  check(request: MatchRequest, miss?: Miss): number
  /** How many conditions there are. */
  readonly count: number
  /** One condition as a user reads it: `body $.name equals "Poison Ivy"`. */
  describe(index: number): string
  /** Some condition compares an integer beyond 2^53 in the body: the body must be read exactly. */
  readonly readsExactBody: boolean
}

/** One compiled rule of an operation: a scenario's, or a runtime stub's. */
export interface AnswerRule {
  /** How the journal names it: `scenario default, addPlant rule 2`, `stub 3`. */
  label: string
  when?: Conditions
  /** Applies to the first N requests that match it, per session. */
  times?: number
  /** The answer, when the rule has no sequence. */
  answer: RuleAnswer
  /** Answers given in turn, one per matching request (per session); the last repeats unless `cycle`. */
  sequence?: readonly RuleAnswer[]
  cycle?: boolean
  /** `validate: false`: the request is answered past its violations, as `--validate report` does. */
  skipsValidation?: boolean
  /** A stub for one session sees only that session's requests. */
  session?: string
  /** The id of the stub this rule is; `undefined` for a scenario's rule. */
  stub?: number
}

/** Whether the rule answers with generated bodies (`dynamic: true`), itself or in a step of its sequence. */
export function generates(rule: AnswerRule): boolean {
  return rule.answer.dynamic === true || rule.sequence?.some((step) => step.dynamic === true) === true
}

/** A rule that answers whatever the request and however often: the fast path, decided before security. */
export function isPlain(rule: AnswerRule): boolean {
  return rule.when === undefined && rule.times === undefined && rule.sequence === undefined && !rule.skipsValidation
}
