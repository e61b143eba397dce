import {
  type DeliveryRequest,
  type OutgoingRequest,
  type ReceivedAnswer,
  type Refusal,
  attemptDelivery,
  checkReceivedAnswer,
  checkTarget,
  createOutgoing,
  isAnswer,
  pause,
  messageOf,
  recordedAnswer,
} from './delivery-attempt.js'
import {
  type DeliveryFilter,
  DeliveryJournal,
  describeSettled,
  pendingRecordOf,
  type DeliveryOutcome,
  type DeliveryRecord,
  type DeliveryWait,
} from './delivery-journal.js'

export { type DeliveryRequest } from './delivery-attempt.js'
// prettier-ignore
export { type DeliveryAttempt, type DeliveryFilter, type DeliveryKind, type DeliveryOutcome, type DeliveryReasonCode,
  type DeliveryRecord, type DeliveryWait, DeliveryWaitError } from './delivery-journal.js'

export interface DeliveryOptions {
  /** Per attempt, the answer's body included. @default 5000 */
  timeoutMs: number
  /** Further attempts after a network error, a timeout or a 5xx; never after a 2xx, 3xx or 4xx. @default 3 */
  retries: number
  /** Before the first retry; doubled before each next one. @default 500 */
  retryDelayMs: number
  /** Deliveries under way at once, their waits between retries included; the rest queue. @default 100 */
  maxInFlight: number
  /** Deliveries waiting for a free slot; beyond it a send is recorded 'dropped' and counted. @default 1000 */
  maxQueued: number
  /** Records kept; the oldest go first. @default 1000 */
  journalSize: number
  /** The `x-hub-signature-256` of a raw body (`signBody`: HMAC-SHA256 with `--webhook-secret`, GitHub's convention). @default undefined */
  sign?: (body: string) => string
  /** Host names (lower-case) a target may have; undefined: any. Pass it when the mock listens beyond loopback. @default undefined */
  allowedHosts?: readonly string[]
  /** A further refusal the caller decides (the mock's own admin API, say): a reason, or undefined. @default undefined */
  refuse?: (url: URL) => string | undefined
  logger: { info(message: string): void; warn(message: string): void }
}

export const DEFAULT_DELIVERY_OPTIONS = {
  timeoutMs: 5000,
  retries: 3,
  retryDelayMs: 500,
  maxInFlight: 100,
  maxQueued: 1000,
  journalSize: 1000,
} as const satisfies Partial<DeliveryOptions>

/** How long close() waits, once it has aborted what was left, for those sends to unwind. */
const UNWIND_MS = 1000
const CLOSING: Refusal = { code: 'delivery_closing', reason: 'The deliverer is closing; nothing new is sent.' }

/** One delivery on its way: the record it settles, what it sends, and what cancels it. */
interface Delivery {
  record: DeliveryRecord
  request: DeliveryRequest
  outgoing: OutgoingRequest
  cancel: AbortController
}

/**
 * Sends callbacks and webhooks to clients' receivers (#17), bounded everywhere: at most `maxInFlight`
 * at once and `maxQueued` waiting, a timeout per attempt, a capped body, a ring of records. Every
 * send ends in a record; none is lost silently.
 */
export class Deliverer {
  private readonly options: DeliveryOptions
  private readonly journal: DeliveryJournal
  private readonly running = new Set<Delivery>()
  private queue: Delivery[] = []
  private closing: Promise<void> | undefined
  private onIdle: (() => void) | undefined
  /** Told of each record as it settles (coverage counts it); one listener, the latest set. */
  onSettled: ((record: DeliveryRecord) => void) | undefined = undefined
  private droppedCount = 0

