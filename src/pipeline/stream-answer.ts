import { errors } from '../errors/index.js'
import type { CompiledOperation } from '../engine/compile-operation.js'
import type { StaticStream } from '../responses/declared-responses.js'
import type { StreamRecord } from '../journal/journal-entry.js'
import type { StreamControl } from '../rules/rule.js'
import { madeBodyOf } from '../responses/made-body.js'
import type { RenderedResponse, StreamPlan } from '../responses/render-response.js'
import { MULTIPART_BOUNDARY, frameItem } from '../responses/sequence-media.js'
import type { Exchange, PipelineDeps } from './exchange.js'
import type { Transport } from './request-data.js'
import type { Reply } from './reply.js'

/** Items a stream sends and the pause between them when no Prefer asks: a few, as a chat answer streams. */
export const DEFAULT_STREAM_ITEMS = 3
export const DEFAULT_STREAM_INTERVAL_MS = 100

const ENCODER = new TextEncoder()

/**
 * Step 6 for a sequential media type (#31 §2): the answer's body is a stream of items, each made as
 * a body of the item schema is (the static item, or one generated per item with `--dynamic`),
 * framed as the media type frames items, `Prefer: stream-items=N, stream-interval=MS` of them (3,
 * 100 ms apart, by default), then the closing event the description shows (`data: [DONE]`). The
 * first item is made before the head is sent, so that an item no schema can give is a 500, not a
 * broken stream. An SSE client's `Last-Event-ID` resumes after that item. The client leaving ends it
 * at once: its timer is cleared, nothing goes on. The journal's entry tells, as it goes, the items
 * and bytes sent and how the stream ended.
 */
