import type { Violation } from '../errors/index.js'
import type { HeaderSource } from '../common/request.js'
import type { NearMiss } from '../rules/choose-rule.js'
import {
  BODY_LIMIT,
  type JournalEntry,
  type Redaction,
  type StreamRecord,
  type StoredBody,
  entryOf,
  firstBytesOf,
  summaryOf,
} from './journal-entry.js'
import { type JournalFilter, matches } from './journal-filter.js'
import { RecordColumns } from './record-columns.js'

/**
 * The answer as the request path built it, handed over by reference: the rendered body string and the
 * header object the Response was made from. Nothing is redacted or serialised on the request path; the
 * journal packs a short body with the record (`record-columns.ts`) and reads the rest when listed.
 */
export interface AnswerSource {
  status: number
  headers?: HeaderSource
  /** Content-Type, where the answer keeps it apart from `headers` (a rendered response). */
  contentType?: string
  body: string | Uint8Array | null
  /** The fixture, example or rule body the answer served, when it served one: coverage counts it. */
  staticBody?: NamedBody
  /** A streamed answer's progress, updated as its items go. */
  stream?: StreamRecord
}

/** A body served as written, named: a fixture, a declared example, or a rule's or stub's own (`inline`). */
export interface NamedBody {
  readonly name: string
  readonly origin: 'fixture' | 'example' | 'inline'
}

/** What the request path hands over; redaction and decoding wait until someone reads the journal. */
export interface RequestRecord extends Omit<
  JournalEntry,
  'id' | 'time' | 'headers' | 'body' | 'bodyTruncated' | 'response' | 'nearMiss' | 'responseViolations'
> {
  /** As the answer holds them, not a copy: a streamed answer's grow as its items pass (#31 §2). */
  responseViolations?: readonly Violation[]
  /** Formatted when the journal is listed. */
  nearMiss?: NearMiss
  /** Milliseconds since the epoch. */
  time: number
  /** As the server parsed them: read (and redacted) when the journal is listed, not when the request is recorded. */
  headers: HeaderSource
  /** The same as the server's parser read them (`[name, value, ...]`), where it did: what the journal keeps, packed. */
  rawHeaders?: readonly string[]
  /** The text the body was decoded to, where it was (JSON), else its bytes. */
  body?: Uint8Array | string
  response?: AnswerSource
  /** Set by the journal as it keeps the record; the request path passes 0, so that numbering changes no shape. */
  id?: number
}

export interface Journal {
  /** Keeps the record itself, not a copy: the caller hands it over. */
  recordRequest(record: RequestRecord): void
  /** Oldest first. */
  listRequests(filter?: JournalFilter): JournalEntry[]
  /** One page, oldest first: at most `limit` entries with an id above `after`; `next` is the cursor of the following page. */
  pageRequests(
    filter: JournalFilter,
    page: { limit: number; after?: number },
  ): { entries: JournalEntry[]; next?: number }
  /** How many entries match, without building them (no redaction, no decoding). */
  countRequests(filter?: JournalFilter): number
  /** Clears all entries, or only those of one session. */
  clearRequests(filter?: Pick<JournalFilter, 'session'>): void
  /**
   * How many requests the ring has let go of (the oldest, past `--journal-size` or `--journal-bytes`),
   * or never kept (a journal of size 0), since it was made or last emptied: a count or a verification
   * over the journal sees only the rest. Emptying one session's part leaves it as it is.
   */
  readonly dropped: number
  /**
   * Hands each new entry matching `filter` to `listener`, after the request that made it (in
   * batches, `FEED_BATCH_MS` later), until the returned function is called. Entries are built
   * (redacted) once a batch and only while someone listens: with no listener, the request path pays
   * one length check.
   */
  subscribe(filter: JournalFilter, listener: (entry: JournalEntry) => void): () => void
  /**
   * The summary view of `subscribe` (the dashboard's): each batch's summaries matching `filter`, as
   * JSON texts (`summaryOf`), oldest first, at most the newest `SUMMARY_BATCH_LIMIT` with the count
   * of those left out. Every listener with the same filter gets the same batch, made once.
   */
  subscribeSummaries(filter: JournalFilter, listener: SummaryListener): () => void
  /** The summaries after `after`, oldest first, at most the newest `limit` of them (a stream's replay). */
  summariesAfter(filter: JournalFilter, after: number, limit: number): SummaryBatch | undefined
  /** One entry by its id, built as listed; `undefined` once the journal has let go of it (or never had it). */
  getRequest(id: number): JournalEntry | undefined
  /**
   * Numbers the entries `first`, `first + step`, ... instead of 1, 2, ...: each worker of `--workers`
   * gives ids of its own (`id × 64 + slot`), so that an id names one entry whichever worker is asked.
   * Only before the first entry. A replica on a shared store (`--store`) names itself in each entry too.
   */
  numberEntries(first: number, step: number, replica?: string): void
}