  constructor(options: Partial<DeliveryOptions> & Pick<DeliveryOptions, 'logger'>) {
    const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined))
    this.options = { ...DEFAULT_DELIVERY_OPTIONS, ...given } as DeliveryOptions
    checkDeliveryOptions(this.options)
    this.journal = new DeliveryJournal(this.options.journalSize)
  }

  /** How many sends were dropped because the queue was full. */
  get dropped(): number {
    return this.droppedCount
  }

  /** Queues a delivery and returns a copy of its record at once: 'pending', or 'refused', 'dropped', 'cancelled'. Never throws for the receiver's faults. */
  send(request: DeliveryRequest): DeliveryRecord {
    const delivery = this.createDelivery(request)
    const refusal = this.closing ? CLOSING : checkTarget(delivery.outgoing, this.options)
    if (refusal) {
      this.settle(delivery, refusal.code === 'delivery_closing' ? 'cancelled' : 'refused', refusal)
    } else if (this.running.size < this.options.maxInFlight) {
      this.start(delivery)
    } else if (this.queue.length < this.options.maxQueued) {
      this.queue.push(delivery)
    } else {
      this.droppedCount++
      const reason = `${this.options.maxQueued} deliveries already wait for one of ${this.options.maxInFlight} slots.`
      this.settle(delivery, 'dropped', { code: 'delivery_queue_full', reason })
    }
    return structuredClone(delivery.record)
  }

  /** Records, oldest first, matching every filter given (copies: the caller cannot change the journal). */
  list(filter?: DeliveryFilter): DeliveryRecord[] {
    return this.journal.list(filter)
  }

  /**
   * The first `count` (default 1) settled records matching the filter, once there are that many;
   * rejects after `timeoutMs` (default 5000) with a `DeliveryWaitError` saying what matched and what is pending.
   */
  waitFor(wait?: DeliveryWait): Promise<DeliveryRecord[]> {
    return this.journal.waitFor(wait)
  }

  /** Empties the journal (all, or one session's) of settled records; sends under way go on and are recorded. */
  clear(session?: string): void {
    this.journal.clear(session)
  }

  /** Takes no new sends (they are recorded 'cancelled'), lets pending ones finish for up to `graceMs`, then cancels the rest. */
  close(graceMs: number): Promise<void> {
    this.closing ??= this.closeAfter(graceMs)
    return this.closing
  }

  /** The record, kept in the journal from the start, and what every attempt sends. */
  private createDelivery(request: DeliveryRequest): Delivery {
    const record = this.journal.add(pendingRecordOf(request))
    const outgoing = createOutgoing(request, record.id, this.options.sign)
    record.request.headers = outgoing.headers
    return { record, request, outgoing, cancel: new AbortController() }
  }

  private start(delivery: Delivery): void {
    this.running.add(delivery)
    void this.deliver(delivery)
      .catch((error: unknown) => {
        const reason = `The deliverer broke: ${messageOf(error)}`
        this.settle(delivery, 'failed', { code: 'delivery_internal', reason })
      })
      .finally(() => {
        this.running.delete(delivery)
        while (this.running.size < this.options.maxInFlight && this.queue.length > 0) this.start(this.queue.shift()!)
        if (this.running.size === 0) this.onIdle?.()
      })
  }

  /** Attempts until an answer below 500 or the last retry; a delivery cancelled meanwhile stops where it is. */
  private async deliver(delivery: Delivery): Promise<void> {
    const { record, cancel } = delivery
    let last: Refusal = { code: 'delivery_network_error', reason: 'no attempt was made' }
    let lastAnswer: ReceivedAnswer | undefined
    for (let attempt = 0; attempt <= this.options.retries; attempt++) {
      if (attempt > 0) await pause(this.options.retryDelayMs * 2 ** (attempt - 1), cancel.signal)
      if (record.outcome !== 'pending') return
      const time = new Date().toISOString()
      const started = performance.now()
      const result = await attemptDelivery(delivery.outgoing, this.options.timeoutMs, cancel.signal)
      if (record.outcome !== 'pending') return
      const durationMs = Math.round(performance.now() - started)
      if (!isAnswer(result)) {
        record.attempts.push({ time, durationMs, error: result.error })
        last = { code: result.code, reason: result.error }
        continue
      }
      record.attempts.push({ time, durationMs, status: result.status })
      if (result.status < 500) return this.settleAnswered(delivery, result)
      lastAnswer = result
      last = { code: 'delivery_server_error', reason: `the receiver answered ${result.status}` }
    }
    const failed = { code: last.code, reason: `${record.attempts.length} attempts failed; the last: ${last.reason}.` }
    this.settle(delivery, 'failed', lastAnswer ? { ...failed, response: recordedAnswer(lastAnswer) } : failed)
  }

  /** A non-conforming answer is reported, not retried: the receiver chose it. */
  private settleAnswered(delivery: Delivery, answer: ReceivedAnswer): void {
    const violations = checkReceivedAnswer(delivery.request, answer)
    this.settle(delivery, 'delivered', {
      response: recordedAnswer(answer),
      conformed: violations.length === 0,
      violations,
    })
  }

  /** The only way a record leaves 'pending': once, logged, and announced to the waiters. */
  private settle(delivery: Delivery, outcome: DeliveryOutcome, fields: Partial<DeliveryRecord>): void {
    const { record } = delivery
    if (record.outcome !== 'pending') return
    Object.assign(record, fields, { outcome })
    const { line, warn } = describeSettled(record)
    if (warn) this.options.logger.warn(line)
    else this.options.logger.info(line)
    this.onSettled?.(record)
    this.journal.settled()
  }

  private async closeAfter(graceMs: number): Promise<void> {
    await this.untilIdle(graceMs)
    const left = [...this.queue, ...this.running]
    this.queue = []
    for (const delivery of left) {
      const reason = `The deliverer closed before the delivery settled (${graceMs} ms of grace).`
      this.settle(delivery, 'cancelled', { code: 'delivery_closed', reason })
      delivery.cancel.abort()
    }
    // Aborted sends unwind in a few ticks; the bound only keeps a bug from holding close() forever.
    await this.untilIdle(UNWIND_MS)
    this.journal.rejectWaiters()
  }

  /** Resolves once nothing runs or waits, or after `ms`. */
  private untilIdle(ms: number): Promise<void> {
    if (this.running.size === 0 && this.queue.length === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.onIdle = undefined
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.onIdle = done
    })
  }
}

/** The options come from code, not users: a wrong one is a bug, thrown at construction with code `delivery_bad_option`. */
function checkDeliveryOptions(options: DeliveryOptions): void {
  const least = { timeoutMs: 1, retries: 0, retryDelayMs: 0, maxInFlight: 1, maxQueued: 0, journalSize: 0 }
  for (const [name, min] of Object.entries(least)) {
    const value = options[name as keyof typeof least]
    if (Number.isSafeInteger(value) && value >= min) continue
    const error = new RangeError(`Deliverer option ${name} must be an integer of at least ${min}, not ${value}.`)
    throw Object.assign(error, { code: 'delivery_bad_option' })
  }
}
