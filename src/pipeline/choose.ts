import type { CompiledOperation } from '../engine/compile-operation.js'
import { errors, isMockError } from '../errors/index.js'
import { requestSession } from '../common/request.js'
import { type Preferences, parsePrefer } from '../responses/prefer.js'
import { type QueryPreferences, withQueryPreferences } from '../responses/query-preferences.js'
import { type Chosen, type Choosing, answerAt, chooseRule, isCounted } from '../rules/choose-rule.js'
import { type AnswerRule, isPlain } from '../rules/rule.js'
import { type RuleOwner, applyRule } from '../scenarios/apply-scenario.js'
import type { Scenario } from '../scenarios/scenarios.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import type { SharedCounts } from '../engine/shared-store.js'
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

/**
 * A rule's answer claimed in the shared store but then not given (a 406 found after the choice): its
 * count is given back, as in memory, where such a request uses up no step.
 */
export function unclaim(exchange: Exchange, { state }: PipelineDeps): Promise<void> | undefined {
  const choice = exchange.choice
  if (!choice?.claimed || !choice.chosen) return undefined
  choice.claimed = false
  return state.sharedCounts?.release(choice.chosen.label, requestSession(exchange.request))
}

export function mayAnswerPastViolations({ stubs, rules }: RuleChoice): boolean {
  return stubs.skipping || (rules?.some((rule) => rule.skipsValidation) ?? false)
}

/**
 * 4b. Choose the rule that answers, where the operation has stubs or rules with conditions or counts
 * (`chooseRule`): the first stub that applies, else the first rule of the scenario, else the default
 * answer. A `Prefer` that picks a status or example answers instead, and counts no rule. Where none
 * applies while some had conditions, the closest miss is kept for the journal. With a shared store
 * (`--store`) a counted rule's answer is claimed there first (`claimShared`): then, and only then, the
 * step returns a promise.
 */
export function chooseStep(
  exchange: Exchange,
  { state }: PipelineDeps,
  operation: CompiledOperation,
  prefer: Preferences,
  { params, value }: { params: Record<string, string>; value: unknown },
): Promise<void> | undefined {
  const choice = exchange.choice!
  const { request } = exchange
  const refused = choice.strict === true && exchange.violations !== undefined
  if (prefer.code !== undefined || prefer.example !== undefined)
    return decideChosen(exchange, operation, prefer, refused)
  const choosing: Choosing = {
    match: { request, params, body: value, session: requestSession(request) },
    counters: state.counters,
    exactBody: () => exactRequestBody(exchange, value),
    onlySkipping: refused,
  }
  const choose = () => chooseRule(choice.stubs.rules, choosing) ?? (choice.rules && chooseRule(choice.rules, choosing))
  const chosen = choose()
  if (chosen && state.sharedCounts && isCounted(chosen.rule))
    return claimShared(state.sharedCounts, chosen, choosing, choose).then((claimed) => {
      if (claimed && isCounted(claimed.rule)) choice.claimed = true
      return decideChosen(exchange, operation, prefer, refused, claimed, choosing)
    })
  return decideChosen(exchange, operation, prefer, refused, chosen, choosing)
}

/** The chosen rule's answer, or the request's violations when it was refused and no rule answers past them. */
function decideChosen(
  exchange: Exchange,
  operation: CompiledOperation,
  prefer: Preferences,
  refused: boolean,
  chosen?: Chosen,
  choosing?: Choosing,
): undefined {
  if (!chosen && choosing?.nearMiss) exchange.nearMiss = choosing.nearMiss
  if (refused && !chosen?.rule.skipsValidation) {
    const violations = exchange.violations!
    exchange.violations = undefined
    throw errors.invalidRequest(operation.responses.violationStatus, violations)
  }
  if (!chosen) return
  exchange.choice!.chosen = chosen.rule
  exchange.decision = applyRule(
    ownerOf(exchange.scenario!, chosen.rule),
    chosen.rule,
    chosen.answer,
    prefer,
    operation.id,
  )
}

/**
 * A counted rule's answer claimed in the shared store, so that `times` and `sequence` count over every
 * replica: the step its count gives, or, where the store says its `times` are used up, the next rule
 * that applies (each passed over once, so the tries end).
 */
async function claimShared(
  counts: SharedCounts,
  first: Chosen,
  choosing: Choosing,
  choose: () => Chosen | undefined,
): Promise<Chosen | undefined> {
  const usedUp = new Set<AnswerRule>()
  choosing.usedUp = usedUp
  let chosen: Chosen | undefined = first
  while (chosen && isCounted(chosen.rule) && !usedUp.has(chosen.rule)) {
    const { rule } = chosen
    const count = await counts.claim(rule.label, choosing.match.session, rule.times)
    if (count >= 0) return { rule, answer: answerAt(rule, count) }
    usedUp.add(rule)
    chosen = choose()
  }
  return chosen
}
