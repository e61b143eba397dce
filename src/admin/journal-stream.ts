import type { Hono } from 'hono'
import { errors } from '../errors/index.js'
import { concatBytes } from '../internal/bytes.js'
import type { Journal, SummaryBatch } from '../journal/journal.js'
import type { JournalEntry } from '../journal/journal-entry.js'
import type { JournalFilter } from '../journal/journal-filter.js'
import { JOURNAL_FILTERS, journalFilterOf } from './read-admin-input.js'

/** How many journal streams the mock keeps open at once: each holds a connection and a queue. */
export const MAX_JOURNAL_STREAMS = 50
/** Entries a stream holds for a reader that does not read, before it drops the next ones and says so. */
export const STREAM_QUEUE_ENTRIES = 500
/** Bytes a stream holds for such a reader: an entry carries up to 64 KiB of each body. */
export const STREAM_QUEUE_BYTES = 4 * 1024 * 1024
/** Entries replayed after `Last-Event-ID` (or `?after=`), the newest, oldest first: the journal's default size. */
export const STREAM_REPLAY_LIMIT = 1000
/** A comment line this often keeps proxies from closing a quiet stream. */
const HEARTBEAT_MS = 15_000
/** What a browser's EventSource waits before reconnecting. */
const RETRY_MS = 2000

export interface JournalStreamLimits {
  maxStreams: number
  queueEntries: number
  queueBytes: number
}

const DEFAULT_LIMITS: JournalStreamLimits = {
  maxStreams: MAX_JOURNAL_STREAMS,
  queueEntries: STREAM_QUEUE_ENTRIES,
  queueBytes: STREAM_QUEUE_BYTES,
}

/**
 * `GET /__mock/requests/stream`: each new journal entry, as `GET /__mock/requests` lists it (redacted),
 * as a Server-Sent Event (`id` the entry's, `event: request`), with the listing's filters. With
 * `?view=summary` (the dashboard's), one `event: summaries` a batch instead, `data` an array of
 * `JournalSummary` and `id` the last one's: a row's fields without headers, bodies or violations,
 * which `GET /__mock/requests/{id}` gives; at most the newest 100 of a batch, after an
 * `event: skipped` saying how many older ones were left out. With `Last-Event-ID` (or `?after=`, for a reader that
 * cannot set headers) the entries after that id are sent first (the newest 1,000 of them). A reader
 * that falls behind gets an `event: dropped` with how many entries it missed, never an unbounded queue.
 */
export function addJournalStreamRoute(
  admin: Hono,
  journal: Journal,
  closing: AbortSignal | undefined,
  limits: JournalStreamLimits = DEFAULT_LIMITS,
): void {
  // The streams' ends, called when the server closes: one listener for them all (not one a stream).
  const ends = new Set<() => void>()
  closing?.addEventListener('abort', () => ends.forEach((end) => end()), { once: true })
  admin.get('/requests/stream', (c) => {
    const query = c.req.query()
    const filter = journalFilterOf(query, c.req.header('x-mock-session'), STREAM_PARAMETERS)
    const after = readAfter(c.req.header('last-event-id') ?? query.after)
    const summary = readView(query.view)
    // HEAD gets the head alone: Hono would drop the body unread, and the stream with its place.
    if (c.req.method === 'HEAD') return c.body(null, 200, STREAM_HEADERS)
    if (ends.size >= limits.maxStreams) throw errors.adminTooManyStreams(limits.maxStreams)
    const body = createJournalStream(journal, { filter, after, limits, ends, summary })
    return c.body(body, 200, STREAM_HEADERS)
  })
}

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  // Never reused: when the stream ends (the server closing), the connection goes with it.
  connection: 'close',
}

/** The stream's parameters: the journal's filters, the replay cursor and the view. */
const STREAM_PARAMETERS: readonly string[] = [...JOURNAL_FILTERS, 'after', 'view']

/** `?view=summary` or `?view=entries` (the default); 400 for anything else. */
function readView(view: string | undefined): boolean {
  if (view === undefined || view === 'entries') return false
  if (view === 'summary') return true
  throw errors.adminBadStreamView(view)
}

/** An entry id (`Last-Event-ID`, `?after=`); 400 for anything else. */
function readAfter(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined
  if (/^\d{1,15}$/.test(text)) return Number(text)
  throw errors.adminBadEventId(text)
}

interface StreamSetup {
  filter: JournalFilter
  /** Replay the entries after this id first. */
  after: number | undefined
  limits: JournalStreamLimits
  /** The open streams' ends, which the server's closing calls: it would otherwise wait for their readers. */
  ends: Set<() => void>
  /** `?view=summary`: a batch's summaries a event. */
  summary: boolean
}

