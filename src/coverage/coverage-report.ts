import { type DeclaredResponse, mediaOf } from '../responses/declared-responses.js'
import type { NamedBody } from '../journal/journal.js'
import {
  CHOSEN_BY,
  type ChosenBy,
  type CoverageCounts,
  type CoveredOperation,
  EventTally,
  type OperationTally,
  Tally,
  eventKey,
} from './coverage.js'

/** `GET /__mock/coverage`, `mock.coverage()` and `coverage.json` (#29); described in admin-openapi.yaml. */
export interface CoverageReport {
  /** When counting started: the start, or the last reset. */
  since: string
  /** Only when one session's counts were asked for. */
  session?: string
  summary: {
    /** Operations with at least one answered request. */
    operations: Ratio
    /** Operation × declared status (`200`, `4XX`, `default`) answered at least once, forced or not. */
    statuses: Ratio
    /** Operation × declared status × declared media type answered at least once. */
    responses: Ratio
    /** Fixtures and declared examples served as a body at least once. */
    bodies: Ratio
    /** Stubs and scenario rules (of `fixtures/scenarios.yaml`) that answered at least once. */
    rules: Ratio
    /** Callbacks and webhooks the description declares that were sent at least once. */
    events: Ratio
    requests: number
    unmatched: number
    invalid: number
  }
  operations: OperationCoverage[]
  /** Every stub and scenario rule, with the requests it answered (those of the session asked for, if one was). */
  rules: Array<{ rule: string; hits: number }>
  /** Every declared callback and webhook, and any other sent (a webhook sent by name over the admin API). */
  events: EventCoverage[]
  /** Requests that matched no operation, by `METHOD path` (at most 100 kept), with the nearest paths served. */
  unmatched: Array<{ method: string; path: string; count: number; nearest?: string[] }>
  /** Unmatched requests past the 100 paths kept. */
  unmatchedOther: number
}

export interface Ratio {
  exercised: number
  total: number
}

export interface OperationCoverage {
  operation: string
  method: string
  path: string
  requests: number
  responses: ResponseCoverage[]
  /** Statuses answered that the operation does not declare (the mock's own 401, 415...). */
  undeclared: Array<{ status: number; answered: number }>
}

export interface ResponseCoverage {
  /** As declared: `200`, `4XX`, `default`. */
  status: string
  /** `null` for a response without content. */
  mediaType: string | null
  answered: number
  /** Answered because a `Prefer: code=`, `__code=` or a scenario forced the status. */
  forced: number
  valid: number
  invalid: number
  chosenBy: Record<ChosenBy, number>
  /** The fixtures and declared examples of this media type, each with how often it was the body; absent when it has none. */
  bodies?: Array<{ name: string; origin: 'fixture' | 'example'; answered: number }>
}

export interface EventCoverage {
  kind: 'callback' | 'webhook'
  name: string
  /** A callback's operation. */
  operation?: string
  /** Deliveries settled... */
  sent: number
  /** ...answered by the receiver (below 500)... */
  delivered: number
  /** ...as the callback or webhook declares... */
  conformed: number
  /** ...or refused, dropped, cancelled, failed. */
  undelivered: number
  /** Not in the description (a webhook sent by a name it does not declare). */
  undeclared?: true
}

/** What the report lists beside the operations: the rules and stubs, and the webhooks declared. */
export interface CoverageListing {
  session?: string
  nearest?: (path: string) => string[]
  /** The labels of the stubs and of the rules of `fixtures/scenarios.yaml`, in the order to list them. */
  rules?: readonly string[]
  /** The names of the webhooks the description declares (callbacks come with their operations). */
  webhooks?: readonly string[]
}

const NONE = new Tally()

/**
 * The report over every operation the description declares, exercised or not, in the description's
 * order: an operation or response never answered is listed with zero counts. `nearest` finds the
 * paths served nearest an unmatched one.
 */
