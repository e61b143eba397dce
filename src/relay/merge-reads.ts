import type { CoverageReport } from '../coverage/coverage-report.js'
import type { JournalEntry } from '../journal/journal-entry.js'
import type { StubUse, VerifyInput } from '../verify/verify-check.js'

/** One worker's answer, with the slot (0 to N-1) of the worker that gave it. */
export interface FromWorker<T> {
  slot: number
  value: T
}

/** Slots a global id keeps room for: the most workers of `--workers`, and of replicas on one store. */
export const SLOTS = 64

/**
 * An id across workers, `id × 64 + slot`, unique over the workers: a worker's journal numbers its
 * entries so (`Journal.numberEntries`), and the merged deliveries are named so (each worker numbers
 * its deliveries from 1). A cursor of a merged listing is one of these.
 */
export function globalId(id: number, slot: number): number {
  return id * SLOTS + slot
}

/** The worker that gave a global id, and its own number for it. */
export function slotOf(id: number): number {
  return id % SLOTS
}

/** A worker's journal numbering: its first id and the step (`Journal.numberEntries`). */
export function journalNumbering(slot: number): { first: number; step: number } {
  return { first: globalId(1, slot), step: SLOTS }
}

type Timed = { id: number; time: string }

/**
 * Every worker's items, oldest first (the same millisecond: by id); `local` ids (deliveries) made
 * global, journal entries' ids being global already.
 */
export function mergeByTime<T extends Timed>(
  answers: ReadonlyArray<FromWorker<readonly T[]>>,
  ids: 'local' | 'global' = 'local',
): T[] {
  const all = answers.flatMap(({ slot, value }) =>
    ids === 'global' ? value : value.map((item) => ({ ...item, id: globalId(item.id, slot) })),
  )
  return all.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.id - b.id))
}

/**
 * One page of the merged journal: the `limit` entries after the cursor's. A cursor whose entry has
 * since been dropped starts at the first entry of the same worker after it, by time.
 */
export function pageOf(
  entries: readonly JournalEntry[],
  { limit, after }: { limit: number; after?: number },
): { requests: JournalEntry[]; next?: string } {
  let start = 0
  if (after !== undefined) {
    const at = entries.findIndex((entry) => entry.id === after)
    if (at !== -1) start = at + 1
    else {
      const slot = slotOf(after)
      const later = entries.find((entry) => slotOf(entry.id) === slot && entry.id > after)
      start = later ? entries.findIndex((entry) => entry.time >= later.time) : entries.length
    }
  }
  const requests = entries.slice(start, start + limit)
  const more = start + limit < entries.length
  return more ? { requests, next: String(requests[requests.length - 1]!.id) } : { requests }
}

type Hits = { hits: number }

/** `GET /__mock/stubs`: the stubs are the same on every worker; their hits are summed over workers. */
export function mergeStubList(answers: ReadonlyArray<{ stubs: Array<Hits & { id: number }> }>) {
  const [mine, ...others] = answers
  const hits = new Map<number, number>()
  for (const { stubs } of others) for (const stub of stubs) hits.set(stub.id, (hits.get(stub.id) ?? 0) + stub.hits)
  return { ...mine!, stubs: mine!.stubs.map((stub) => ({ ...stub, hits: stub.hits + (hits.get(stub.id) ?? 0) })) }
}

/** `GET /__mock/stubs/{id}`: one stub, its hits summed over workers. */
export function mergeStub(answers: ReadonlyArray<Hits>) {
  return { ...answers[0]!, hits: answers.reduce((sum, answer) => sum + (answer.hits ?? 0), 0) }
}

/** `GET /__mock/scenario`: the scenario in force is the same on every worker; each rule's hits are summed. */
export function mergeScenario(answers: ReadonlyArray<{ hits: Array<Hits & { rule: string }> }>) {
  const hits = new Map<string, number>()
  for (const answer of answers) for (const { rule, hits: n } of answer.hits) hits.set(rule, (hits.get(rule) ?? 0) + n)
  return { ...answers[0]!, hits: [...hits].map(([rule, n]) => ({ rule, hits: n })) }
}

/** `GET /__mock/deliveries`: every worker's callbacks and webhooks, oldest first. */
export function mergeDeliveries(answers: ReadonlyArray<FromWorker<{ deliveries: Timed[] }>>) {
  return { deliveries: mergeByTime(answers.map(({ slot, value }) => ({ slot, value: value.deliveries }))) }
}

/**
 * `POST /__mock/verify`: what every worker's journal and stubs give, as one: the entries merged by
 * time, the drops summed, each stub's hits summed (the
 * stubs are the same on every worker).
 */