/** One reader's stream: subscribed first, then the replay, so that no entry falls between the two. */
function createJournalStream(
  journal: Journal,
  { filter, after, limits, ends, summary }: StreamSetup,
): ReadableStream<Uint8Array> {
  const queue = createEventQueue(limits)
  ends.add(queue.end)
  let lastId = after ?? 0
  const send = (entry: JournalEntry) => {
    if (entry.id <= lastId) return
    lastId = entry.id
    queue.add(eventOf(entry), 1)
  }
  // A batch may hold summaries the replay sent already: those after `lastId` alone are sent.
  const sendSummaries = (batch: SummaryBatch) => {
    const newest = batch.ids[batch.ids.length - 1]!
    if (newest <= lastId) return
    const event = summariesEventOf(batch, lastId)
    lastId = newest
    queue.add(event.bytes, event.count)
  }
  let replay: JournalEntry[] = []
  let replayed = 0
  let summaryReplay: Uint8Array | undefined
  const unsubscribe = summary ? journal.subscribeSummaries(filter, sendSummaries) : journal.subscribe(filter, send)
  let heartbeat: ReturnType<typeof setInterval> | undefined
  let closed = false
  const close = () => {
    if (closed) return
    closed = true
    unsubscribe()
    clearInterval(heartbeat)
    ends.delete(queue.end)
  }
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(ENCODER.encode(`retry: ${RETRY_MS}\n: plant-store-mock journal\n\n`))
        if (after !== undefined && summary) {
          const batch = journal.summariesAfter(filter, after, STREAM_REPLAY_LIMIT)
          if (batch) {
            summaryReplay = summariesEventOf(batch, after).bytes
            lastId = batch.ids[batch.ids.length - 1]!
          }
        } else if (after !== undefined) {
          replay = newestAfter(journal, filter, after)
          if (replay.length) lastId = replay[replay.length - 1]!.id
        }
        heartbeat = setInterval(() => queue.idle() && queue.add(HEARTBEAT, 0), HEARTBEAT_MS)
      },
      async pull(controller) {
        // The replay first, a few entries a pull, outside the queue's bounds (it is bounded itself).
        if (summaryReplay !== undefined) {
          controller.enqueue(summaryReplay)
          summaryReplay = undefined
          return
        }
        if (replayed < replay.length) {
          const part = replay.slice(replayed, (replayed += REPLAY_CHUNK)).map(eventOf)
          return controller.enqueue(
            concatBytes(
              part,
              part.reduce((sum, event) => sum + event.byteLength, 0),
            ),
          )
        }
        replay = []
        const chunk = await queue.take()
        if (chunk !== undefined) return controller.enqueue(chunk)
        close()
        controller.close()
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  )
}

/**
 * The newest `STREAM_REPLAY_LIMIT` entries after `after`, oldest first, read a page at a time so that
 * a journal larger than that (`--journal-size`) never has more than two pages built at once.
 */
function newestAfter(journal: Journal, filter: JournalFilter, after: number): JournalEntry[] {
  let newest: JournalEntry[] = []
  let cursor: number | undefined = after
  while (cursor !== undefined) {
    const page = journal.pageRequests(filter, { limit: STREAM_REPLAY_LIMIT, after: cursor })
    newest = [...newest, ...page.entries].slice(-STREAM_REPLAY_LIMIT)
    cursor = page.next
  }
  return newest
}

/** Replayed entries sent in one chunk. */
const REPLAY_CHUNK = 50

const ENCODER = new TextEncoder()
const HEARTBEAT = ENCODER.encode(': heartbeat\n\n')

/**
 * An entry's event, as bytes, made once for every stream: the journal's feed hands each stream the
 * same entry object, so the first stream to send it serialises and encodes it for the others.
 */
const encodedEvents = new WeakMap<JournalEntry, Uint8Array>()
function eventOf(entry: JournalEntry): Uint8Array {
  let event = encodedEvents.get(entry)
  if (event === undefined) {
    event = ENCODER.encode(`id: ${entry.id}\nevent: request\ndata: ${JSON.stringify(entry)}\n\n`)
    encodedEvents.set(entry, event)
  }
  return event
}

/**
 * A batch's summaries as one event, made once for every stream of the same filter (they share the
 * batch); a stream whose replay reached into the batch gets those after its last id, made for it alone.
 */
const encodedSummaries = new WeakMap<SummaryBatch, QueuedEvent>()
function summariesEventOf(batch: SummaryBatch, after: number): QueuedEvent {
  const whole = batch.ids[0]! > after
  let event = whole ? encodedSummaries.get(batch) : undefined
  if (event === undefined) {
    const texts = whole ? batch.texts : batch.texts.filter((_, i) => batch.ids[i]! > after)
    const lastId = batch.ids[batch.ids.length - 1]!
    // Those the batch left out are told first, so that a reader knows the rows it shows are not all.
    const skipped = batch.skipped ? `event: skipped\ndata: {"skipped":${batch.skipped}}\n\n` : ''
    event = {
      bytes: ENCODER.encode(`${skipped}id: ${lastId}\nevent: summaries\ndata: [${texts.join(',')}]\n\n`),
      count: texts.length,
    }
    if (whole) encodedSummaries.set(batch, event)
  }
  return event
}

interface QueuedEvent {
  bytes: Uint8Array
  /** The entries it carries. */
  count: number
}

/**
 * The events waiting for one reader, bounded by count and bytes. Past either bound the next entries
 * are dropped and counted; the reader learns how many in an `event: dropped` before the next entry.
 */
function createEventQueue(limits: JournalStreamLimits) {
  let events: Uint8Array[] = []
  let bytes = 0
  let dropped = 0
  let wake: (() => void) | undefined
  let ended = false
  return {
    idle: () => events.length === 0,
    end() {
      ended = true
      wake?.()
    },
    /** An event of `entries` entries (a summary event holds a batch's). */
    add(event: Uint8Array, entries: number) {
      if (events.length >= limits.queueEntries || bytes + event.byteLength > limits.queueBytes) {
        dropped += entries
        return
      }
      if (dropped !== 0) {
        const notice = ENCODER.encode(`event: dropped\ndata: {"dropped":${dropped}}\n\n`)
        events.push(notice)
        bytes += notice.byteLength
        dropped = 0
      }
      events.push(event)
      bytes += event.byteLength
      wake?.()
    },
    /** Everything waiting, as one chunk (one write), once there is something; undefined once ended. */
    async take(): Promise<Uint8Array | undefined> {
      while (events.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve))
      wake = undefined
      if (ended) return undefined
      const chunk = events.length === 1 ? events[0]! : concatBytes(events, bytes)
      events = []
      bytes = 0
      return chunk
    },
  }
}
