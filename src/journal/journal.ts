import type { Violation } from '../errors.js'
import { joinHeader } from '../internal/join-header.js'
import type { HeaderSource } from '../request.js'

/** One request to the described API, as the journal keeps it. */
export interface JournalEntry {
  id: number
  /** ISO 8601, when the request arrived. */
  time: string
  method: string
  path: string
  /** The query string without `?`, as sent. */
  query: string
  /** operationId (or `METHOD /path`) of the matched operation; absent for 404 and 405. */
  operation?: string
  /** Lower-case names; `authorization`, `proxy-authorization` and `cookie` are redacted. */
  headers: Record<string, string>
  /** The body as text (first 64 KiB), absent when none was read. */
  body?: string
  bodyTruncated?: boolean
  /** The status answered; 0 when a fault sent no response. */
  status: number
  /**
   * Why the request got its status (#13 §4): the message of the error answered (401, 404, 405, 406,
   * 413, 415, a 4xx naming its violations, a scenario's error), what forced the status (`forced by
   * Prefer: code=400`, `forced by __code=400`, `forced by scenario duplicate-plant`), and the fault
   * that broke the answer, if one did. Absent for a 2xx answered as asked.
   */
  reason?: string
  /** What the mock answered; absent when a fault sent no response (status 0). */
  response?: JournalResponse
  scenario: string
  session?: string
  /**
   * Valid means no violation of the description (security, media type, size, parameters, body), whether
   * the mock answered it (strict) or answered past it (`--validate report`).
   */
  valid: boolean
  violations: Violation[]
  /** How the answer broke the operation's declared response (`body.id`, `status`, `header.location`); absent when it did not, as far as the mock knows. */
  responseViolations?: Violation[]
  fault?: string
  durationMs: number
}

/** The answer a request got, as WireMock's journal keeps it. */
export interface JournalResponse {
  status: number
  /**
   * Lower-case names, as the mock set them (not those the server adds: `Date`, `Content-Length`, nor
   * CORS); credentials redacted as in requests (`Set-Cookie` too). `WWW-Authenticate` is kept: a
   * challenge, not a credential.
   */
  headers: Record<string, string>
  /** The body as text (first 64 KiB); absent when the answer had none. */
  body?: string
  bodyTruncated?: boolean
}

/**
 * The answer as the request path built it, kept by reference: the rendered body string and the
 * header object the Response was made from. Nothing is copied, redacted or serialised on the request
 * path; the journal reads it when listed.
 */
export interface AnswerSource {
  status: number
  headers?: HeaderSource
  /** Content-Type, where the answer keeps it apart from `headers` (a rendered response). */
  contentType?: string
  body: string | Uint8Array | null
}

/** What the request path hands over; redaction and decoding wait until someone reads the journal. */
export interface RequestRecord extends Omit<
  JournalEntry,
  'id' | 'time' | 'headers' | 'body' | 'bodyTruncated' | 'response'
> {
  /** Milliseconds since the epoch. */
  time: number
  /** As the server parsed them: read (and redacted) when the journal is listed, not when the request is recorded. */
  headers: HeaderSource
  body?: Uint8Array
  response?: AnswerSource
}

/** A class of statuses: `4xx` is any status from 400 to 499. */
export type StatusClass = `${1 | 2 | 3 | 4 | 5}${'xx' | 'XX'}`

export interface JournalFilter {
  method?: string
  path?: string
  operation?: string
  /** An exact status, or a class such as `4xx`. */
  status?: number | StatusClass
  session?: string
  /** Only requests without (true) or with (false) a violation of the description. */
  valid?: boolean
  /** Only requests that arrived at or after this time (a `Date` or milliseconds since the epoch). */
  since?: Date | number
}

export interface Journal {
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
}

/** Bytes the journal keeps at most, by default (`--journal-bytes`): the oldest entries go first. */
export const DEFAULT_JOURNAL_BYTES = 64 * 1024 * 1024

const BODY_LIMIT = 64 * 1024
/** Credentials by their name alone, in a request (`Cookie`) or an answer (`Set-Cookie`). */
const REDACTED = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie'])
/** Query parameters whose values are credentials by their name alone. */
const SECRET_QUERY_NAME = /(token|key|secret|password|passwd|pwd|signature|credentials?)$/i

