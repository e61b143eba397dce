import type { RequestRecord } from './journal.js'

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
  /** Only requests a rule or stub answered: `stub 3`, `scenario flaky, addPlant rule 1`. */
  answeredBy?: string
}

export function matches(record: RequestRecord, filter: JournalFilter): boolean {
  return (
    (filter.method === undefined || record.method === filter.method.toUpperCase()) &&
    (filter.path === undefined || record.path === filter.path) &&
    (filter.operation === undefined || record.operation === filter.operation) &&
    (filter.status === undefined || matchesStatus(record.status, filter.status)) &&
    (filter.session === undefined || record.session === filter.session) &&
    (filter.valid === undefined || record.valid === filter.valid) &&
    (filter.since === undefined || record.time >= Number(filter.since)) &&
    (filter.answeredBy === undefined || record.answeredBy === filter.answeredBy)
  )
}

/** `404` matches 404 only; `4xx` (or `4XX`) any status from 400 to 499. */
export function matchesStatus(status: number, wanted: number | StatusClass): boolean {
  if (typeof wanted === 'number') return status === wanted
  return Math.floor(status / 100) === Number(wanted[0])
}
