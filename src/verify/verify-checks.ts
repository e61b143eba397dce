import { isLosslessNumber } from 'lossless-json'
import { exactBodyOf } from '../internal/exact-values.js'
import type { JournalEntry } from '../journal/journal-entry.js'
import { matchesStatus } from '../journal/journal-filter.js'
import type { MatchRequest, Miss } from '../rules/rule.js'
import type { Check, Expected, VerifyInput } from './verify-check.js'

/** Requests, near misses or stubs a failure lists, at most: enough to see why, short enough to read. */
const MAX_LISTED = 10

/** A request the journal holds, as a failure names it. */
export interface RequestSeen {
  id: number
  method: string
  path: string
  query?: string
  operation?: string
  status: number
  session?: string
  /** `noViolations`: how the request broke the description. */
  violations?: string[]
}

/** A request to the operation checked (or, when none reached it, any request) that missed: what failed, and the value it had. */
export interface NearMissSeen extends RequestSeen {
  mismatches: Array<{ condition: string; actual?: string }>
}

/** One check that failed, as `POST /__mock/verify` answers it and `VerificationError.failures` holds it. */
export interface VerifyFailure {
  /** Which check: a count of requests, or one of the flags. */
  kind: Check['kind']
  /** The check as written. */
  check: Record<string, unknown>
  /** What was checked, in words, after `expected`: `to addPlant answered 400`, `that matched no operation`. */
  title: string
  /** How many: `exactly 1 request`, `at least 1 request`, `no request`, `no runtime stub`. */
  expected: string
  /** How many requests matched (or broke the rule, or stubs were unused). */
  found: number
  /** The requests that matched (too many) or that broke the rule, oldest first, at most 10. */
  requests?: RequestSeen[]
  /** Closest first, at most 10. */
  nearMisses?: NearMissSeen[]
  stubs?: Array<{ id: number; operation: string; session?: string }>
}

export interface VerifyOutcome {
  ok: boolean
  checked: number
  /** Requests the journal had let go of: a check could not see them. */
  dropped: number
  failures: VerifyFailure[]
}

/** Where a request check finds path parameters: the journal keeps the path, not what the router read of it. */
export type ParamsOf = (entry: JournalEntry) => Record<string, string>

/**
 * Runs every check over the journal's entries and the stubs' hits (those of `session`, when one is
 * checked: the input is already of that session); none throws.
 */
export function verifyChecks(
  checks: readonly Check[],
  input: VerifyInput,
  paramsOf: ParamsOf,
  session?: string,
): VerifyOutcome {
  const scope = session === undefined ? '' : ` in session ${JSON.stringify(session)}`
  const failures: VerifyFailure[] = []
  for (const check of checks) {
    const failure = runCheck(check, input, paramsOf, scope)
    if (failure) failures.push(failure)
  }
  return { ok: failures.length === 0, checked: checks.length, dropped: input.dropped, failures }
}

function runCheck(check: Check, input: VerifyInput, paramsOf: ParamsOf, scope: string): VerifyFailure | undefined {
  const { entries } = input
  switch (check.kind) {
    case 'requests':
      return checkRequests(check, entries, paramsOf, scope)
    case 'noUnmatched':
      return listed(check, `that matched no operation${scope}`, entries, (e) => e.operation === undefined)
    case 'noViolations':
      return listed(check, `that broke the description${scope}`, entries, (e) => !e.valid)
    case 'allStubsUsed': {
      const unused = input.stubs.filter((stub) => stub.hits === 0)
      if (unused.length === 0) return undefined
      return {
        kind: check.kind,
        check: check.written,
        title: `that never answered${scope}`,
        expected: 'no runtime stub',
        found: unused.length,
        stubs: unused
          .slice(0, MAX_LISTED)
          .map(({ id, operation, session }) =>
            session === undefined ? { id, operation } : { id, operation, session },
          ),
      }
    }
  }
}

/** A check that no entry is `bad`: fails listing those that are. */
function listed(
  { kind, written }: Check,
  title: string,
  entries: readonly JournalEntry[],
  bad: (entry: JournalEntry) => boolean,
): VerifyFailure | undefined {
  const found = entries.filter(bad)
  if (found.length === 0) return undefined
  return {
    kind,
    check: written,
    title,
    expected: 'no request',
    found: found.length,
    requests: found.slice(0, MAX_LISTED).map(seen),
  }
}

type RequestsCheck = Extract<Check, { kind: 'requests' }>

