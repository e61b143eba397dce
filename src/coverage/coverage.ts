import type { RequestRecord } from '../journal/journal.js'
import { type ResponseSet, findResponse, mediaOf } from '../responses/declared-responses.js'

/**
 * Consumer coverage (#29): what the client's requests exercised of the description, counted from the
 * start (or the last `POST /__mock/coverage/reset`), whatever the journal has let go of since. One
 * count a request, at step 8 (`recordExchange`): a few map lookups and increments, nothing kept of
 * the request itself, so memory stays bounded by the description's size, the sessions kept
 * (`MAX_COVERAGE_SESSIONS`) and the unmatched paths kept (`MAX_UNMATCHED_PATHS`).
 */

/** What chose the answer, as coverage tells it apart. */
export type ChosenBy = 'plain' | 'prefer' | 'scenario' | 'stub' | 'stateful' | 'proxy'
export const CHOSEN_BY: readonly ChosenBy[] = ['plain', 'prefer', 'scenario', 'stub', 'stateful', 'proxy']

/** An operation as coverage reads it: `CompiledOperation` has these. */
export interface CoveredOperation {
  id: string
  method: string
  path: string
  responses: ResponseSet
}

/** The journal's record with the request line's `forcedBy` (what `recordExchange` builds). */
export type CountedRequest = RequestRecord & { forcedBy?: string }

/** Sessions counted apart at most; the oldest is folded away first (its requests stay in the all-sessions view). */
export const MAX_COVERAGE_SESSIONS = 1_000
/** Distinct `METHOD path` of requests that matched no operation kept at most; the others are counted as `other`. */
export const MAX_UNMATCHED_PATHS = 100

/** The counts of one declared response (status × media type). */
export class Tally {
  answered = 0
  valid = 0
  invalid = 0
  forced = 0
  plain = 0
  prefer = 0
  scenario = 0
  stub = 0
  stateful = 0
  proxy = 0
}

export interface OperationTally {
  requests: number
  /** By `code media` (`200 application/json`, `204 ` for a response without content). */
  responses: Map<string, Tally>
  /** Statuses answered that the operation does not declare (the mock's own 401, 415...). */
  undeclared: Map<number, number>
}

export interface UnmatchedTally {
  method: string
  path: string
  count: number
}

/** The counts of one view: every session, or one. */
export class CoverageCounts {
  since = Date.now()
  requests = 0
  invalid = 0
  unmatched = 0
  operations = new Map<string, OperationTally>()
  unmatchedPaths = new Map<string, UnmatchedTally>()
  /** Unmatched requests whose `METHOD path` was past `MAX_UNMATCHED_PATHS`. */
  unmatchedOther = 0
}

export interface Coverage {
  /** Counts one answered request of the described API (admin calls are never counted). */
  count(record: CountedRequest, operation: CoveredOperation | undefined): void
  /** Every session's counts together, or one session's; `undefined` for a session that sent nothing. */
  counts(session?: string): CoverageCounts | undefined
  /** Starts counting again: everything, or one session's (the all-sessions view keeps its requests). */
  reset(session?: string): void
}

export function createCoverage(): Coverage {
  let all = new CoverageCounts()
  const sessions = new Map<string, CoverageCounts>()
  return {
    count(record, operation) {
      countInto(all, record, operation)
      const { session } = record
      if (session === undefined) return
      let counts = sessions.get(session)
      if (counts === undefined) {
        counts = new CoverageCounts()
        sessions.set(session, counts)
        if (sessions.size > MAX_COVERAGE_SESSIONS) sessions.delete(sessions.keys().next().value!)
      }
      countInto(counts, record, operation)
    },
    counts: (session) => (session === undefined ? all : sessions.get(session)),
    reset(session) {
      if (session !== undefined) return void sessions.delete(session)
      all = new CoverageCounts()
      sessions.clear()
    },
  }
}

function countInto(counts: CoverageCounts, record: CountedRequest, operation: CoveredOperation | undefined): void {
  counts.requests++
  if (!record.valid) counts.invalid++
  if (operation === undefined) return countUnmatched(counts, record)
  let tally = counts.operations.get(operation.id)
  if (tally === undefined) {
    tally = { requests: 0, responses: new Map(), undeclared: new Map() }
    counts.operations.set(operation.id, tally)
  }
  tally.requests++
  const { status } = record
  // A fault that sent nothing (status 0) exercised no response.
  if (status === 0) return
  const declared = findResponse(operation.responses.declared, status)
  if (declared === undefined) return void tally.undeclared.set(status, (tally.undeclared.get(status) ?? 0) + 1)
  const key = `${declared.code} ${answeredMedia(declared, record) ?? ''}`
  let counted = tally.responses.get(key)
  if (counted === undefined) {
    counted = new Tally()
    tally.responses.set(key, counted)
  }
  counted.answered++
  if (record.valid) counted.valid++
  else counted.invalid++
  if (record.forcedBy !== undefined) counted.forced++
  counted[chosenBy(record)]++
}

function countUnmatched(counts: CoverageCounts, record: CountedRequest): void {
  counts.unmatched++
  const key = `${record.method} ${record.path}`
  const known = counts.unmatchedPaths.get(key)
  if (known) known.count++
  else if (counts.unmatchedPaths.size < MAX_UNMATCHED_PATHS)
    counts.unmatchedPaths.set(key, { method: record.method, path: record.path, count: 1 })
  else counts.unmatchedOther++
}

/** The declared media type the answer was sent as: its Content-Type among the response's, else the preferred one. */
function answeredMedia(declared: ResponseSet['declared'][number], record: CountedRequest): string | undefined {
  if (declared.mediaType === undefined) return undefined
  if (declared.media === undefined || declared.media.length === 1) return declared.mediaType
  const sent = contentTypeOf(record)
  if (sent !== undefined) for (const media of mediaOf(declared)) if (media.contentType === sent) return media.mediaType
  return declared.mediaType
}

function contentTypeOf(record: CountedRequest): string | undefined {
  const answer = record.response
  if (answer === undefined) return undefined
  const written =
    answer.contentType ??
    (answer.headers instanceof Headers
      ? answer.headers.get('content-type')
      : (answer.headers?.['content-type'] as string | undefined))
  if (written == null) return undefined
  const semicolon = written.indexOf(';')
  return (semicolon === -1 ? written : written.slice(0, semicolon)).trim().toLowerCase()
}

/** What chose the answer: the proxy, a stub, a scenario (its rule or its forced status), a Prefer, the data, else the plain answer. */
function chosenBy(record: CountedRequest): ChosenBy {
  if (record.proxied !== undefined && record.proxy?.startsWith('forwarded')) return 'proxy'
  const rule = record.answeredBy
  if (rule !== undefined) return rule.startsWith('stub') ? 'stub' : 'scenario'
  const forced = record.forcedBy
  if (forced !== undefined) return forced.startsWith('scenario') ? 'scenario' : 'prefer'
  if (record.data !== undefined) return 'stateful'
  return 'plain'
}
