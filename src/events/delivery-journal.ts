import type { Violation } from '../errors/index.js'
import { type DeliveryRequest, keptBody } from './delivery-attempt.js'

export type DeliveryKind = 'callback' | 'webhook'
export type DeliveryOutcome = 'pending' | 'delivered' | 'failed' | 'refused' | 'cancelled' | 'dropped'

/**
 * Why a delivery was refused, dropped, cancelled or failed; stable, so tests and tools match the code
 * while people read `reason`. A code never changes meaning; a new cause gets a new code.
 */
export type DeliveryReasonCode =
  | 'delivery_bad_url'
  | 'delivery_unsupported_scheme'
  | 'delivery_host_not_allowed'
  | 'delivery_refused_by_caller'
  | 'delivery_bad_request'
  | 'delivery_queue_full'
  | 'delivery_closing'
  | 'delivery_closed'
  | 'delivery_timeout'
  | 'delivery_network_error'
  | 'delivery_server_error'
  | 'delivery_internal'

export interface DeliveryAttempt {
  /** When the attempt began (ISO 8601). */
  time: string
  durationMs: number
  /** The receiver's status, when it answered. */
  status?: number
  /** Why no answer came (timeout, network error). */
  error?: string
}

export interface DeliveryRecord {
  id: number
  time: string
  kind: DeliveryKind
  name: string
  operation?: string
  session?: string
  /** The target's origin (`http://127.0.0.1:4010`), or the URL as given when it does not parse. */
  target: string
  /** As sent, with the headers the deliverer added; the body's first 64 KiB. */
  request: { method: string; url: string; headers: Record<string, string>; body?: string; bodyTruncated?: true }
  attempts: DeliveryAttempt[]
  outcome: DeliveryOutcome
  /** Why it was refused, failed, dropped or cancelled. */
  reason?: string
  code?: DeliveryReasonCode
  /** The receiver's final answer (for 'failed', its last 5xx); the body's first 64 KiB. */
  response?: { status: number; headers: Record<string, string>; body?: string; bodyTruncated?: true }
  /** The final answer conforms to what the callback/webhook declares (set once delivered). */
  conformed?: boolean
  violations?: Violation[]
}

export interface DeliveryFilter {
  name?: string
  kind?: DeliveryKind
  session?: string
  outcome?: DeliveryOutcome
  operation?: string
  /** Only deliveries whose receiver answered as declared (true) or not (false). */
  conformed?: boolean
  /** Only deliveries sent at or after this time (a `Date` or milliseconds since the epoch). */
  since?: Date | number
}

export interface DeliveryWait extends DeliveryFilter {
  /** How many settled records to wait for; default 1. */
  count?: number
  /** Default 5000. */
  timeoutMs?: number
}

/** An Error a test can match on: `delivery_wait_timeout`, or `delivery_closed` when the deliverer closed first. */
export class DeliveryWaitError extends Error {
  constructor(
    readonly code: 'delivery_wait_timeout' | 'delivery_closed',
    message: string,
  ) {
    super(message)
    this.name = 'DeliveryWaitError'
  }
}

interface Waiter {
  wait: DeliveryWait
  count: number
  resolve(records: DeliveryRecord[]): void
  reject(error: DeliveryWaitError): void
  timer: NodeJS.Timeout
}

const FILTER_KEYS = ['name', 'kind', 'session', 'outcome', 'operation', 'conformed'] as const

/** The record matches every filter given; a filter left out matches all. */
export function isDeliveryMatch(record: DeliveryRecord, filter: DeliveryFilter): boolean {
  return (
    FILTER_KEYS.every((key) => filter[key] === undefined || filter[key] === record[key]) &&
    (filter.since === undefined || Date.parse(record.time) >= Number(filter.since))
  )
}

/** A new record, pending, for the journal to number; its headers are set once the id is known. */
export function pendingRecordOf(request: DeliveryRequest): Omit<DeliveryRecord, 'id'> {
  return {
    time: new Date().toISOString(),
    kind: request.kind,
    name: request.name,
    ...(request.operation !== undefined && { operation: request.operation }),
    ...(request.session !== undefined && { session: request.session }),
    target: URL.canParse(request.url) ? new URL(request.url).origin : request.url,
    request: {
      method: request.method,
      url: request.url,
      headers: {},
      ...(request.body !== undefined && keptBody(request.body)),
    },
    attempts: [],
    outcome: 'pending',
  }
}