export function streamAnswer(
  rendered: RenderedResponse,
  plan: StreamPlan,
  exchange: Exchange,
  { engine }: PipelineDeps,
  operation: CompiledOperation,
  { connection }: Transport,
): Reply {
  // Prefer, refined by the rule that answers (its stream's items and interval where Prefer names none).
  const prefer = exchange.decision?.preferences ?? exchange.prefer
  const { sequence, code, sampled, given: file, request } = plan
  // Items given (a fixture's, a resource's records) are sent, or as many as Prefer asks; made items are 3 by default.
  const asked = prefer?.streamItems ?? file?.items.length ?? DEFAULT_STREAM_ITEMS
  const count = file ? Math.min(asked, file.items.length) : asked
  const interval = prefer?.streamInterval ?? DEFAULT_STREAM_INTERVAL_MS
  if (Number.isNaN(count) || Number.isNaN(interval)) throw errors.badPreferStream(operation.responses.violationStatus)
  // A rule's fault: after which item the stream breaks, stalls, or which item is not JSON.
  const fault = exchange.decision?.stream
  const makeItem = (index: number): string => {
    const item = file?.items[index]
    if (!item) return madeBodyOf(code, sequence.item, engine.errorContext, sampled).body ?? 'null'
    return item.template && request ? JSON.stringify(item.template.render(request)) : item.json
  }
  const record: StreamRecord = { items: 0, bytes: 0, ended: 'streaming' }
  // An EventSource that reconnects sends the id of the last event it had: the stream goes on after it.
  const resumed = sequence.framing === 'sse' ? resumeAfter(exchange.request.header('last-event-id'), count, file) : 0
  let next: string | undefined = resumed < count ? makeItem(resumed) : undefined
  const closing = file?.closing !== undefined && sequence.framing === 'sse' ? file.closing : sequence.closing
  let sent = resumed
  const headers: Record<string, string> = { ...rendered.headers, 'content-type': rendered.contentType! }
  // An event stream is read as it comes: no cache, no proxy buffering.
  if (sequence.framing === 'sse') Object.assign(headers, SSE_HEADERS)
  // A multipart body names the boundary between its parts.
  if (sequence.framing === 'multipart') headers['content-type'] = `multipart/mixed; boundary=${MULTIPART_BOUNDARY}`
  exchange.answer = { status: rendered.status, headers, body: null, stream: record }
  let timer: ReturnType<typeof setTimeout> | undefined
  let wake: (() => void) | undefined
  const pause = () =>
    new Promise<void>((resolve) => {
      wake = resolve
      timer = setTimeout(resolve, interval)
    })
  const send = (controller: ReadableStreamDefaultController<Uint8Array>, text: string) => {
    const bytes = ENCODER.encode(text)
    controller.enqueue(bytes)
    record.bytes += bytes.byteLength
  }
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (sent > resumed && interval > 0) await pause()
        if (record.ended !== 'streaming') return
        if (fault?.cut !== undefined && sent >= fault.cut) {
          // The connection breaks (reset, as the `reset` fault does): no closing event, no end of the
          // body. In process, with no connection, the body's reader fails instead.
          record.ended = 'cut'
          if (!connection) return controller.error(new Error(`stream cut after item ${sent} (a rule's stream.cut)`))
          // A reset drops what the socket has not sent yet: the items before the cut are let out first.
          await new Promise<void>((resolve) => (timer = setTimeout(resolve, CUT_AFTER_MS)))
          connection.reset()
          return new Promise<void>(() => {})
        }
        if (fault?.stall !== undefined && sent >= fault.stall) {
          // Nothing more: the stream stays open until the client leaves or the server closes.
          record.ended = 'stalled'
          return new Promise<void>(() => {})
        }
        if (sent >= count) {
          // Resumed after the last item (or a fault fell after it): only the closing event is left.
          if (closing) send(controller, closing)
          record.ended = 'complete'
          return controller.close()
        }
        // Unpaced (stream-interval=0), the items go in chunks of up to 64 KiB: one write, not one an item.
        let text = ''
        let items = 0
        try {
          do {
            const index = sent + items
            const item = next ?? makeItem(index)
            const malformed = index + 1 === fault?.malformed
            const own = file?.items[index]
            text += frameItem(sequence.framing, malformed ? item.slice(0, -1) : item, own?.id ?? index + 1, own?.event)
            next = undefined
            items++
          } while (interval === 0 && sent + items < count && text.length < CHUNK_CHARS && !faultAt(fault, sent + items))
        } catch (error) {
          // An item that cannot be made after the head went: the stream ends there, told in the journal.
          if (text) send(controller, text)
          record.ended = 'failed'
          engine.logger.warn(`a streamed answer of ${operation.id} ended early: ${(error as Error).message}`)
          return controller.close()
        }
        sent += items
        record.items += items
        // The last item ends the stream with its closing event, unless a fault falls after it (`end: cut`).
        if (sent === count && fault?.cut !== sent && fault?.stall !== sent) {
          send(controller, closing ? text + closing : text)
          record.ended = 'complete'
          return controller.close()
        }
        send(controller, text)
      },
      cancel() {
        if (record.ended === 'streaming') record.ended = 'client closed'
        clearTimeout(timer)
        wake?.()
      },
    },
    { highWaterMark: 0 },
  )
  return { status: rendered.status, headers, body }
}

const SSE_HEADERS = { 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }

/** Whether a fault falls after item `sent`: an unpaced chunk stops there, so that the fault comes where it is set. */
function faultAt(fault: StreamControl | undefined, sent: number): boolean {
  return fault !== undefined && (sent === fault.cut || sent === fault.stall || sent + 1 === fault.malformed)
}

/** How long a cut waits for the items before it to leave the socket. */
const CUT_AFTER_MS = 50

/** Characters of unpaced items gathered into one chunk. */
const CHUNK_CHARS = 64 * 1024

/**
 * The items a `Last-Event-ID` says were had already: made items' ids are 1 to `count`, a fixture's
 * are its events' own where it gives them. 0 for none, or for an id that is no item's.
 */
function resumeAfter(header: string | undefined, count: number, file: StaticStream | undefined): number {
  if (header === undefined) return 0
  const own = file?.items.findIndex((item) => item.id === header) ?? -1
  if (own >= 0) return Math.min(own + 1, count)
  if (!/^\d{1,6}$/.test(header.trim())) return 0
  const id = Number(header.trim())
  return id <= count ? id : 0
}
