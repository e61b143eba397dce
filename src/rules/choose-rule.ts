import { isLosslessNumber } from 'lossless-json'
import type { AnswerRule, MatchRequest, Miss, RuleAnswer } from './rule.js'
import type { RuleCounters } from './rule-counters.js'

/** The rule that answers a request, and which of its answers (a sequence gives them in turn). */
export interface Chosen {
  rule: AnswerRule
  answer: RuleAnswer
}

/**
 * Why no rule answered, told of the closest one (WireMock's near miss): the first condition of it
 * that failed and the value read there, or `condition: -1` when all held but its `times` were used up.
 */
export interface NearMiss extends Miss {
  rule: AnswerRule
  /** How many of its conditions failed: fewer is closer. */
  failures: number
}

/** What a choice reads besides the rules: the request, the counters, and the exact body if a rule needs it. */
export interface Choosing {
  match: MatchRequest
  counters: RuleCounters
  /** The body read again with integers beyond 2^53 exact; asked once, by the first rule that compares one, then unset. */
  exactBody?: () => unknown
  /** Only rules that answer past violations may answer (the request broke the description). */
  onlySkipping: boolean
  /** Set when no rule answered and some had conditions. */
  nearMiss?: NearMiss
  /** Rules the shared store said have used up their `times` (`--store`): passed over as this process's own counts would be. */
  usedUp?: ReadonlySet<AnswerRule>
}

/**
 * The first rule of `rules` whose conditions hold and whose `times` are not used up. Its hit is
 * counted by the caller once the answer is decided (a request refused on the way, a 406, uses up
 * no step of a sequence); nothing awaits in between, so no other request reads the count. Conditions are all checked (each compiled once), so that the closest miss is known
 * without a second pass.
 */
export function chooseRule(rules: readonly AnswerRule[], choosing: Choosing): Chosen | undefined {
  const { match, counters } = choosing
  for (const rule of rules) {
    if (choosing.onlySkipping && !rule.skipsValidation) continue
    // A stub for one session sees only that session's requests.
    if (rule.session !== undefined && rule.session !== match.session) continue
    const { when } = rule
    if (when !== undefined) {
      if (when.readsExactBody && choosing.exactBody) {
        match.body = choosing.exactBody()
        choosing.exactBody = undefined
      }
      const miss = SCRATCH
      const failures = when.check(match, miss)
      if (failures > 0) {
        noteMiss(choosing, rule, failures, miss)
        continue
      }
    }
    const count = rule.times === undefined && rule.sequence === undefined ? 0 : counters.count(rule, match.session)
    if ((rule.times !== undefined && count >= rule.times) || choosing.usedUp?.has(rule)) {
      noteMiss(choosing, rule, 0, { condition: -1, actual: Math.max(count, rule.times ?? 0) })
      continue
    }
    return { rule, answer: answerAt(rule, count) }
  }
  return undefined
}

/** Whether the rule's answers are counted: it has `times` or a `sequence`. */
export function isCounted(rule: AnswerRule): boolean {
  return rule.times !== undefined || rule.sequence !== undefined
}

/** The answer of a rule that has answered `count` times: a sequence's in turn, the last repeating, or from the start again (`cycle`). */
export function answerAt(rule: AnswerRule, count: number): RuleAnswer {
  const { sequence } = rule
  if (!sequence) return rule.answer
  return sequence[rule.cycle ? count % sequence.length : Math.min(count, sequence.length - 1)]!
}

/** Reused for every check: a miss is copied out only when it is the closest so far. */
const SCRATCH: Miss = { condition: -1, actual: undefined }

/** Fewer failing conditions is closer; the first rule wins a tie. */
function noteMiss(choosing: Choosing, rule: AnswerRule, failures: number, miss: Miss): void {
  const best = choosing.nearMiss
  if (best !== undefined && failures >= best.failures) return
  choosing.nearMiss = { rule, failures, condition: miss.condition, actual: keptValue(miss.actual) }
}

/** Longest text of a value a near miss keeps: it lives as long as its journal entry. */
const KEPT_TEXT = 200

/** A value a near miss keeps: a scalar (a long string cut), or what kind of structure it was. */
function keptValue(value: unknown): unknown {
  if (typeof value === 'string') return value.length > KEPT_TEXT ? `${value.slice(0, KEPT_TEXT)}…` : value
  if (value === null || typeof value !== 'object') return value
  if (isLosslessNumber(value)) return value
  return Array.isArray(value) ? '(an array)' : '(an object)'
}