export function coverageReport(
  counts: CoverageCounts,
  operations: readonly CoveredOperation[],
  { session, nearest, rules = [], webhooks = [] }: CoverageListing = {},
): CoverageReport {
  const statuses: Ratio = { exercised: 0, total: 0 }
  const responses: Ratio = { exercised: 0, total: 0 }
  const bodies: Ratio = { exercised: 0, total: 0 }
  let exercisedOperations = 0
  const listed = operations.map((operation): OperationCoverage => {
    const tally = counts.operations.get(operation.id)
    if (tally && tally.requests > 0) exercisedOperations++
    const { byResponse, undeclared } = gathered(tally)
    const rows: ResponseCoverage[] = []
    for (const declared of operation.responses.declared) {
      const media = declared.mediaType === undefined ? [undefined] : mediaOf(declared)
      let statusExercised = false
      for (const described of media) {
        const mediaType = described?.mediaType
        const counted = byResponse.get(declared)?.get(mediaType) ?? NONE
        const row = rowOf(declared.code, mediaType ?? null, counted)
        const served = described ? servedBodies(described.bodies.values(), counted, bodies) : []
        if (served.length) row.bodies = served
        rows.push(row)
        responses.total++
        if (counted.answered > 0) {
          responses.exercised++
          statusExercised = true
        }
      }
      statuses.total++
      if (statusExercised) statuses.exercised++
    }
    return {
      operation: operation.id,
      method: operation.method.toUpperCase(),
      path: operation.path,
      requests: tally?.requests ?? 0,
      responses: rows,
      undeclared,
    }
  })
  const ruleRows = rules.map((rule) => ({ rule, hits: counts.rules.get(rule) ?? 0 }))
  const events = eventRows(counts, operations, webhooks)
  const report: CoverageReport = {
    since: new Date(counts.since).toISOString(),
    summary: {
      operations: { exercised: exercisedOperations, total: operations.length },
      statuses,
      responses,
      bodies,
      rules: { exercised: ruleRows.filter((row) => row.hits > 0).length, total: ruleRows.length },
      events: {
        exercised: events.filter((event) => !event.undeclared && event.sent > 0).length,
        total: events.filter((event) => !event.undeclared).length,
      },
      requests: counts.requests,
      unmatched: counts.unmatched,
      invalid: counts.invalid,
    },
    operations: listed,
    unmatched: [...counts.unmatchedPaths.values()]
      .sort((a, b) => b.count - a.count)
      .map(({ method, path, count }) => {
        const near = nearest?.(path)
        return near?.length ? { method, path, count, nearest: near } : { method, path, count }
      }),
    unmatchedOther: counts.unmatchedOther,
    rules: ruleRows,
    events,
  }
  if (session !== undefined) report.session = session
  return report
}

/** A media type's fixtures and examples, in the order declared, with how often each was served; tallied into `ratio`. */
function servedBodies(
  declared: Iterable<NamedBody>,
  counted: Tally,
  ratio: Ratio,
): NonNullable<ResponseCoverage['bodies']> {
  const rows: NonNullable<ResponseCoverage['bodies']> = []
  for (const body of declared) {
    if (body.origin === 'inline') continue
    const answered = counted.bodies?.get(body) ?? 0
    rows.push({ name: body.name, origin: body.origin, answered })
    ratio.total++
    if (answered > 0) ratio.exercised++
  }
  return rows
}

/** Each declared callback (by operation) and webhook, then whatever else was sent, with their deliveries. */
function eventRows(
  counts: CoverageCounts,
  operations: readonly CoveredOperation[],
  webhooks: readonly string[],
): EventCoverage[] {
  const declared: EventTally[] = []
  for (const operation of operations)
    for (const callback of operation.callbacks ?? [])
      declared.push(new EventTally('callback', callback.name, operation.id))
  for (const name of webhooks) declared.push(new EventTally('webhook', name, undefined))
  const listed = new Set<string>()
  const rows = declared.map((empty) => {
    const key = eventKey(empty.kind, empty.name, empty.operation)
    listed.add(key)
    return eventRow(counts.events.get(key) ?? empty)
  })
  for (const [key, tally] of counts.events) if (!listed.has(key)) rows.push({ ...eventRow(tally), undeclared: true })
  return rows
}

function eventRow({ kind, name, operation, sent, delivered, conformed, undelivered }: EventTally): EventCoverage {
  const row: EventCoverage = { kind, name, sent, delivered, conformed, undelivered }
  if (operation !== undefined) row.operation = operation
  return row
}

/** An operation's counts by declared response and media type (several statuses may share a range), and its undeclared statuses. */
function gathered(tally: OperationTally | undefined) {
  const byResponse = new Map<DeclaredResponse, Map<string | undefined, Tally>>()
  const undeclared: Array<{ status: number; answered: number }> = []
  for (const [status, slot] of tally?.byStatus ?? []) {
    if (slot.declared === undefined) {
      undeclared.push({ status, answered: slot.undeclared })
      continue
    }
    const byMedia = byResponse.get(slot.declared) ?? new Map<string | undefined, Tally>()
    byResponse.set(slot.declared, byMedia)
    for (const [media, counted] of slot.byMedia) {
      const sum = byMedia.get(media) ?? new Tally()
      for (const key of TALLIED) sum[key] += counted[key]
      addBodies(sum, counted)
      byMedia.set(media, sum)
    }
  }
  return { byResponse, undeclared: undeclared.sort((a, b) => a.status - b.status) }
}

const TALLIED = ['answered', 'valid', 'invalid', 'forced', ...CHOSEN_BY] as const

/** Several statuses answered under one declared response (a range, `default`) add up their bodies too. */
function addBodies(sum: Tally, counted: Tally): void {
  if (counted.bodies === undefined) return
  const bodies = (sum.bodies ??= new Map())
  for (const [body, n] of counted.bodies) bodies.set(body, (bodies.get(body) ?? 0) + n)
}

function rowOf(status: string, mediaType: string | null, counted: Tally): ResponseCoverage {
  const chosenBy = {} as Record<ChosenBy, number>
  for (const by of CHOSEN_BY) chosenBy[by] = counted[by]
  const { answered, forced, valid, invalid } = counted
  return { status, mediaType, answered, forced, valid, invalid, chosenBy }
}
