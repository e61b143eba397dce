import type { AnswerRule } from './rule.js'

/** Sessions whose counters are kept at most; the least recently counted are forgotten first. */
const MAX_SESSIONS = 10_000
/** Requests without `X-Mock-Session` count together, under this key (a session name is never empty). */
const NO_SESSION = ''

/**
 * How often each rule and stub has answered, per session: what `times` and `sequence` read, and
 * what the admin API shows. Emptied by reset (all, or one session's).
 */
export class RuleCounters {
  private readonly bySession = new Map<string, Map<AnswerRule, number>>()

  count(rule: AnswerRule, session: string | undefined): number {
    return this.bySession.get(session ?? NO_SESSION)?.get(rule) ?? 0
  }

  hit(rule: AnswerRule, session: string | undefined): void {
    const key = session ?? NO_SESSION
    let counts = this.bySession.get(key)
    if (counts === undefined) {
      if (this.bySession.size >= MAX_SESSIONS) this.bySession.delete(this.bySession.keys().next().value!)
      counts = new Map()
    } else {
      // Counted last, forgotten last: the map's order is the order of use.
      this.bySession.delete(key)
    }
    this.bySession.set(key, counts)
    counts.set(rule, (counts.get(rule) ?? 0) + 1)
  }

  /** Every rule that has answered in the session (or without one), with its count. */
  counted(session: string | undefined): ReadonlyMap<AnswerRule, number> {
    return this.bySession.get(session ?? NO_SESSION) ?? EMPTY
  }

  /** Hits over every session: a stub's total. */
  total(rule: AnswerRule): number {
    let sum = 0
    for (const counts of this.bySession.values()) sum += counts.get(rule) ?? 0
    return sum
  }

  /** A removed stub's counts go with it. */
  forget(rule: AnswerRule): void {
    for (const counts of this.bySession.values()) counts.delete(rule)
  }

  reset(session?: string): void {
    if (session === undefined) this.bySession.clear()
    else this.bySession.delete(session)
  }
}

const EMPTY: ReadonlyMap<AnswerRule, number> = new Map()
