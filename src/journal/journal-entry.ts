import type { Violation } from '../errors/index.js'
import { isoTime } from '../internal/iso-time.js'
import { joinHeader } from '../internal/join-header.js'
import type { HeaderSource } from '../common/request.js'
import type { AnswerSource, Stored } from './journal.js'
import type { NearMiss } from '../rules/choose-rule.js'
import { CREDENTIAL_HEADERS } from './redaction-of.js'

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
  /** Proxy mode (`--proxy`): the upstream URL the request was forwarded to, whose answer it got; absent when the mock answered. */
  proxied?: string
  /**
   * Proxy mode only: who answered and why: `forwarded to the upstream`, `answered by the mock: stub 3`,
   * `answered by the mock: the operation is mocked (--mock-only, or not in --proxy-only)`, `fell back to
   * the mock: the upstream answered 404`.
   */
  proxy?: string
  /** The rule or stub that answered: `stub 3`, `scenario flaky, addPlant rule 2`, `scenario error`; absent when none did (the default answer). */
  answeredBy?: string
  /**
   * Why no rule answered, where the operation has rules with conditions (WireMock's near miss): the
   * closest rule, its first condition that failed, and the value the request had there (absent: none).
   */
  nearMiss?: NearMissEntry
  /** What the request did to the data (`--stateful`): `created plants/1`, `replaced plants/1`, `updated plants/1`, `deleted plants/1`; absent when it changed nothing. */
  data?: string
  durationMs: number
  /** The replica that served the request (`host:pid`), where several share one store (`--store`); absent otherwise. */
  replica?: string
}

export interface NearMissEntry {
  rule: string
  /** `body $.name equals "Poison Ivy"`, or `times 1` when every condition held but its count was used up. */
  condition: string
  /** The value read where the condition failed (JSON text of a scalar; `(an object)` for a structure); absent when the request had none. */
  actual?: string
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
  /** A streamed answer (`text/event-stream`, JSON Lines): what was sent and how it ended, as it goes. */
  stream?: StreamRecord
}

/** A streamed answer as the journal tells it; `ended` is `streaming` until it ends. */
export interface StreamRecord {
  items: number
  bytes: number
  /**
   * `cut`, `stalled` and a `malformed` item are a rule's faults (#31 §2). In proxy mode, `upstream
   * failed`: the upstream broke off, or paused past `--proxy-timeout`; `refused`: the proxy ended it
   * at an item that breaks the description (`--errors`) or is longer than it holds.
   */
  ended: 'streaming' | 'complete' | 'client closed' | 'failed' | 'cut' | 'stalled' | 'upstream failed' | 'refused'
}

/**
 * One request as the journal's summary view lists it (`GET /__mock/requests/stream?view=summary`, the
 * dashboard's rows): what a row shows and its filters read, without headers, bodies or violations,
 * which `GET /__mock/requests/{id}` gives when the row is opened.
 */
export interface JournalSummary {
  id: number
  time: string
  method: string
  path: string
  /** Redacted as in the entry. */
  query: string
  operation: string | null
  status: number
  valid: boolean
  session: string | null
  answeredBy: string | null
  durationMs: number
}

/**
 * A record's summary as JSON text, written straight from the record: no entry is built, nothing of
 * the headers or bodies is read. Made once a record for every stream that sends it.
 */
export function summaryOf(record: Stored, redaction: Redaction): string {
  const { operation, session, answeredBy, query } = record
  return (
    `{"id":${record.id},"time":"${isoTime(record.time)}","method":${JSON.stringify(record.method)},` +
    `"path":${JSON.stringify(record.path)},"query":${query === '' ? '""' : JSON.stringify(redactQuery(query, redaction))},` +
    `"operation":${operation === undefined ? 'null' : JSON.stringify(operation)},"status":${record.status},` +
    `"valid":${record.valid},"session":${session === undefined ? 'null' : JSON.stringify(session)},` +
    `"answeredBy":${answeredBy === undefined ? 'null' : JSON.stringify(answeredBy)},"durationMs":${record.durationMs}}`
  )
}

export const BODY_LIMIT = 64 * 1024
/** Credentials by their name alone, in a request (`Cookie`) or an answer (`Set-Cookie`). */
const REDACTED = new Set(CREDENTIAL_HEADERS)
/** Query parameters whose values are credentials by their name alone. */
const SECRET_QUERY_NAME = /(token|key|secret|password|passwd|pwd|signature|credentials?)$/i

/** Credentials the description's security schemes name, redacted besides the usual ones (#12). */
export interface Redaction {
  /** Lower-case names of headers that carry API keys. */
  headers: ReadonlySet<string>
  /** Names of query parameters that carry API keys. */
  query: ReadonlySet<string>
}

/** A body's first 64 KiB, and whether there was more. */
export type StoredBody = Uint8Array & { truncated?: boolean }

const encoder = new TextEncoder()

/** The first 64 KiB of a string as UTF-8, cut between characters (never into a U+FFFD); `truncated` when there was more. */
export function firstBytesOf(text: string): StoredBody {
  const bytes = new Uint8Array(BODY_LIMIT)
  const { read, written } = encoder.encodeInto(text, bytes)
  const kept: StoredBody = bytes.subarray(0, written)
  if (read < text.length) kept.truncated = true
  return kept
}

/** Fields of a record that are the request line's, not the journal's. */
const LINE_ONLY = new Set(['error', 'forcedBy'])

export function entryOf(record: Stored, redaction: Redaction): JournalEntry {
  // The raw list of headers is what the journal packs; `headers` is what it lists.
  const { body, id, time, violations, responseViolations, query, response, nearMiss, rawHeaders: _, ...rest } = record
  const entry = { id, time: isoTime(time) } as JournalEntry
  // The record holds every field, undefined where the request has none (one shape for all records,
  // `recordExchange`), and the request line's own `error` and `forcedBy`: the entry lists what is set.
  for (const [key, value] of Object.entries(rest))
    if (value !== undefined && !LINE_ONLY.has(key)) (entry as unknown as Record<string, unknown>)[key] = value
  entry.query = redactQuery(query, redaction)
  entry.violations = violations.map((v) => ({ ...v }))
  entry.headers = redactHeaders(record.headers, redaction)
  if (responseViolations?.length) entry.responseViolations = responseViolations.map((v) => ({ ...v }))
  if (body) writeBody(entry, body)
  if (response) entry.response = responseOf(response, redaction)
  if (nearMiss) entry.nearMiss = nearMissOf(nearMiss)
  return entry
}

function nearMissOf({ rule, condition, actual }: NearMiss): NearMissEntry {
  if (condition === -1)
    return { rule: rule.label, condition: `times ${rule.times}`, actual: `used up: ${String(actual)} hit(s)` }
  const entry: NearMissEntry = { rule: rule.label, condition: rule.when!.describe(condition) }
  if (actual !== undefined) entry.actual = typeof actual === 'string' ? JSON.stringify(actual) : String(actual)
  return entry
}

function responseOf(answer: AnswerSource, redaction: Redaction): JournalResponse {
  const headers = answer.headers ? redactHeaders(answer.headers, redaction) : {}
  if (answer.contentType !== undefined) headers['content-type'] = answer.contentType
  const response: JournalResponse = { status: answer.status, headers }
  if (answer.body !== null) writeBody(response, answer.body)
  if (answer.stream) response.stream = { ...answer.stream }
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