/** Summaries of a batch (JSON texts, oldest first), their ids, and how many older ones were left out. */
export interface SummaryBatch {
  texts: readonly string[]
  ids: readonly number[]
  /** Requests of the batch that matched but were not summarised: all but the newest `SUMMARY_BATCH_LIMIT`. */
  skipped: number
}

/**
 * Summaries a batch holds at most (1,000 a second): a page shows no more than that, and under a load
 * test of thousands of requests a second, summarising and writing each to every dashboard cost the
 * valid path a third more CPU (20 dashboards, `npm run bench -- --dashboards 20`), mostly in socket
 * writes. The newest are sent, with how many were left out; the journal keeps them all.
 */
export const SUMMARY_BATCH_LIMIT = 100

export type SummaryListener = (batch: SummaryBatch) => void

/** Bytes the journal keeps at most, by default (`--journal-bytes`): the oldest entries go first. */
export const DEFAULT_JOURNAL_BYTES = 64 * 1024 * 1024

/**
 * A ring buffer of at most `capacity` entries: the oldest are dropped, so memory stays bounded.
 * Credentials are redacted when the journal is listed: `Authorization`, `Proxy-Authorization`,
 * `Cookie` and `Set-Cookie`, the API keys the description declares (header or query), and any query
 * parameter named like a secret (`token`, `api_key`, `password`...), in requests and answers alike.
 * Nothing is redacted on the request path.
 */
export function createJournal(
  capacity: number,
  redaction: Redaction = { headers: new Set(), query: new Set() },
  maxBytes = DEFAULT_JOURNAL_BYTES,
): Journal {
  const toEntry = (record: Stored) => entryOf(record, redaction)
  const toSummary = (record: Stored) => summaryOf(record, redaction)
  // Oldest first, in columns (`record-columns.ts`): a record kept is no object of its own.
  let records = new RecordColumns()
  let bytes = 0
  let nextId = 1
  let replicaName: string | undefined
  let idStep = 1
  // Counted where records are let go of, in bulk: the request path pays nothing for it.
  let letGo = 0
  // Up to twice the capacity is held and the oldest dropped in one go, so that dropping costs a
  // request nothing on average; only the newest `capacity` are ever listed.
  /** Where the listed records begin: the newest `capacity`. */
  const oldest = () => Math.max(0, records.length - capacity)
  const recordAt = (index: number) => records.recordAt(index, replicaName)
  const kept = () => {
    const listed: Stored[] = []
    for (let i = oldest(); i < records.length; i++) listed.push(recordAt(i))
    return listed
  }
  /** Bounded by count and by bytes: a thousand 1 MiB bodies must not hold a gigabyte (#12). */
  const dropOldest = () => {
    const keep = Math.min(capacity, records.length)
    let drop = 0
    while (records.length - drop > keep || (bytes > maxBytes && records.length - drop > 1)) {
      bytes -= records.sizeAt(drop)
      drop++
    }
    records.dropFirst(drop)
    letGo += drop
  }
  const feed = createJournalFeed(toEntry, toSummary)
  const listeners = feed.listeners
  return {
    recordRequest(record) {
      // The record is the journal's from here: numbered in place (a copy of its fields, a spread, cost
      // 2.2 µs a request, #19), handed to the live feed as it is, and kept in the columns.
      const stored = record as Stored
      stored.id = nextId
      nextId += idStep
      if (replicaName !== undefined) stored.replica = replicaName
      // The live feed (`GET /__mock/requests/stream`): with no listener, this check is all it costs.
      if (listeners.length !== 0) feed.push(stored)
      if (capacity === 0) return void letGo++
      const size = sizeOf(record)
      if (record.body) stored.body = keptBody(record.body)
      if (record.response) stored.response = boundedAnswer(record.response)
      records.push(stored, size)
      bytes += size
      if (records.length > 2 * capacity || bytes > maxBytes) dropOldest()
    },
    listRequests(filter = {}) {
      return kept()
        .filter((r) => matches(r, filter))
        .map(toEntry)
    },
    pageRequests(filter, { limit, after = 0 }) {
      const entries: JournalEntry[] = []
      for (let i = oldest(); i < records.length; i++) {
        if (records.idAt(i) <= after) continue
        const record = recordAt(i)
        if (!matches(record, filter)) continue
        if (entries.length === limit) return { entries, next: entries[entries.length - 1]!.id }
        entries.push(toEntry(record))
      }
      return { entries }
    },
    countRequests(filter = {}) {
      let count = 0
      for (let i = oldest(); i < records.length; i++) if (matches(recordAt(i), filter)) count++
      return count
    },
    clearRequests(filter = {}) {
      const from = oldest()
      // Those held past the capacity go now: still dropped, unless the whole journal is emptied.
      letGo = filter.session === undefined ? 0 : letGo + from
      if (filter.session === undefined) records = new RecordColumns()
      else records.keepOnly((i) => i >= from && records.sessionAt(i) !== filter.session)
      bytes = 0
      for (let i = 0; i < records.length; i++) bytes += records.sizeAt(i)
    },
    // Records held past the capacity (up to twice it, dropped in one go) are not listed: dropped already.
    get dropped() {
      return letGo + Math.max(0, records.length - capacity)
    },
    subscribe: feed.subscribe,
    subscribeSummaries: feed.subscribeSummaries,
    summariesAfter(filter, after, limit) {
      const texts: string[] = []
      const ids: number[] = []
      // Newest first, back to `after` or `limit` of them, then put in order.
      for (let i = records.length - 1; i >= oldest() && texts.length < limit; i--) {
        if (records.idAt(i) <= after) break
        const record = recordAt(i)
        if (!matches(record, filter)) continue
        texts.push(toSummary(record))
        ids.push(record.id)
      }
      return texts.length ? { texts: texts.reverse(), ids: ids.reverse(), skipped: 0 } : undefined
    },
    numberEntries(first, step, replica) {
      if (nextId !== 1 || records.length !== 0) throw new Error('the journal numbers its entries before the first')
      nextId = first
      idStep = step
      replicaName = replica
    },
    getRequest(id) {
      // Ids rise with the index: a binary search over the records kept.
      let low = oldest()
      let high = records.length - 1
      while (low <= high) {
        const middle = (low + high) >> 1
        const recordId = records.idAt(middle)
        if (recordId === id) return toEntry(recordAt(middle))
        if (recordId < id) low = middle + 1
        else high = middle - 1
      }
      return undefined
    },
  }
}