/** The log line of a settled record: a warning unless delivered and conforming. */
export function describeSettled(record: DeliveryRecord): { line: string; warn: boolean } {
  const what = `${record.kind} ${record.name} #${record.id} (${record.request.method} ${record.request.url})`
  if (record.outcome !== 'delivered') return { line: `${what}: ${record.outcome}: ${record.reason}`, warn: true }
  if (record.conformed) return { line: `${what}: answered ${record.response!.status}`, warn: false }
  const broken = record.violations!.map((v) => `${v.path || '(answer)'}: ${v.message}`).join('; ')
  return { line: `${what}: answered ${record.response!.status}, which breaks its description: ${broken}`, warn: true }
}

/**
 * The deliveries' journal: the newest `size` records, oldest first. Records are held by reference so
 * the deliverer can settle them in place; only copies leave, so a caller cannot change the journal.
 */
export class DeliveryJournal {
  private records: DeliveryRecord[] = []
  private readonly waiters = new Set<Waiter>()
  private nextId = 1

  constructor(private readonly size: number) {}

  /** Gives the record its id and keeps it; the oldest record goes once `size` are kept, pending or not. */
  add(record: Omit<DeliveryRecord, 'id'>): DeliveryRecord {
    const kept: DeliveryRecord = { id: this.nextId++, ...record }
    if (this.size === 0) return kept
    this.records.push(kept)
    if (this.records.length > this.size) this.records.shift()
    return kept
  }

  list(filter: DeliveryFilter = {}): DeliveryRecord[] {
    return this.records.filter((record) => isDeliveryMatch(record, filter)).map((record) => structuredClone(record))
  }

  /**
   * Drops the settled records (all, or one session's). Pending ones stay, so a send under way when
   * a test clears is still recorded when it settles.
   */
  clear(session?: string): void {
    this.records = this.records.filter(
      (record) => record.outcome === 'pending' || (session !== undefined && record.session !== session),
    )
  }

  /** Called once a record has left 'pending': wakes the waiters it may satisfy. */
  settled(): void {
    for (const waiter of this.waiters) {
      const settled = this.settledMatching(waiter.wait)
      if (settled.length < waiter.count) continue
      this.forget(waiter)
      waiter.resolve(settled.slice(0, waiter.count).map((record) => structuredClone(record)))
    }
  }

  /** Resolves from `settled()`, not by polling; the timer is the only thing that ends a wait otherwise. */
  waitFor(wait: DeliveryWait = {}): Promise<DeliveryRecord[]> {
    const count = wait.count ?? 1
    const timeoutMs = wait.timeoutMs ?? 5000
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        wait,
        count,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.forget(waiter)
          reject(new DeliveryWaitError('delivery_wait_timeout', this.describeWait(waiter, `${timeoutMs} ms passed`)))
        }, timeoutMs),
      }
      this.waiters.add(waiter)
      this.settled()
    })
  }

  /** Nothing settles after the deliverer closes: every wait left would only run out its timer. */
  rejectWaiters(): void {
    for (const waiter of this.waiters) {
      this.forget(waiter)
      waiter.reject(new DeliveryWaitError('delivery_closed', this.describeWait(waiter, 'the deliverer closed')))
    }
  }

  private settledMatching(filter: DeliveryFilter): DeliveryRecord[] {
    return this.records.filter((record) => record.outcome !== 'pending' && isDeliveryMatch(record, filter))
  }

  private forget(waiter: Waiter): void {
    clearTimeout(waiter.timer)
    this.waiters.delete(waiter)
  }

  /** Says what was asked, what matched and what is still on its way, so a failing test explains itself. */
  private describeWait({ wait, count }: Waiter, why: string): string {
    const filter = Object.fromEntries(FILTER_KEYS.filter((key) => wait[key] !== undefined).map((k) => [k, wait[k]]))
    const settled = this.settledMatching(wait)
    const pending = this.records.filter(
      (record) => record.outcome === 'pending' && isDeliveryMatch(record, { ...wait, outcome: undefined }),
    )
    const listed = pending.slice(0, 5).map((r) => `#${r.id} ${r.kind} ${r.name} ${r.request.method} ${r.request.url}`)
    const more = pending.length > listed.length ? ` and ${pending.length - listed.length} more` : ''
    return (
      `Waited for ${count} settled ${count === 1 ? 'delivery' : 'deliveries'} matching ${JSON.stringify(filter)} ` +
      `until ${why}: ${settled.length} matched (${settled.map((r) => `#${r.id} ${r.outcome}`).join(', ') || 'none'}); ` +
      `pending: ${listed.length ? listed.join(', ') + more : 'none'}.`
    )
  }
}