/** Credentials the description's security schemes name, redacted besides the usual ones (#12). */
export interface Redaction {
  /** Lower-case names of headers that carry API keys. */
  headers: ReadonlySet<string>
  /** Names of query parameters that carry API keys. */
  query: ReadonlySet<string>
}

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
  // Oldest first; records before `first` are dropped (and unset), the array is compacted now and then.
  let records: Array<Stored | undefined> = []
  // Each record's size, beside it rather than in it: one more field on the record, whose spread
  // copies some fifteen, doubled the cost of recording a request (1.0 → 2.1 µs, #12).
  let sizes: number[] = []
  let first = 0
  let bytes = 0
  let nextId = 1
  // Up to twice the capacity is held and the oldest dropped in one go, so that dropping costs a
  // request nothing on average; only the newest `capacity` are ever listed.
  /** Where the listed records begin: the newest `capacity` of those not yet dropped. */
  const oldest = () => Math.max(first, records.length - capacity)
  const kept = () => records.slice(oldest()) as Stored[]
  /** Bounded by count and by bytes: a thousand 1 MiB bodies must not hold a gigabyte (#12). */
  const dropOldest = () => {
    const keep = Math.min(capacity, records.length - first)
    while (records.length - first > keep || (bytes > maxBytes && records.length - first > 1)) {
      bytes -= sizes[first]!
      records[first++] = undefined
    }
    records = records.slice(first)
    sizes = sizes.slice(first)
    first = 0
  }
  return {
    recordRequest(record) {
      if (capacity === 0) return
      const size = sizeOf(record)
      records.push({
        ...record,
        body: record.body && copyBody(record.body),
        response: record.response && boundedAnswer(record.response),
        id: nextId++,
      })
      sizes.push(size)
      bytes += size
      if (records.length - first > 2 * capacity || bytes > maxBytes) dropOldest()
    },
    listRequests(filter = {}) {
      return kept()
        .filter((r) => matches(r, filter))
        .map(toEntry)
    },
    pageRequests(filter, { limit, after = 0 }) {
      const entries: JournalEntry[] = []
      for (let i = oldest(); i < records.length; i++) {
        const record = records[i]!
        if (record.id <= after || !matches(record, filter)) continue
        if (entries.length === limit) return { entries, next: entries[entries.length - 1]!.id }
        entries.push(toEntry(record))
      }
      return { entries }
    },
    countRequests(filter = {}) {
      let count = 0
      for (let i = oldest(); i < records.length; i++) if (matches(records[i]!, filter)) count++
      return count
    },
    clearRequests(filter = {}) {
      const from = oldest()
      const keep = (_: unknown, i: number) =>
        i >= from && filter.session !== undefined && records[i]!.session !== filter.session
      sizes = sizes.filter(keep)
      records = records.filter(keep)
      first = 0
      bytes = sizes.reduce((sum, size) => sum + size, 0)
    },
  }
}

/** What a record's headers count for in the byte budget (see `sizeOf`). */
const HEADER_ALLOWANCE = 1024
/** What the answer's headers count for: the mock's own few (Content-Type, Location, an error's challenge or Allow). */
const ANSWER_HEADER_ALLOWANCE = 256

type Stored = RequestRecord & { id: number }
/** A body's first 64 KiB, and whether there was more. */
type StoredBody = Uint8Array & { truncated?: boolean }

/**
 * What a record holds, roughly, in bytes: its body copy, path, query, violations, reason and answer,
 * and a fixed allowance for its headers. Walking the headers of every request cost 2-3 µs on the
 * valid path; headers are bounded anyway, by the server (16 KiB a request) and by the journal's count
 * (so, at the default 1,000 entries, they hold at most 16 MiB).
 */
