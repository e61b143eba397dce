import { errors } from '../errors/index.js'
import { isPlainObject } from '../internal/plain-object.js'
import type { EchoedRole, ListPlan, ListWrapper } from './list-plan.js'
import { asciiToBase64Url, base64UrlToAscii } from '../internal/bytes.js'

export { compileListPlan, describeListPlan, type EchoedRole, type ListPlan, type ListWrapper } from './list-plan.js'

/** What one request asks of the list: filters (field, value as sent), offset and limit. */
export interface ListQuery {
  filters: Array<[field: string, value: string]>
  offset: number
  limit: number | undefined
}

/** The records of one page, with the total that matched before paging. */
export interface RecordPage {
  records: readonly unknown[]
  total: number
  offset: number
  limit: number | undefined
}

/** Past every record: where a page beyond the first starts when there is no page size. */
const PAST_THE_END = Number.MAX_SAFE_INTEGER

/**
 * What one request asks of the list. A cursor wins over a page, a page over an offset; numbers that
 * are not whole and non-negative (a page below 1) count as absent. `violationStatus` answers a
 * cursor the mock did not hand out.
 */
export function readListQuery(plan: ListPlan, query: URLSearchParams, violationStatus: number): ListQuery {
  const filters = plan.filters.flatMap((field) => query.getAll(field).map((value): [string, string] => [field, value]))
  const limit = readCount(plan.limit, query) ?? plan.defaultLimit
  return { filters, offset: readOffset(plan, query, limit, violationStatus), limit }
}

/** Where the page starts, from the cursor, the page number or the offset, else 0. */
function readOffset(
  plan: ListPlan,
  query: URLSearchParams,
  limit: number | undefined,
  violationStatus: number,
): number {
  const cursor = plan.cursor === undefined ? '' : (query.get(plan.cursor) ?? '')
  if (cursor !== '') return readCursor(cursor, plan.cursor!, violationStatus)
  const page = readCount(plan.page, query)
  if (page !== undefined && page >= 1) {
    if (limit === undefined) return page === 1 ? 0 : PAST_THE_END
    return (page - 1) * limit
  }
  return readCount(plan.offset, query) ?? 0
}

/** A parameter's whole non-negative value, or undefined where it is absent or anything else. */
function readCount(name: string | undefined, query: URLSearchParams): number | undefined {
  const text = name === undefined ? null : query.get(name)
  if (text === null || !/^\d+$/.test(text)) return undefined
  const value = Number(text)
  return Number.isSafeInteger(value) ? value : undefined
}

/** A cursor is `o:<offset>` in base64url: opaque to clients, checked by making it again. */
function encodeCursor(offset: number): string {
  return asciiToBase64Url(`o:${offset}`)
}

/** The offset a cursor the mock made stands for; anything else throws the operation's violation. */
function readCursor(text: string, parameter: string, violationStatus: number): number {
  const match = /^o:(0|[1-9]\d*)$/.exec(base64UrlToAscii(text) ?? '')
  const offset = match ? Number(match[1]) : NaN
  if (!Number.isSafeInteger(offset) || encodeCursor(offset) !== text) {
    throw errors.badListCursor(violationStatus, parameter, text)
  }
  return offset
}

/**
 * Applies a ListQuery to records in order: a record matches when, for each filtered field, the
 * field is there and its text is one of the values sent for it (a repeated key matches any of its
 * values); then the offset and limit. The in-memory store's list, kept pure.
 */
export function pageRecords(records: Iterable<Readonly<Record<string, unknown>>>, query: ListQuery): RecordPage {
  const wanted = valuesByField(query.filters)
  const end = query.limit === undefined ? Infinity : query.offset + query.limit
  const page: unknown[] = []
  let total = 0
  for (const record of records) {
    if (!matches(record, wanted)) continue
    if (total >= query.offset && total < end) page.push(record)
    total++
  }
  return { records: page, total, offset: query.offset, limit: query.limit }
}

/** The filters grouped: each field with every value sent for it. */
function valuesByField(filters: ListQuery['filters']): Map<string, Set<string>> {
  const wanted = new Map<string, Set<string>>()
  for (const [field, value] of filters) wanted.set(field, (wanted.get(field) ?? new Set()).add(value))
  return wanted
}

/** Whether a record has, for every filtered field, one of its values (a missing field matches none). */
function matches(record: Readonly<Record<string, unknown>>, wanted: Map<string, Set<string>>): boolean {
  for (const [field, values] of wanted) {
    const value = record[field]
    if (value === undefined || !values.has(String(value))) return false
  }
  return true
}

/**
 * The list answer's value: the records (each through `project`, the caller's turning of a record
 * into the item the schema declares) as an array, or the wrapper filled. `base` is the caller's
 * sample of the wrapper schema: its required properties the mock does not fill are taken from it,
 * in its order; optional ones are left out.
 */
export function renderListPage(
  plan: ListPlan,
  page: RecordPage,
  base: unknown,
  project: (record: unknown) => unknown,
): unknown {
  const items = page.records.map((record) => project(record))
  if (!plan.wrapper) return items
  const filled = fillWrapper(plan, plan.wrapper, page, items)
  const sample = isPlainObject(base) ? base : {}
  const answer: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(sample)) {
    if (name in filled) answer[name] = filled[name]
    else if (plan.wrapper.required.includes(name)) answer[name] = value
  }
  return Object.assign(answer, filled)
}

/** The wrapper properties the mock fills from the page; a next cursor at the end is null, left out, or `''`. */
function fillWrapper(
  plan: ListPlan,
  wrapper: ListWrapper,
  page: RecordPage,
  items: unknown[],
): Record<string, unknown> {
  const nextOffset = page.offset + page.records.length
  const more = nextOffset < page.total
  const filled: Record<string, unknown> = { [wrapper.items]: items }
  if (wrapper.total) filled[wrapper.total] = page.total
  if (wrapper.hasMore) filled[wrapper.hasMore] = more
  if (wrapper.next) {
    const end = wrapper.nextNullable ? null : wrapper.required.includes(wrapper.next) ? '' : undefined
    const next = more ? encodeCursor(nextOffset) : end
    if (next !== undefined) filled[wrapper.next] = next
  }
  for (const role of wrapper.echoes) {
    const value = echoOf(role, page)
    if (value !== undefined) filled[plan[role]!] = value
  }
  return filled
}

/** The value a wrapper echoes for a role: undefined where the request set no page size (and asked past page 1). */
function echoOf(role: EchoedRole, page: RecordPage): number | undefined {
  if (role === 'offset') return page.offset
  if (role === 'limit') return page.limit
  if (page.limit) return Math.floor(page.offset / page.limit) + 1
  return page.offset === 0 ? 1 : undefined
}
