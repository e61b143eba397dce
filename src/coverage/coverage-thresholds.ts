import type { CoverageReport } from './coverage-report.js'

import type { CoverageMinimum } from '../common/config.js'

const KINDS = ['operations', 'statuses', 'responses', 'bodies', 'rules', 'events'] as const

/** Reads `operations=100,statuses=80`; throws a plain `Error` naming what is wrong (the option reader words it). */
export function parseCoverageMinimum(text: string): CoverageMinimum {
  const minimum: CoverageMinimum = {}
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^(operations|statuses|responses|bodies|rules|events)=(\d{1,3}(?:\.\d+)?)$/.exec(part)
    const value = match ? Number(match[2]) : NaN
    if (!match || !(value >= 0 && value <= 100))
      throw new Error(
        `"${part}" is not <kind>=<percent>: kinds are ${KINDS.join(', ')}, percents 0 to 100 (operations=100,statuses=80)`,
      )
    minimum[match[1] as (typeof KINDS)[number]] = value
  }
  if (Object.keys(minimum).length === 0) throw new Error('names no threshold (operations=100,statuses=80)')
  return minimum
}

/** What misses a threshold, each a sentence naming what was never exercised; empty when all are met. */
export function missedThresholds(report: CoverageReport, minimum: CoverageMinimum): string[] {
  const missed: string[] = []
  for (const kind of KINDS) {
    const wanted = minimum[kind]
    if (wanted === undefined) continue
    const { exercised, total } = report.summary[kind]
    const share = total === 0 ? 100 : (100 * exercised) / total
    if (share + 1e-9 >= wanted) continue
    missed.push(
      `${kind}: ${exercised}/${total} exercised (${Math.floor(share * 10) / 10} %), below ${wanted} %; never exercised: ${neverExercised(report, kind).join(', ') || 'none'}`,
    )
  }
  return missed
}

function neverExercised(report: CoverageReport, kind: (typeof KINDS)[number]): string[] {
  const names: string[] = []
  if (kind === 'rules')
    return report.rules
      .filter((row) => row.hits === 0)
      .map((row) => row.rule)
      .slice(0, 50)
  if (kind === 'events')
    return report.events
      .filter((event) => !event.undeclared && event.sent === 0)
      .map((event) => (event.operation ? `${event.operation} callback ${event.name}` : `webhook ${event.name}`))
      .slice(0, 50)
  for (const operation of report.operations) {
    if (kind === 'bodies') {
      for (const response of operation.responses)
        for (const body of response.bodies ?? [])
          if (body.answered === 0) names.push(`${operation.operation} ${response.status} ${body.origin} ${body.name}`)
      continue
    }
    if (kind === 'operations') {
      if (operation.requests === 0) names.push(operation.operation)
      continue
    }
    const seen = new Map<string, number>()
    for (const response of operation.responses) {
      const key = kind === 'statuses' ? response.status : `${response.status} ${response.mediaType ?? '(no content)'}`
      seen.set(key, (seen.get(key) ?? 0) + response.answered)
    }
    for (const [key, answered] of seen) if (answered === 0) names.push(`${operation.operation} ${key}`)
  }
  return names.slice(0, 50)
}