/**
 * How long the feed gathers records before handing them on: a stream then writes once a batch, not
 * once a request. Measured with 20 streams open (`npm run bench -- --instructions --dashboards 20`),
 * handing each record on alone cost the valid path 7.5 times its instructions, mostly socket writes.
 */
export const FEED_BATCH_MS = 100

interface Listener {
  filter: JournalFilter
  /** Entries one by one (`subscribe`)... */
  entry?: (entry: JournalEntry) => void
  /** ...or a batch's summaries (`subscribeSummaries`), shared by every listener of the same `key`. */
  summaries?: SummaryListener
  key?: string
}

/**
 * The journal's live feed (`GET /__mock/requests/stream`): records pushed while someone listens are
 * handed on in batches, off the request path, each entry built once for every listener (the same
 * object, so that a listener may keep what it makes of it for the others), and each summary once
 * for every summary listener, whose listeners of one filter share the batch's array.
 */
function createJournalFeed(build: (record: Stored) => JournalEntry, summarise: (record: Stored) => string) {
  const listeners: Listener[] = []
  let pending: Stored[] = []
  const flush = () => {
    const batch = pending
    pending = []
    // Those listening when the batch began; one that leaves meanwhile may hear the rest of it.
    const now = listeners.slice()
    const entryListeners = now.filter((l) => l.entry !== undefined)
    if (entryListeners.length)
      for (const record of batch) {
        let entry: JournalEntry | undefined
        for (const { filter, entry: listener } of entryListeners) {
          if (matches(record, filter)) listener!((entry ??= build(record)))
        }
      }
    const summaryListeners = now.filter((l) => l.summaries !== undefined)
    if (summaryListeners.length === 0) return
    const texts: Array<string | undefined> = []
    const byKey = new Map<string, SummaryBatch | null>()
    for (const { filter, summaries: listener, key } of summaryListeners) {
      let shared = byKey.get(key!)
      if (shared === undefined) {
        const matching: string[] = []
        const ids: number[] = []
        let skipped = 0
        // Newest first, the older ones past the limit only counted.
        for (let i = batch.length - 1; i >= 0; i--) {
          const record = batch[i]!
          if (!matches(record, filter)) continue
          if (matching.length === SUMMARY_BATCH_LIMIT) {
            skipped++
            continue
          }
          matching.push((texts[i] ??= summarise(record)))
          ids.push(record.id)
        }
        shared = matching.length ? { texts: matching.reverse(), ids: ids.reverse(), skipped } : null
        byKey.set(key!, shared)
      }
      if (shared) listener!(shared)
    }
  }
  const add = (listener: Listener) => {
    listeners.push(listener)
    return () => {
      const index = listeners.indexOf(listener)
      if (index !== -1) listeners.splice(index, 1)
    }
  }
  return {
    listeners,
    push(record: Stored) {
      if (pending.push(record) === 1) setTimeout(flush, FEED_BATCH_MS)
    },
    subscribe: (filter: JournalFilter, entry: (entry: JournalEntry) => void) => add({ filter, entry }),
    subscribeSummaries: (filter: JournalFilter, summaries: SummaryListener) =>
      add({ filter, summaries, key: JSON.stringify(filter) }),
  }
}