export function mergeVerifyInputs(answers: ReadonlyArray<FromWorker<VerifyInput>>): VerifyInput {
  const entries = mergeByTime(
    answers.map(({ slot, value }) => ({ slot, value: value.entries })),
    'global',
  )
  const stubs = new Map<number, StubUse>()
  for (const { value } of answers)
    for (const stub of value.stubs) {
      const seen = stubs.get(stub.id)
      stubs.set(stub.id, seen ? { ...seen, hits: seen.hits + stub.hits } : { ...stub })
    }
  const dropped = answers.reduce((sum, { value }) => sum + value.dropped, 0)
  return { entries, dropped, stubs: [...stubs.values()] }
}

/**
 * `GET /__mock/coverage` over every worker (#29): each counts its own requests over the same
 * operations in the same order, so the counts are added row by row, unmatched paths by
 * `METHOD path` (the 100 most frequent kept), and the summary worked out again from the sums.
 */
export function mergeCoverage(answers: ReadonlyArray<FromWorker<CoverageReport>>): CoverageReport {
  const reports = answers.map((a) => a.value)
  const [first, ...others] = reports
  const merged: CoverageReport = structuredClone(first!)
  for (const report of others) {
    if (report.since < merged.since) merged.since = report.since
    merged.unmatchedOther += report.unmatchedOther
    for (const key of ['requests', 'unmatched', 'invalid'] as const) merged.summary[key] += report.summary[key]
    report.operations.forEach((operation, i) => {
      const into = merged.operations[i]!
      into.requests += operation.requests
      operation.responses.forEach((response, j) => {
        const row = into.responses[j]!
        for (const key of ['answered', 'forced', 'valid', 'invalid'] as const) row[key] += response[key]
        for (const by of Object.keys(row.chosenBy) as Array<keyof typeof row.chosenBy>)
          row.chosenBy[by] += response.chosenBy[by]
        response.bodies?.forEach((body, k) => (row.bodies![k]!.answered += body.answered))
      })
      for (const { status, answered } of operation.undeclared) {
        const known = into.undeclared.find((u) => u.status === status)
        if (known) known.answered += answered
        else into.undeclared.push({ status, answered })
      }
      into.undeclared.sort((a, b) => a.status - b.status)
    })
  }
  const unmatched = new Map<string, CoverageReport['unmatched'][number]>()
  for (const report of reports)
    for (const miss of report.unmatched) {
      const key = `${miss.method} ${miss.path}`
      const known = unmatched.get(key)
      if (known) known.count += miss.count
      else unmatched.set(key, { ...miss })
    }
  const sorted = [...unmatched.values()].sort((a, b) => b.count - a.count)
  merged.unmatched = sorted.slice(0, 100)
  merged.unmatchedOther += sorted.slice(100).reduce((sum, miss) => sum + miss.count, 0)
  // Stubs and rules are the same on every worker, and so are the declared events; an event sent by
  // another name on one worker only is added to the list.
  const hits = new Map<string, number>()
  for (const report of reports) for (const { rule, hits: n } of report.rules) hits.set(rule, (hits.get(rule) ?? 0) + n)
  merged.rules = merged.rules.map(({ rule }) => ({ rule, hits: hits.get(rule) ?? 0 }))
  const events = new Map<string, CoverageReport['events'][number]>()
  for (const report of reports)
    for (const event of report.events) {
      const key = `${event.kind} ${event.operation ?? ''} ${event.name}`
      const known = events.get(key)
      if (!known) events.set(key, { ...event })
      else for (const count of ['sent', 'delivered', 'conformed', 'undelivered'] as const) known[count] += event[count]
    }
  merged.events = [...events.values()]
  const operations = merged.operations.filter((o) => o.requests > 0).length
  const statuses = new Set<string>()
  let responses = 0
  let bodies = 0
  merged.operations.forEach((operation, i) => {
    for (const response of operation.responses) {
      bodies += response.bodies?.filter((body) => body.answered > 0).length ?? 0
      if (response.answered > 0) {
        responses++
        statuses.add(`${i} ${response.status}`)
      }
    }
  })
  merged.summary.operations.exercised = operations
  merged.summary.statuses.exercised = statuses.size
  merged.summary.responses.exercised = responses
  merged.summary.bodies.exercised = bodies
  merged.summary.rules.exercised = merged.rules.filter((rule) => rule.hits > 0).length
  merged.summary.events.exercised = merged.events.filter((event) => !event.undeclared && event.sent > 0).length
  return merged
}
