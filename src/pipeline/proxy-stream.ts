import type { CompiledOperation } from '../engine/compile-operation.js'
import type { Upstream } from '../engine/upstream.js'
import { type MockError, type Violation, errors, isMockError } from '../errors/index.js'
import { MAX_UPSTREAM_BODY, type UpstreamReply } from '../common/network.js'
import { concatBytes, utf8Bytes } from '../internal/bytes.js'
import { essenceOf, isJsonType } from '../internal/media-type.js'
import type { StreamRecord } from '../journal/journal-entry.js'
import { type UpstreamStream, upstreamItemViolations } from '../proxy/check-upstream-answer.js'
import { type StreamItem, createItemReader } from '../proxy/read-upstream-stream.js'
import { renderError } from '../responses/render-error.js'
import { frameItem } from '../responses/sequence-media.js'
import type { PipelineDeps } from './exchange.js'
import type { Connection } from './request-data.js'

/** Broken items of one stream listed in the journal and the log; past them, one line says more broke. */
export const MAX_TOLD_ITEMS = 20

/** What a streamed answer is passed on with. */
export interface UpstreamStreamAnswer {
  reply: UpstreamReply
  stream: UpstreamStream
  /** The journal's `response.stream`, updated as the items pass. */
  record: StreamRecord
  /** The journal's `responseViolations` of this answer: its head's, then its broken items' as they pass. */
  violations: Violation[]
  /** The client's connection, closed to cut its answer; none in process (`app.request()`), where the body fails instead. */
  connection?: Connection
}

/**
 * Proxy mode's streamed answer (#31 §2): the upstream's answer of a sequential media type is passed on
 * item by item, each as soon as it has ended, never held whole, and each is judged on its way against
 * the item schema. A broken item (not JSON, or against the schema) is listed in the journal's
 * `responseViolations` and logged as it passes; with `--errors` it is not passed on, and the stream
 * ends with an error item instead. An item longer than the proxy holds (`MAX_UPSTREAM_BODY`), or an
 * upstream that breaks off or pauses past `--proxy-timeout`, ends the stream: with an error item under
 * `--errors`, else cut, as the upstream's was. The client leaving stops the upstream's answer at once.
 * With `--record`, a stream that keeps the contract to its end is written as a stream fixture.
 */