function sizeOf(record: RequestRecord): number {
  let size =
    HEADER_ALLOWANCE + record.path.length + record.query.length + Math.min(record.body?.byteLength ?? 0, BODY_LIMIT)
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
 * A copy, never a view: a socket chunk is a slice of a larger read buffer, and keeping the slice
 * would keep the whole buffer alive for as long as the entry.
 */
function copyBody(body: Uint8Array): StoredBody {
  const copy: StoredBody = Uint8Array.prototype.slice.call(body, 0, BODY_LIMIT)
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

const encoder = new TextEncoder()

/** The first 64 KiB of a string as UTF-8, cut between characters (never into a U+FFFD); `truncated` when there was more. */
function firstBytesOf(text: string): StoredBody {
  const bytes = new Uint8Array(BODY_LIMIT)
  const { read, written } = encoder.encodeInto(text, bytes)
  const kept: StoredBody = bytes.subarray(0, written)
  if (read < text.length) kept.truncated = true
  return kept
}

function matches(record: RequestRecord, filter: JournalFilter): boolean {
  return (
    (filter.method === undefined || record.method === filter.method.toUpperCase()) &&
    (filter.path === undefined || record.path === filter.path) &&
    (filter.operation === undefined || record.operation === filter.operation) &&
    (filter.status === undefined || matchesStatus(record.status, filter.status)) &&
    (filter.session === undefined || record.session === filter.session) &&
    (filter.valid === undefined || record.valid === filter.valid) &&
    (filter.since === undefined || record.time >= Number(filter.since))
  )
}

/** `404` matches 404 only; `4xx` (or `4XX`) any status from 400 to 499. */
function matchesStatus(status: number, wanted: number | StatusClass): boolean {
  if (typeof wanted === 'number') return status === wanted
  return Math.floor(status / 100) === Number(wanted[0])
}

function entryOf(record: Stored, redaction: Redaction): JournalEntry {
  const { body, id, time, violations, responseViolations, query, response, ...rest } = record
  const entry: JournalEntry = {
    id,
    time: new Date(time).toISOString(),
    ...rest,
    query: redactQuery(query, redaction),
    violations: violations.map((v) => ({ ...v })),
    headers: redactHeaders(record.headers, redaction),
  }
  if (responseViolations) entry.responseViolations = responseViolations.map((v) => ({ ...v }))
  if (body) writeBody(entry, body)
  if (response) entry.response = responseOf(response, redaction)
  return entry
}

function responseOf(answer: AnswerSource, redaction: Redaction): JournalResponse {
  const headers = answer.headers ? redactHeaders(answer.headers, redaction) : {}
  if (answer.contentType !== undefined) headers['content-type'] = answer.contentType
  const response: JournalResponse = { status: answer.status, headers }
  if (answer.body !== null) writeBody(response, answer.body)
  return response
}

/** Lower-case names; credentials (by name, or as the description's API keys) read `[redacted]`. The one redaction of headers, for requests and answers. */
function redactHeaders(source: HeaderSource, redaction: Redaction): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [written, value] of entriesOf(source)) {
    const name = written.toLowerCase()
    headers[name] = REDACTED.has(name) || redaction.headers.has(name) ? '[redacted]' : value
  }
  return headers
}

const decoder = new TextDecoder()

/** A request's or an answer's body as listed: text, its first 64 KiB, and `bodyTruncated` when more was sent. */
function writeBody(listed: { body?: string; bodyTruncated?: boolean }, body: string | StoredBody): void {
  // Up to a third of 64 Ki characters, a string is within 64 KiB of UTF-8 whatever it holds.
  const bytes = typeof body === 'string' ? (body.length * 3 <= BODY_LIMIT ? undefined : firstBytesOf(body)) : body
  listed.body = bytes ? decoder.decode(bytes) : (body as string)
  if (bytes?.truncated) listed.bodyTruncated = true
}

/** The query string as sent, with the value of each credential parameter replaced. */
function redactQuery(query: string, redaction: Redaction): string {
  if (query === '') return query
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      if (equals === -1) return pair
      const name = safeDecode(pair.slice(0, equals))
      return redaction.query.has(name) || SECRET_QUERY_NAME.test(name) ? `${pair.slice(0, equals)}=[redacted]` : pair
    })
    .join('&')
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

function* entriesOf(source: HeaderSource): Iterable<[string, string]> {
  if (source instanceof Headers) return yield* source.entries()
  for (const [name, value] of Object.entries(source)) if (value !== undefined) yield [name, joinHeader(value)]
}
