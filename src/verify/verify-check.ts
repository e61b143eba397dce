import type { JournalEntry } from '../journal/journal-entry.js'
import type { StatusClass } from '../journal/journal-filter.js'
import type { Conditions } from '../rules/rule.js'
import type { RuleTarget } from '../rules/read-rule.js'

/**
 * `mock.verify()`: how many requests to one operation the journal holds that got `status` and meet
 * the conditions, which are written as in a stub's `when` (`body`, `query`, `headers`, `params`, or
 * `when` itself). Without `times`, `atLeast` or `atMost`: at least one.
 */
export interface RequestCheck {
  /** operationId, or `METHOD /path`. */
  operation: string
  /** An exact status, or a class such as `4xx`. */
  status?: number | StatusClass
  /** Exactly this many (0: never). */
  times?: number
  atLeast?: number
  atMost?: number
  /** Only this `X-Mock-Session`'s requests. */
  session?: string
  body?: Record<string, unknown>
  query?: Record<string, unknown>
  headers?: Record<string, unknown>
  params?: Record<string, unknown>
  /** The same conditions in a stub's shape; a place may be given here or beside it, not both. */
  when?: Record<string, unknown>
}

/** How many matching requests pass: `exactly`, or from `atLeast` to `atMost`. */
export interface Expected {
  exactly?: number
  atLeast?: number
  atMost?: number
}

/** One check, read and compiled against the description. */
export type Check =
  | {
      kind: 'requests'
      /** As written, for the failure's JSON. */
      written: Record<string, unknown>
      target: RuleTarget
      status?: number | StatusClass
      expected: Expected
      when?: Conditions
      /** A condition reads path parameters: the path is matched again to find them. */
      readsParams: boolean
    }
  | { kind: 'noUnmatched' | 'noViolations' | 'allStubsUsed'; written: Record<string, unknown> }

/** What a run of checks reads: the journal's entries of the session checked, and the stubs' hits in it. */
export interface VerifyInput {
  /** Oldest first, as the journal lists them (redacted), of the session checked when one is. */
  entries: readonly JournalEntry[]
  /** Requests the journal had let go of (over every worker with `--workers`). */
  dropped: number
  stubs: readonly StubUse[]
}

/** A runtime stub and how often it answered (in the session checked, when one is). */
export interface StubUse {
  id: number
  operation: string
  session?: string
  hits: number
}