export function streamedBody(
  { engine }: PipelineDeps,
  operation: CompiledOperation,
  upstream: Upstream,
  { reply, stream, record, violations, connection }: UpstreamStreamAnswer,
): ReadableStream<Uint8Array> {
  const { logger } = engine
  const refuse = engine.options.errors
  const origin = upstream.url.origin
  const answerOf = `the ${reply.status} stream of ${operation.id} from ${origin}`
  const reader = createItemReader(stream.framing, MAX_UPSTREAM_BODY)
  const recording =
    upstream.recorder && violations.length === 0 && stream.item
      ? upstream.recorder.recordStream(operation, reply.status, stream.framing, stream.item)
      : undefined
  let judged = 0
  let told = 0
  /** Lists and logs an item's violations, the first `MAX_TOLD_ITEMS` items' only. */
  const tell = (broken: readonly Violation[]) => {
    if (told > MAX_TOLD_ITEMS) return
    if (told++ === MAX_TOLD_ITEMS) {
      const more = `has more items that break the description; the first ${MAX_TOLD_ITEMS} are listed`
      violations.push({ path: 'body', message: more })
      return logger.warn(`${answerOf} ${more}, and no more will be.`)
    }
    violations.push(...broken)
    logger.warn(`${answerOf} has an item against the description: ${described(broken)}.`)
  }
  /** The items of one read judged, their bytes gathered in `sent`; the violations of an item `--errors` refuses. */
  const judge = (items: readonly StreamItem[], sent: Uint8Array[]): Violation[] | undefined => {
    for (const item of items) {
      if (item.text !== undefined && item.text !== stream.closing) {
        const judgement = stream.item && upstreamItemViolations(stream.item, item.text, judged, item.parsed)
        judged++
        if (judgement?.violations.length) {
          tell(judgement.violations)
          recording?.drop('an item breaks the contract')
          if (refuse) return judgement.violations
        } else recording?.keep(item.bytes, judgement?.parsed)
        record.items++
      } else if (item.text !== undefined) recording?.keep(item.bytes)
      sent.push(item.bytes)
    }
    return undefined
  }
  const send = (controller: ReadableStreamDefaultController<Uint8Array>, sent: readonly Uint8Array[]) => {
    if (sent.length === 0) return
    const bytes =
      sent.length === 1
        ? sent[0]!
        : concatBytes(
            sent,
            sent.reduce((size, b) => size + b.byteLength, 0),
          )
    record.bytes += bytes.byteLength
    controller.enqueue(bytes)
  }
  /** The stream ends early: the upstream's answer let go, and with `--errors` an error item sent, else the client's answer cut. */
  const end = (
    controller: ReadableStreamDefaultController<Uint8Array>,
    how: StreamRecord['ended'],
    error: MockError,
    sent: Uint8Array[],
  ) => {
    record.ended = how
    recording?.drop(how === 'refused' ? 'the proxy ended it' : 'it did not end whole')
    reply.destroyBody()
    if (!refuse) {
      send(controller, sent)
      // Cut as the upstream's was: the connection closed with the body unfinished. A body that fails
      // is answered by the server's own `Error:` text and a console line instead.
      if (connection) return connection.close()
      return controller.error(error)
    }
    sent.push(utf8Bytes(errorItemOf(error, stream, operation, engine.errorContext)))
    send(controller, sent)
    controller.close()
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // Until something is sent or the stream ends: a chunk may end no item yet.
        for (;;) {
          let chunk: Uint8Array | undefined
          try {
            chunk = await reply.readChunk()
          } catch (error) {
            if (record.ended !== 'streaming') return
            const failure = isMockError(error) ? error : errors.upstreamUnreachable(origin, String(error))
            logger.warn(`${answerOf} ended early: ${failure.message}`)
            return end(controller, 'upstream failed', failure, [])
          }
          // The client left while the upstream was awaited.
          if (record.ended !== 'streaming') return
          const items = chunk === undefined ? reader.end() : reader.read(chunk)
          if (items === 'too long') {
            const failure = errors.upstreamItemTooLong(origin, MAX_UPSTREAM_BODY)
            violations.push({ path: `body[${judged}]`, message: `is longer than the proxy holds: ${failure.message}` })
            logger.warn(`${answerOf} was ended: ${failure.message}`)
            return end(controller, 'refused', failure, [])
          }
          const sent: Uint8Array[] = []
          const refused = judge(items, sent)
          if (refused)
            return end(controller, 'refused', errors.upstreamBrokeContract(origin, operation.id, refused), sent)
          send(controller, sent)
          if (chunk === undefined) {
            record.ended = 'complete'
            recording?.end()
            return controller.close()
          }
          if (sent.length) return
        }
      },
      cancel() {
        if (record.ended === 'streaming') record.ended = 'client closed'
        recording?.drop('the client left before it ended')
        reply.destroyBody()
      },
    },
    { highWaterMark: 0 },
  )
}

function described(violations: readonly Violation[]): string {
  return violations.map((v) => `${v.path} ${v.message}`).join('; ')
}

/**
 * The item that ends a stream the proxy refused, framed as its items are: for Server-Sent Events an
 * `error` event whose data is `{ error, message }`; otherwise one JSON item in the description's Error
 * shape where the answer for the error's status is JSON (`renderError`), else `{ error, message }`.
 */
function errorItemOf(
  error: MockError,
  { framing }: UpstreamStream,
  operation: CompiledOperation,
  context: Parameters<typeof renderError>[2],
): string {
  const said = JSON.stringify({ error: error.status, message: error.message })
  if (framing === 'sse') return `event: error\ndata: ${said}\n\n`
  const { headers, body } = renderError(error, operation.responses, context)
  const json = typeof body === 'string' && isJsonType(essenceOf(headers['content-type'] ?? '')) ? oneLine(body) : said
  return frameItem(framing, json ?? said, 0)
}

/** JSON text on one line, as an item of JSON Lines must be; `undefined` for text that is not JSON. */
function oneLine(json: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(json))
  } catch {
    return undefined
  }
}