/** What a record's headers count for in the byte budget (see `sizeOf`). */
const HEADER_ALLOWANCE = 1024
/** What the answer's headers count for: the mock's own few (Content-Type, Location, an error's challenge or Allow). */
const ANSWER_HEADER_ALLOWANCE = 256

export type Stored = RequestRecord & { id: number }

/**
 * What a record holds, roughly, in bytes: its body copy, path, query, violations, reason and answer,
 * and a fixed allowance for its headers. Walking the headers of every request cost 2-3 µs on the
 * valid path; headers are bounded anyway, by the server (16 KiB a request) and by the journal's count
 * (so, at the default 1,000 entries, they hold at most 16 MiB).
 */
function sizeOf(record: RequestRecord): number {
  let size =
    HEADER_ALLOWANCE +
    record.path.length +
    record.query.length +
    Math.min(typeof record.body === 'string' ? record.body.length : (record.body?.byteLength ?? 0), BODY_LIMIT)
  size += violationBytes(record.violations)
  if (record.responseViolations) size += violationBytes(record.responseViolations)
  if (record.reason) size += record.reason.length
  if (record.response) size += answerBytes(record.response)
  return size
}

/**
 * An answer's body counts as what the journal holds of it, at most 64 KiB: a string's length, its
 * size in memory when one byte a character, as JSON mostly is (measured, not encoded); bytes as bytes.
 */
function answerBytes(answer: AnswerSource): number {
  const { body } = answer
  const length = body === null ? 0 : typeof body === 'string' ? body.length : body.byteLength
  return ANSWER_HEADER_ALLOWANCE + Math.min(length, BODY_LIMIT)
}

function violationBytes(violations: readonly Violation[]): number {
  let size = 0
  for (const violation of violations) size += violation.path.length + violation.message.length + 32
  return size
}

/**
 * What the journal keeps of a request's body: the text it was decoded to, as it is up to 64 Ki
 * characters (listed as its first 64 KiB of UTF-8, as bytes are), its first 64 KiB beyond; else a
 * copy of its bytes. A string is one object for the collector to move, and cannot change; a copy is
 * an array, its buffer and the buffer's memory outside the heap (#34 §6).
 */
function keptBody(body: Uint8Array | string): StoredBody | string {
  if (typeof body === 'string') return body.length <= BODY_LIMIT ? body : firstBytesOf(body)
  return copyBody(body)
}

/**
 * A copy, never a view: a view into a larger buffer (a socket's read, a pool's slab) would keep the
 * whole buffer alive for as long as the entry.
 */
function copyBody(body: Uint8Array): StoredBody {
  // Copied by `set` into a new array: `slice` on a Buffer looks up its species constructor first (#19).
  const copy: StoredBody = new Uint8Array(Math.min(body.byteLength, BODY_LIMIT))
  copy.set(body.byteLength > BODY_LIMIT ? body.subarray(0, BODY_LIMIT) : body)
  if (body.byteLength > BODY_LIMIT) copy.truncated = true
  return copy
}

/**
 * The answer as kept: by reference, unless its body is longer than the 64 KiB listed. Then only its
 * first 64 KiB are kept, encoded (one bounded copy), as a request's body is: the whole string,
 * a generated or templated body of megabytes, would otherwise live as long as the entry.
 */
function boundedAnswer(answer: AnswerSource): AnswerSource {
  const { body } = answer
  if (body === null || (typeof body === 'string' && body.length <= BODY_LIMIT)) return answer
  return { ...answer, body: typeof body === 'string' ? firstBytesOf(body) : copyBody(body) }
}
