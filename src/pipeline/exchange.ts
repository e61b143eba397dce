import type { CompiledOperation } from '../engine/compile-operation.js'
import type { Engine } from '../engine/engine.js'
import type { MockError, Violation } from '../errors/index.js'
import type { AnswerSource } from '../journal/journal.js'
import type { NearMiss } from '../rules/choose-rule.js'
import type { EventInput } from './send-events.js'
import type { AnswerRule } from '../rules/rule.js'
import type { OperationStubs } from '../rules/stubs.js'
import type { RequestData } from '../common/request.js'
import type { Preferences } from '../responses/prefer.js'
import type { ScenarioDecision } from '../scenarios/apply-scenario.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import type { Scenario } from '../scenarios/scenarios.js'
import type { HeldAnswers } from './held-answers.js'
import type { Reply } from './reply.js'

/** The mock's own pages (`GET /`, the favicon), asked after routing has missed; `undefined` leaves the 404. */
export type AnswerOwnPage = (request: RequestData, miss: MockError) => Reply | undefined

/** What one request learns on its way through the pipeline; the journal reads it at the end. */
export interface Exchange {
  request: RequestData
  /** Arrival, in ms since the epoch, and on the monotonic clock for the duration. */
  time: number
  started: number
  operation?: CompiledOperation
  scenario?: Scenario
  /** What the scenario makes of this request (step 2), applied at steps 3, 5 and 7. */
  decision?: ScenarioDecision
  /** Stubs and rules with conditions or counts, to choose among once the request is read (step 4b); set only when the operation has some. */
  choice?: RuleChoice
  /** Why no rule with conditions answered: the closest one's first failing condition (the journal's `nearMiss`). */
  nearMiss?: NearMiss
  /** Set once the request is valid (step 5): only then does its `Prefer: delay=` count. */
  prefer?: Preferences
  /** The example a refused request's `Prefer: example=` (or `__example=`) names: its error answer takes that body (#30). Set only when there is one. */
  errorExample?: string
  body?: Uint8Array
  /** The body as the text its media type was decoded to (JSON): what the journal keeps instead of a copy of its bytes. Set only when decoded. */
  bodyText?: string
  /** What the pipeline threw, if it threw: the journal tells violations from answers by it. */
  error?: unknown
  /** The request's violations, answered past (`--validate report`, or an unreadable body under `off`); set only when there are some. */
  violations?: Violation[]
  /** How the answer breaks the operation's declared response, as far as the mock knows; set only when it does. */
  responseViolations?: readonly Violation[]
  /**
   * The answer as built, where its `Reply` is made: the rendered body and header object, by reference
   * (a streamed body is never read back). The journal lists it.
   */
  answer?: AnswerSource
  /** Proxy mode: the upstream URL the request was forwarded to; set only when it was. */
  proxied?: string
  /** Proxy mode: whether the upstream or the mock answered, and why (the journal's `proxy`). */
  proxy?: string
  /** What the request did to the data (`--stateful`): `created plants/1`; set only when it changed some. */
  dataEffect?: string
  /** What the events a 2xx answer sends read of the request; set only for an operation that sends some (`sendsEvents`). */
  eventInput?: EventInput
  /** The message of the error answered, which may not be `error` (`--errors` answers a 500 instead). */
  reason?: string
}

/** The rules a request of an operation chooses among at step 4b: the stubs first, then the scenario's. */
export interface RuleChoice {
  stubs: OperationStubs
  /** The scenario's rules, unless its one plain rule was applied at step 2. */
  rules?: readonly AnswerRule[]
  /** Validation ran as `report` because a rule may answer past violations; the others still refuse them. */
  strict?: boolean
  /** The rule or stub chosen at step 4b, counted once the answer is decided (step 5). */
  chosen?: AnswerRule
  /** Its answer was counted already, in the shared store (`--store`): given back if the answer is not given. */
  claimed?: boolean
}

/** What every step may read, built once per app (fastify's route context plays this part). */
export interface PipelineDeps {
  engine: Engine
  state: RuntimeState
  /** The mock's own `GET /` index and quiet favicon, looked for only after routing has missed. */
  answerOwnPage: AnswerOwnPage
  /** Answers waiting on a delay or a `hang` fault right now (`MAX_HELD_ANSWERS`), woken when the server closes. */
  held: HeldAnswers
}