function checkRequests(
  check: RequestsCheck,
  entries: readonly JournalEntry[],
  paramsOf: ParamsOf,
  scope: string,
): VerifyFailure | undefined {
  const matched: JournalEntry[] = []
  const near: Array<{ entry: JournalEntry; failures: number; seen: NearMissSeen }> = []
  const others: JournalEntry[] = []
  for (const entry of entries) {
    if (entry.operation !== check.target.id) {
      others.push(entry)
      continue
    }
    const mismatches: NearMissSeen['mismatches'] = []
    let failures = 0
    if (check.status !== undefined && !matchesStatus(entry.status, check.status)) {
      failures++
      mismatches.push({ condition: `status ${check.status}`, actual: String(entry.status) })
    }
    if (check.when) {
      const miss: Miss = { condition: -1, actual: undefined }
      const failing = check.when.check(matchRequestOf(entry, check, paramsOf), miss)
      if (failing > 0) {
        failures += failing
        mismatches.push(conditionMiss(check, miss, failing))
      }
    }
    if (failures === 0) matched.push(entry)
    else near.push({ entry, failures, seen: { ...seen(entry), mismatches } })
  }
  if (meets(check.expected, matched.length)) return undefined
  const failure: VerifyFailure = {
    kind: 'requests',
    check: check.written,
    title: titleOf(check, scope),
    expected: expectedText(check.expected),
    found: matched.length,
  }
  if (matched.length) failure.requests = matched.slice(0, MAX_LISTED).map(seen)
  // Too many is told by the requests that matched; too few by the closest that did not.
  if (tooFew(check.expected, matched.length)) {
    const nearMisses = near.length
      ? near.sort((a, b) => a.failures - b.failures || a.entry.id - b.entry.id).map((n) => n.seen)
      : others.map((entry) => ({
          ...seen(entry),
          mismatches: [
            { condition: `operation ${check.target.id}`, actual: entry.operation ?? '(none: it matched no operation)' },
          ],
        }))
    if (nearMisses.length) failure.nearMisses = nearMisses.slice(0, MAX_LISTED)
  }
  return failure
}

/** The first condition that failed and the value read there; and how many more failed. */
function conditionMiss(check: RequestsCheck, miss: Miss, failing: number): { condition: string; actual?: string } {
  let condition = check.when!.describe(miss.condition)
  if (failing > 1) condition += ` (and ${failing - 1} more condition${failing > 2 ? 's' : ''})`
  return miss.actual === undefined ? { condition } : { condition, actual: shownValue(miss.actual) }
}

/** A value as a near miss shows it: a string quoted, a structure named, long text cut. */
function shownValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value)
  if (value === null || typeof value !== 'object' || isLosslessNumber(value)) return String(value)
  return Array.isArray(value) ? '(an array)' : '(an object)'
}

/** What a condition reads of a journaled request: its headers (redacted as listed), query, JSON body, session, and path parameters. */
function matchRequestOf(entry: JournalEntry, check: RequestsCheck, paramsOf: ParamsOf): MatchRequest {
  let query: URLSearchParams | undefined
  const header = (name: string) => entry.headers[name]
  return {
    request: {
      method: entry.method,
      path: entry.path,
      rawQuery: entry.query,
      headerSource: entry.headers,
      header,
      query: () => (query ??= new URLSearchParams(entry.query)),
      cookie: () => undefined,
    },
    params: check.readsParams ? paramsOf(entry) : {},
    body: bodyOf(entry, check.when!.readsExactBody),
    session: entry.session,
  }
}

/** The journaled body as JSON; none when there was none, it was cut at 64 KiB, or it is no JSON. */
function bodyOf(entry: JournalEntry, exact: boolean): unknown {
  if (entry.body === undefined || entry.bodyTruncated) return undefined
  try {
    const value: unknown = JSON.parse(entry.body)
    return exact ? exactBodyOf(value, () => entry.body!) : value
  } catch {
    return undefined
  }
}

function seen(entry: JournalEntry): RequestSeen {
  const request: RequestSeen = { id: entry.id, method: entry.method, path: entry.path, status: entry.status }
  if (entry.query) request.query = entry.query
  if (entry.operation !== undefined) request.operation = entry.operation
  if (entry.session !== undefined) request.session = entry.session
  if (entry.violations.length) request.violations = entry.violations.map((v) => `${v.path} ${v.message}`)
  // A 404, a 405 or a 401 breaks the description with no violation of a field: its reason says how.
  else if (!entry.valid && entry.reason !== undefined) request.violations = [entry.reason]
  return request
}

function meets({ exactly, atLeast, atMost }: Expected, count: number): boolean {
  if (exactly !== undefined) return count === exactly
  return (atLeast === undefined || count >= atLeast) && (atMost === undefined || count <= atMost)
}

function tooFew({ exactly, atLeast }: Expected, count: number): boolean {
  return count < (exactly ?? atLeast ?? 0)
}

const requests = (n: number) => `${n} request${n === 1 ? '' : 's'}`

function expectedText({ exactly, atLeast, atMost }: Expected): string {
  if (exactly !== undefined) return exactly === 0 ? 'no request' : `exactly ${requests(exactly)}`
  if (atLeast !== undefined && atMost !== undefined) return `from ${atLeast} to ${requests(atMost)}`
  return atMost !== undefined ? `at most ${requests(atMost)}` : `at least ${requests(atLeast ?? 1)}`
}

function titleOf(check: RequestsCheck, scope: string): string {
  let title = `to ${check.target.id}`
  if (check.status !== undefined) title += ` answered ${check.status}`
  if (check.when) {
    const conditions = Array.from({ length: check.when.count }, (_, i) => check.when!.describe(i))
    title += ` where ${conditions.join(' and ')}`
  }
  return title + scope
}
