import type { Context } from 'hono'
import { errors } from '../errors/index.js'
import type { JournalFilter, StatusClass } from '../journal/journal-filter.js'
import { isPlainObject } from '../internal/plain-object.js'

/** The journal's filters, as the listing and the count take them. */
export const JOURNAL_FILTERS: readonly string[] = [
  'method',
  'path',
  'operation',
  'status',
  'valid',
  'since',
  'session',
  'answeredBy',
]
/** The listing takes the filters and its paging. */
export const LISTING_PARAMETERS: readonly string[] = [...JOURNAL_FILTERS, 'limit', 'cursor']

/** The journal filter of a query; X-Mock-Session scopes it as it scopes DELETE and reset, and ?session= wins over it. */
export function journalFilterOf(
  query: Record<string, string>,
  sessionHeader: string | undefined,
  known: readonly string[],
): JournalFilter {
  const filter = readFilter(query, known)
  filter.session = sessionOf(filter.session, sessionHeader)
  return filter
}

/** The query's filters; 400 for a parameter not in `known` or a value the filter does not take. */
function readFilter(query: Record<string, string>, known: readonly string[]): JournalFilter {
  for (const name of Object.keys(query)) {
    if (!known.includes(name)) throw errors.unknownJournalFilter(name, known)
  }
  const filter: JournalFilter = {}
  if (query.method) filter.method = query.method
  if (query.path) filter.path = query.path
  if (query.operation) filter.operation = query.operation
  if (query.session) filter.session = query.session
  if (query.answeredBy) filter.answeredBy = query.answeredBy
  if (query.status !== undefined) filter.status = readStatus(query.status)
  if (query.valid !== undefined) filter.valid = readBoolean('valid', query.valid)
  if (query.since !== undefined) filter.since = readSince(query.since)
  return filter
}

/** `404`, or a class: `4xx`, `4XX`. */
function readStatus(text: string): number | StatusClass {
  if (/^[1-5]\d\d$/.test(text)) return Number(text)
  if (/^[1-5]xx$/i.test(text)) return text as StatusClass
  throw errors.badStatusFilter(text)
}

/** A filter that takes `true` or `false` (`valid`, `conformed`). */
export function readBoolean(name: string, text: string): boolean {
  if (text === 'true' || text === 'false') return text === 'true'
  throw errors.badBooleanFilter(name, text)
}

/** An ISO 8601 time (`2025-01-01`, `2025-01-01T12:00:00Z`) or milliseconds since the epoch. */
export function readSince(text: string): number {
  if (/^\d{1,15}$/.test(text)) return Number(text)
  const time = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.test(text)
    ? Date.parse(text)
    : Number.NaN
  if (Number.isNaN(time)) throw errors.badSinceFilter(text)
  return time
}

/** Entries of one page of the journal listing, at most; `limit` asks for fewer. */
const MAX_PAGE = 1000
const DEFAULT_PAGE = 100

export function readPage(query: Record<string, string>): { limit: number; after?: number } {
  const limit = query.limit === undefined ? DEFAULT_PAGE : Number(query.limit)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw errors.badPageLimit(MAX_PAGE, query.limit)
  if (query.cursor === undefined) return { limit }
  if (!/^\d{1,15}$/.test(query.cursor)) throw errors.badPageCursor(query.cursor)
  return { limit, after: Number(query.cursor) }
}

/** The session an admin call names: `?session=`, else `X-Mock-Session`; an empty one is none. */
export function askedSession(c: Context): string | undefined {
  return sessionOf(c.req.query('session'), c.req.header('x-mock-session'))
}

export function sessionOf(...candidates: Array<string | undefined>): string | undefined {
  return candidates.find((value) => value !== undefined && value !== '')
}

export const ADMIN_BODY_LIMIT = 64 * 1024

export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder().decode(bytes))
  } catch {
    throw errors.adminBodyNotObject()
  }
  if (!isPlainObject(value)) throw errors.adminBodyNotObject()
  return value as Record<string, unknown>
}
