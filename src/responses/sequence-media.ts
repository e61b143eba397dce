import type { SequenceFraming } from '../internal/media-type.js'

/**
 * One item (JSON text, on one line) as its media type frames it; an SSE event carries its number (or
 * a fixture's own id) as `id`, and the event name a fixture gives it.
 */
export function frameItem(framing: SequenceFraming, json: string, id: number | string, event?: string): string {
  if (framing === 'sse') return event ? `event: ${event}\nid: ${id}\ndata: ${json}\n\n` : `id: ${id}\ndata: ${json}\n\n`
  if (framing === 'jsonl') return `${json}\n`
  return `\x1e${json}\n`
}

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
