/** `Application/JSON; charset=utf-8` → `application/json`. */
export function essenceOf(mediaType: string): string {
  const semicolon = mediaType.indexOf(';')
  return (semicolon === -1 ? mediaType : mediaType.slice(0, semicolon)).trim().toLowerCase()
}

/** `application/json` or any `+json` type (`application/merge-patch+json`), given as an essence. */
export function isJsonType(essence: string): boolean {
  return essence === 'application/json' || essence.endsWith('+json')
}

/**
 * How a sequential media type frames its items (#31 §2): Server-Sent Events, JSON Lines (and its
 * ndjson names), RFC 7464 JSON text sequences, or the parts of a `multipart/mixed` body.
 */
export type SequenceFraming = 'sse' | 'jsonl' | 'json-seq' | 'multipart'

const FRAMINGS: Record<string, SequenceFraming> = {
  'text/event-stream': 'sse',
  'application/jsonl': 'jsonl',
  'application/x-jsonlines': 'jsonl',
  'application/x-ndjson': 'jsonl',
  'application/ndjson': 'jsonl',
  'application/json-seq': 'json-seq',
  'multipart/mixed': 'multipart',
}

/** The framing of a sequential media type; `undefined` for any other. */
export function framingOf(mediaType: string): SequenceFraming | undefined {
  return FRAMINGS[essenceOf(mediaType)]
}
