import { type MockError, errors } from '../errors.js'
import type { Preferences } from '../responses/prefer.js'
import type { Delay } from '../config.js'
import type { Fault, Scenario, ScenarioRule } from './scenarios.js'

/**
 * What a scenario makes of one request, decided before anything is answered (prism's negotiator
 * keeps the decision apart from the assembly the same way): plain data the pipeline applies, each
 * part at its step. The one place a scenario rule is read.
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
  /** The rule picks the status (for the request line's "forced by scenario …"). */
  choosesStatus?: boolean
}

export function applyScenario(
  scenario: Scenario,
  rule: ScenarioRule | undefined,
  prefer: Preferences,
  operationId: string,
): ScenarioDecision {
  if (!rule) return { preferences: prefer }
  const decision: ScenarioDecision = {
    preferences: withScenarioRule(prefer, rule),
    delay: rule.delay,
    fault: rule.fault,
    choosesStatus: rule.status !== undefined,
  }
  if (rule.unauthorized) decision.refusal = errors.scenarioRefusesCredentials(scenario.name)
  if (rule.forcedError && prefer.code === undefined && prefer.example === undefined)
    decision.forced = errors.forcedByScenario(rule.forcedError, scenario.name, operationId)
  return decision
}

/**
 * A scenario rule says what to answer; `Prefer` on the request says it more finely and wins.
 * Status and example go together: a `Prefer` naming either replaces the rule's pair.
 */
function withScenarioRule(prefer: Preferences, rule: ScenarioRule | undefined): Preferences {
  if (!rule) return prefer
  const pickedByPrefer = prefer.code !== undefined || prefer.example !== undefined
  return {
    code: pickedByPrefer ? prefer.code : rule.status,
    example: pickedByPrefer ? prefer.example : rule.example,
    dynamic: prefer.dynamic ?? rule.dynamic,
    delay: prefer.delay,
    from: prefer.from,
  }
}
