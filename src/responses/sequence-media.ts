import type { SequenceFraming } from '../internal/media-type.js'

/**
 * One item (JSON text, on one line) as its media type frames it; an SSE event carries its number (or
 * a fixture's own id) as `id`, and the event name a fixture gives it.
 */
export function frameItem(framing: SequenceFraming, json: string, id: number | string, event?: string): string {
  if (framing === 'sse') return event ? `event: ${event}\nid: ${id}\ndata: ${json}\n\n` : `id: ${id}\ndata: ${json}\n\n`
  if (framing === 'jsonl') return `${json}\n`
  // The delimiter's CRLF leads each part, so that a part is whole in its chunk (as GraphQL servers write them).
  if (framing === 'multipart')
    return `\r\n--${MULTIPART_BOUNDARY}\r\ncontent-type: ${MULTIPART_ITEM_TYPE}\r\n\r\n${json}`
  return `\x1e${json}\n`
}

/**
 * The boundary between the parts of a `multipart/mixed` stream: one no JSON text the mock writes holds
 * on a line of its own (a part is one line of JSON).
 */
export const MULTIPART_BOUNDARY = 'plant-store-mock.part.7f3a9c'

/** Each part of a `multipart/mixed` stream is one JSON item. */
const MULTIPART_ITEM_TYPE = 'application/json'

/** What a `multipart/mixed` stream ends with: the closing delimiter. */
export const MULTIPART_CLOSING = `\r\n--${MULTIPART_BOUNDARY}--\r\n`

/**
 * The closing event an SSE stream ends with, where the description's examples show one (`data:
 * [DONE]`, as OpenAI's streams end); `undefined` where they show none.
 */
export function closingEventOf(
  framing: SequenceFraming,
  examples: ReadonlyArray<{ value: unknown }>,
): string | undefined {
  if (framing !== 'sse') return undefined
  for (const { value } of examples) {
    if (typeof value !== 'string') continue
    const done = /^data: *(\[DONE\])[ \t]*$/m.exec(value)
    if (done) return `data: ${done[1]}\n\n`
  }
  return undefined
}
