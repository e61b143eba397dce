import { type MockError, type Violation, errors } from '../errors/index.js'
import type { Preferences } from '../responses/prefer.js'
import type { Delay } from '../common/config.js'
import type { AnswerRule, Fault, InlineBody, RuleAnswer, StreamControl } from '../rules/rule.js'

/**
 * What a scenario's rule or a stub makes of one request, decided before anything is answered
 * (prism's negotiator keeps the decision apart from the assembly the same way): plain data the
 * pipeline applies, each part at its step. The one place a rule's answer is read.
 */
export interface ScenarioDecision {
  /** The rule refuses every credential: answered right after security (step 3). */
  refusal?: MockError
  /** The rule answers an error the operation does not declare, unless Prefer picks a status or example: answered after validation (step 5). */
  forced?: MockError
  /** Prefer, refined by the rule: Prefer wins (step 5). */
  preferences: Preferences
  /** The rule's latency, where it sets one; else the mock's (`--delay`). */
  delay?: Delay
  fault?: Fault
  /** The rule's stream control: its fault (`cut`, `stall`, `malformed`) is the stream's (#31 §2). */
  stream?: StreamControl
  /** What picks the status, where the rule does: `scenario duplicate-plant`, `stub 3` (the request line's "forced by …"). */
  forcedBy?: string
  /** The rule or stub that answered, named in the journal (`answeredBy`). */
  rule?: AnswerRule
  /** The rule's own body, served unless Prefer picks a status or example. */
  inline?: InlineBody
  /** Headers the rule adds to the answer. */
  headers?: Record<string, string>
  /** How the rule's own body or headers break the declared response (a forced stub): reported with the answer. */
  violations?: readonly Violation[]
}

/** Whose rule answers: the scenario in force, and what the rule belongs to (`scenario error`, `stub 3`). */
export interface RuleOwner {
  scenario: string
  by: string
}

/** The decision of one rule's answer. A `Prefer` that picks a status or an example wins over the rule's status, example and body. */
export function applyRule(
  { scenario, by }: RuleOwner,
  rule: AnswerRule | undefined,
  answer: RuleAnswer | undefined,
  prefer: Preferences,
  operationId: string,
): ScenarioDecision {
  if (!rule || !answer) return { preferences: prefer }
  const pickedByPrefer = prefer.code !== undefined || prefer.example !== undefined
  const decision: ScenarioDecision = {
    preferences: {
      code: pickedByPrefer ? prefer.code : answer.status,
      example: pickedByPrefer ? prefer.example : answer.example,
      dynamic: prefer.dynamic ?? answer.dynamic,
      delay: prefer.delay,
      from: prefer.from,
      streamItems: prefer.streamItems ?? answer.stream?.items,
      streamInterval: prefer.streamInterval ?? answer.stream?.interval,
    },
    delay: answer.delay,
    fault: answer.fault,
    stream: answer.stream,
    rule,
  }
  if (answer.status !== undefined || answer.body !== undefined) decision.forcedBy = by
  if (answer.unauthorized) decision.refusal = errors.scenarioRefusesCredentials(scenario)
  if (answer.forcedError && !pickedByPrefer)
    decision.forced = errors.forcedByScenario(answer.forcedError, scenario, operationId)
  if (answer.body && !pickedByPrefer) decision.inline = answer.body
  if (answer.headers && !pickedByPrefer) decision.headers = answer.headers
  if (answer.violations && !pickedByPrefer) decision.violations = answer.violations
  return decision
}
