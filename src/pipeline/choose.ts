import type { CompiledOperation } from '../engine/compile-operation.js'
import { errors, isMockError } from '../errors/index.js'
import { requestSession } from '../common/request.js'
import { type Preferences, parsePrefer } from '../responses/prefer.js'
import { type QueryPreferences, withQueryPreferences } from '../responses/query-preferences.js'
import { type Chosen, type Choosing, chooseRule } from '../rules/choose-rule.js'
import { type AnswerRule, isPlain } from '../rules/rule.js'
import { type RuleOwner, applyRule } from '../scenarios/apply-scenario.js'
import type { Scenario } from '../scenarios/scenarios.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import type { Exchange, PipelineDeps, RuleChoice } from './exchange.js'
import { exactRequestBody } from './request-body.js'

/**
 * 2. Scenario: named by the request, else the session's, else the active one. A rule that answers
 * whatever the request (every built-in one) is decided here, as data (`applyRule`), and applied at
 * steps 3, 5 and 7; rules with conditions or counts, and stubs, are chosen once the request is read
 * (step 4b). `Prefer` is read here too: the rule refines it, and step 4 reads its `validate=`.
 */
export function scenarioStep(
  exchange: Exchange,
  { state }: PipelineDeps,
  operation: CompiledOperation,
  query: QueryPreferences | undefined,
): Preferences {
  const { request } = exchange
  const named = request.header('x-mock-scenario')
  const scenario = named ? findScenario(state, named, operation) : state.activeScenario(requestSession(request))
  exchange.scenario = scenario
  const prefer = query
    ? withQueryPreferences(parsePrefer(request.header('prefer')), query)
    : parsePrefer(request.header('prefer'))
  const rules = scenario.rules[operation.index]
  const plain = rules !== undefined && rules.length === 1 && isPlain(rules[0]!) ? rules[0] : undefined
  exchange.decision = plain
    ? applyRule(ownerOf(scenario, plain), plain, plain.answer, prefer, operation.id)
    : { preferences: prefer }
  const stubs = state.stubs.of(operation.index)
  if (stubs.rules.length > 0 || (rules !== undefined && plain === undefined))
    exchange.choice = { stubs, rules: plain ? undefined : rules }
  return prefer
}

/** A stub is named by itself (`stub 3`), a scenario's rule by its scenario. */
function ownerOf(scenario: Scenario, rule: AnswerRule): RuleOwner {
  return { scenario: scenario.name, by: rule.stub === undefined ? `scenario ${scenario.name}` : rule.label }
}

/** A scenario the request names (`X-Mock-Scenario`): one the mock does not know is the request's mistake. */
function findScenario(state: RuntimeState, name: string, operation: CompiledOperation): Scenario {
  try {
    return state.findScenario(name)
  } catch (error) {
    // The request names it, so the request is wrong: answer with the operation's violation status.
    if (isMockError(error))
      throw errors.unknownScenario(
        operation.responses.violationStatus,
        name,
        state.listScenarios().map((s) => s.name),
      )
    throw error
  }
}

/** The chosen rule's hit, counted once the answer is decided: what `times` and `sequence` read next. */
export function countHit(exchange: Exchange, { state }: PipelineDeps): void {
  const rule = exchange.choice?.chosen
  if (rule) state.counters.hit(rule, requestSession(exchange.request))
}

export function mayAnswerPastViolations({ stubs, rules }: RuleChoice): boolean {
  return stubs.skipping || (rules?.some((rule) => rule.skipsValidation) ?? false)
}

/**
 * 4b. Choose the rule that answers, where the operation has stubs or rules with conditions or counts
 * (`chooseRule`): the first stub that applies, else the first rule of the scenario, else the default
 * answer. A `Prefer` that picks a status or example answers instead, and counts no rule. Where none
 * applies while some had conditions, the closest miss is kept for the journal.
 */
export function chooseStep(
  exchange: Exchange,
  { state }: PipelineDeps,
  operation: CompiledOperation,
  prefer: Preferences,
  { params, value }: { params: Record<string, string>; value: unknown },
): void {
  const choice = exchange.choice!
  const { request } = exchange
  const refused = choice.strict === true && exchange.violations !== undefined
  let chosen: Chosen | undefined
  if (prefer.code === undefined && prefer.example === undefined) {
    const choosing: Choosing = {
      match: { request, params, body: value, session: requestSession(request) },
      counters: state.counters,
      exactBody: () => exactRequestBody(exchange, value),
      onlySkipping: refused,
    }
    chosen = chooseRule(choice.stubs.rules, choosing) ?? (choice.rules && chooseRule(choice.rules, choosing))
    if (!chosen && choosing.nearMiss) exchange.nearMiss = choosing.nearMiss
  }
  if (refused && !chosen?.rule.skipsValidation) {
    const violations = exchange.violations!
    exchange.violations = undefined
    throw errors.invalidRequest(operation.responses.violationStatus, violations)
  }
  if (!chosen) return
  choice.chosen = chosen.rule
  exchange.decision = applyRule(
    ownerOf(exchange.scenario!, chosen.rule),
    chosen.rule,
    chosen.answer,
    prefer,
    operation.id,
  )
}
