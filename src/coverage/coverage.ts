import type { DeliveryRecord } from '../events/delivery.js'
import type { NamedBody, RequestRecord } from '../journal/journal.js'
import { type DeclaredResponse, type ResponseSet, findResponse, mediaOf } from '../responses/declared-responses.js'

/**
 * Consumer coverage (#29): what the client's requests exercised of the description, counted from the
 * start (or the last `POST /__mock/coverage/reset`), whatever the journal has let go of since. One
 * count a request, at step 8 (`recordExchange`): a few map lookups and increments, nothing kept of
 * the request itself, so memory stays bounded by the description's size, the sessions kept
 * (`MAX_COVERAGE_SESSIONS`), the unmatched paths kept (`MAX_UNMATCHED_PATHS`) and the rules and
 * events counted (`MAX_COUNTED_NAMES` each).
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
  /** The callbacks it declares. */
  callbacks?: ReadonlyArray<{ name: string }>
}

/** The journal's record with the request line's `forcedBy` (what `recordExchange` builds). */
export type CountedRequest = RequestRecord & { forcedBy?: string }

/** Sessions counted apart at most; the oldest is folded away first (its requests stay in the all-sessions view). */
export const MAX_COVERAGE_SESSIONS = 1_000
/** Distinct `METHOD path` of requests that matched no operation kept at most; the others are counted as `other`. */
export const MAX_UNMATCHED_PATHS = 100
/** Rules (stubs come and go) and events (a webhook sent over the admin API may be any name) counted apart at most. */
export const MAX_COUNTED_NAMES = 10_000

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
  /** The fixtures and examples served as the body, each by the object the response declares (no key built); made on first use. */
  bodies: Map<NamedBody, number> | undefined = undefined
}

export interface OperationTally {
  requests: number
  /**
   * By status answered: the declared response that covers it, found once, and its counts by the
   * declared media type answered (`undefined` for a response without content). Keyed by the status
   * and the declared objects themselves, so that counting a request builds no key.
   */
  byStatus: Map<number, StatusTally>
}

export interface StatusTally {
  /** `undefined`: the operation does not declare the status (the mock's own 401, 415...). */
  declared: DeclaredResponse | undefined
  /** Answers of an undeclared status. */
  undeclared: number
  byMedia: Map<string | undefined, Tally>
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
  /** Requests each rule or stub answered, by its label (`stub 3`, `scenario flaky, addPlant rule 2`). */
  rules = new Map<string, number>()
  /** Callbacks and webhooks sent, by `eventKey`. */
  events = new Map<string, EventTally>()
}

/** The deliveries of one callback or webhook, by how they ended. */
export class EventTally {
  constructor(
    readonly kind: DeliveryRecord['kind'],
    readonly name: string,
    readonly operation: string | undefined,
  ) {}
  sent = 0
  /** The receiver answered (any status below 500)... */
  delivered = 0
  /** ...as the callback or webhook declares. */
  conformed = 0
  /** Refused, dropped, cancelled, or failed after the retries. */
  undelivered = 0
}

/** A callback is its operation's (two operations may declare one of the same name); a webhook is the description's. */
export function eventKey(kind: DeliveryRecord['kind'], name: string, operation: string | undefined): string {
  return kind === 'callback' ? `callback ${operation ?? ''} ${name}` : `webhook ${name}`
}

export interface Coverage {
  /** Counts one answered request of the described API (admin calls are never counted). */
  count(record: CountedRequest, operation: CoveredOperation | undefined): void
  /** Counts a callback or webhook once its delivery has settled (delivered, failed, refused...). */
  countDelivery(record: DeliveryRecord): void
  /** Every session's counts together, or one session's; `undefined` for a session that sent nothing. */
  counts(session?: string): CoverageCounts | undefined
  /** Starts counting again: everything, or one session's (the all-sessions view keeps its requests). */
  reset(session?: string): void
}

export function createCoverage(): Coverage {
  let all = new CoverageCounts()
  const sessions = new Map<string, CoverageCounts>()
  const countsOf = (session: string) => {
    let counts = sessions.get(session)
    if (counts === undefined) {
      counts = new CoverageCounts()
      sessions.set(session, counts)
      if (sessions.size > MAX_COVERAGE_SESSIONS) sessions.delete(sessions.keys().next().value!)
    }
    return counts
  }
  return {
    count(record, operation) {
      countInto(all, record, operation)
      const { session } = record
      if (session !== undefined) countInto(countsOf(session), record, operation)
    },
    countDelivery(record) {
      countDeliveryInto(all, record)
      if (record.session !== undefined) countDeliveryInto(countsOf(record.session), record)
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
    tally = { requests: 0, byStatus: new Map() }
    counts.operations.set(operation.id, tally)
  }
  tally.requests++
  const rule = record.answeredBy
  if (rule !== undefined) countName(counts.rules, rule)
  const { status } = record
  // A fault that sent nothing (status 0) exercised no response.
  if (status === 0) return
  let slot = tally.byStatus.get(status)
  if (slot === undefined) {
    slot = { declared: findResponse(operation.responses.declared, status), undeclared: 0, byMedia: new Map() }
    tally.byStatus.set(status, slot)
  }
  const { declared } = slot
  if (declared === undefined) return void slot.undeclared++
  const media = answeredMedia(declared, record)
  let counted = slot.byMedia.get(media)
  if (counted === undefined) {
    counted = new Tally()
    slot.byMedia.set(media, counted)
  }
  counted.answered++
  if (record.valid) counted.valid++
  else counted.invalid++
  if (record.forcedBy !== undefined) counted.forced++
  counted[chosenBy(record)]++
  // A rule's or stub's own body is counted with its rule; fixtures and examples are the description's.
  const body = record.response?.staticBody
  if (body !== undefined && body.origin !== 'inline') {
    const bodies = (counted.bodies ??= new Map())
    bodies.set(body, (bodies.get(body) ?? 0) + 1)
  }
}

function countName(names: Map<string, number>, name: string): void {
  const known = names.get(name)
  if (known !== undefined) names.set(name, known + 1)
  else if (names.size < MAX_COUNTED_NAMES) names.set(name, 1)
}

function countDeliveryInto(counts: CoverageCounts, record: DeliveryRecord): void {
  const key = eventKey(record.kind, record.name, record.operation)
  let tally = counts.events.get(key)
  if (tally === undefined) {
    if (counts.events.size >= MAX_COUNTED_NAMES) return
    tally = new EventTally(record.kind, record.name, record.operation)
    counts.events.set(key, tally)
  }
  tally.sent++
  if (record.outcome === 'delivered') {
    tally.delivered++
    if (record.conformed) tally.conformed++
  } else tally.undelivered++
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
function answeredMedia(declared: DeclaredResponse, record: CountedRequest): string | undefined {
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
