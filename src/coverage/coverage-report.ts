import { mediaOf } from '../responses/declared-responses.js'
import { CHOSEN_BY, type ChosenBy, type CoverageCounts, type CoveredOperation, Tally } from './coverage.js'

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
    requests: number
    unmatched: number
    invalid: number
  }
  operations: OperationCoverage[]
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
  { session, nearest }: { session?: string; nearest?: (path: string) => string[] } = {},
): CoverageReport {
  const statuses: Ratio = { exercised: 0, total: 0 }
  const responses: Ratio = { exercised: 0, total: 0 }
  let exercisedOperations = 0
  const listed = operations.map((operation): OperationCoverage => {
    const tally = counts.operations.get(operation.id)
    if (tally && tally.requests > 0) exercisedOperations++
    const rows: ResponseCoverage[] = []
    for (const declared of operation.responses.declared) {
      const media = declared.mediaType === undefined ? [undefined] : mediaOf(declared).map((m) => m.mediaType)
      let statusExercised = false
      for (const mediaType of media) {
        const counted = tally?.responses.get(`${declared.code} ${mediaType ?? ''}`) ?? NONE
        rows.push(rowOf(declared.code, mediaType ?? null, counted))
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
      undeclared: [...(tally?.undeclared ?? [])]
        .sort(([a], [b]) => a - b)
        .map(([status, answered]) => ({ status, answered })),
    }
  })
  const report: CoverageReport = {
    since: new Date(counts.since).toISOString(),
    summary: {
      operations: { exercised: exercisedOperations, total: operations.length },
      statuses,
      responses,
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
  }
  if (session !== undefined) report.session = session
  return report
}

function rowOf(status: string, mediaType: string | null, counted: Tally): ResponseCoverage {
  const chosenBy = {} as Record<ChosenBy, number>
  for (const by of CHOSEN_BY) chosenBy[by] = counted[by]
  const { answered, forced, valid, invalid } = counted
  return { status, mediaType, answered, forced, valid, invalid, chosenBy }
}
