import type { SequenceFraming } from '../internal/media-type.js'
import { utf8Text } from '../internal/bytes.js'
import { eventFieldsOf } from '../internal/event-stream.js'

/**
 * The framings the proxy reads item by item: Server-Sent Events, JSON Lines, JSON text sequences. A
 * `multipart/mixed` answer, whose boundary each upstream names, is passed through unread.
 */
export type ItemFraming = Exclude<SequenceFraming, 'multipart'>

/** The framing an upstream's stream is read item by item with; `undefined` for one passed through unread. */
export function itemFramingOf(framing: SequenceFraming | undefined): ItemFraming | undefined {
  return framing === 'multipart' ? undefined : framing
}

/** One item of an upstream's stream (#31 §2), split from the bytes as they came. */
export interface StreamItem {
  /** Its bytes as they came, framing included (`data:` lines and the blank line, the line end, the RS): passed on unchanged. */
  bytes: Uint8Array
  /**
   * The JSON text it carries, to be judged: an SSE event's `data` lines joined, a JSON Lines line, an
   * RS-framed text. `undefined` for bytes that carry no item: an SSE comment, `retry:` or an event
   * never ended, a blank line.
   */
  text?: string
  /** The text parsed already, where finding the item's end took it (a JSON text sequence's); `undefined` otherwise. */
  parsed?: { value: unknown }
}

/** Splits a stream's bytes into items as they come; holds only the item not yet ended. */
export interface ItemReader {
  /** The items `chunk` ends, in order; `'too long'` once the item still coming is longer than the reader holds (it holds nothing more). */
  read(chunk: Uint8Array): StreamItem[] | 'too long'
  /** The stream has ended: what it held, as its last item (a JSON line with no line end), or as bytes that carry none. */
  end(): StreamItem[]
}

const LF = 0x0a
const CR = 0x0d
const RS = 0x1e

/**
 * Reads an upstream's stream item by item, as its media type frames them: Server-Sent Events end at a
 * blank line (a line ends with LF, CRLF or CR), JSON Lines at each LF, RFC 7464 JSON text sequences
 * at the next RS or at an LF that ends a whole JSON text. At most `maxItemBytes` of an item not yet
 * ended are held: past that the reader says `'too long'` rather than grow.
 */
export function createItemReader(framing: ItemFraming, maxItemBytes: number): ItemReader {
  const split = SPLITTERS[framing]()
  // The item not yet ended, at the start of a buffer that doubles as it grows: an item that comes in
  // many chunks is copied about twice, not once a chunk.
  let buffer: Uint8Array = new Uint8Array(0)
  let held = 0
  const hold = (rest: Uint8Array, from: number) => {
    if (from === -1) {
      if (rest.byteLength > buffer.byteLength) buffer = grown(buffer.subarray(0, 0), rest.byteLength)
      buffer.set(rest)
    } else buffer.copyWithin(0, from, from + rest.byteLength)
    held = rest.byteLength
  }
  return {
    read(chunk) {
      if (held === 0) {
        // The usual chunk ends its items: they are cut from it, nothing is copied.
        const { items, rest } = split.items(chunk)
        if (rest.byteLength > maxItemBytes) return 'too long'
        hold(rest, -1)
        return items
      }
      if (held + chunk.byteLength > buffer.byteLength) buffer = grown(buffer.subarray(0, held), held + chunk.byteLength)
      buffer.set(chunk, held)
      const bytes = buffer.subarray(0, held + chunk.byteLength)
      const { items, rest } = split.items(bytes)
      if (rest.byteLength > maxItemBytes) {
        buffer = new Uint8Array(0)
        held = 0
        return 'too long'
      }
      // The buffer is written over next: the items leave with copies of their bytes.
      for (const item of items) item.bytes = item.bytes.slice()
      hold(rest, bytes.byteLength - rest.byteLength)
      if (held === 0 && buffer.byteLength > KEPT_BUFFER_BYTES) buffer = new Uint8Array(0)
      return items
    },
    end() {
      const rest = buffer.slice(0, held)
      held = 0
      return rest.byteLength === 0 ? [] : [split.last(rest)]
    },
  }
}

/** A buffer this large is kept between items; a larger one, grown for a long item, is let go once that item ends. */
const KEPT_BUFFER_BYTES = 64 * 1024

/** A buffer of at least `size` bytes (twice the old one's, at least), holding `kept` at its start. */
function grown(kept: Uint8Array, size: number): Uint8Array {
  const buffer = new Uint8Array(Math.max(size, 2 * kept.byteLength, 1024))
  buffer.set(kept)
  return buffer
}

/** How one framing finds its items' ends; each keeps where its scan of the held bytes stopped. */
interface Splitter {
  /** The items `bytes` (what was held, then the new chunk) ends, and the rest, not yet ended. */
  items(bytes: Uint8Array): { items: StreamItem[]; rest: Uint8Array }
  /** The rest, once the stream ends. */
  last(rest: Uint8Array): StreamItem
}

const SPLITTERS: Record<ItemFraming, () => Splitter> = {
  jsonl: jsonLinesSplitter,
  'json-seq': jsonSequenceSplitter,
  sse: eventSplitter,
}

/** JSON Lines: an item a line; a blank line carries none. */
function jsonLinesSplitter(): Splitter {
  const itemOf = (bytes: Uint8Array): StreamItem => {
    const text = utf8Text(bytes).trim()
    return text === '' ? { bytes } : { bytes, text }
  }
  let scanned = 0
  return {
    items(bytes) {
      const items: StreamItem[] = []
      let start = 0
      for (let end = bytes.indexOf(LF, scanned); end !== -1; end = bytes.indexOf(LF, start)) {
        items.push(itemOf(bytes.subarray(start, end + 1)))
        start = end + 1
      }
      scanned = bytes.byteLength - start
      return { items, rest: bytes.subarray(start) }
    },
    last: itemOf,
  }
}

/**
 * Tries at an LF inside one text of a sequence to parse it whole: a text written on many lines costs
 * one parse a line, so past these the text waits for the next RS or the end of the stream.
 */
const MAX_PARSES_AN_ITEM = 16

/**
 * RFC 7464: each text starts with RS and ends with LF, and may span lines. A text ends at the next RS,
 * or at an LF where what came since the RS is a whole JSON text (parsed once, and kept).
 */
function jsonSequenceSplitter(): Splitter {
  const itemOf = (bytes: Uint8Array): StreamItem => {
    const text = textAfterRs(bytes)
    return text === '' ? { bytes } : { bytes, text }
  }
  let scanned = 0
  let parses = 0
  return {
    items(bytes) {
      const items: StreamItem[] = []
      let start = 0
      for (let at = scanned; at < bytes.byteLength; at++) {
        const byte = bytes[at]
        if (byte === RS && at > start && !isOnlyRs(bytes, start, at)) {
          items.push(itemOf(bytes.subarray(start, at)))
          start = at
          parses = 0
        } else if (byte === LF && parses < MAX_PARSES_AN_ITEM) {
          const candidate = bytes.subarray(start, at + 1)
          const text = textAfterRs(candidate)
          if (text === '') continue
          parses++
          const parsed = parsedOrUndefined(text)
          if (!parsed) continue
          items.push({ bytes: candidate, text, parsed })
          start = at + 1
          parses = 0
        }
      }
      scanned = bytes.byteLength - start
      return { items, rest: bytes.subarray(start) }
    },
    last: itemOf,
  }
}

/** The text of a sequence's item: after its RS (or several), trimmed. */
function textAfterRs(bytes: Uint8Array): string {
  let from = 0
  while (bytes[from] === RS) from++
  return utf8Text(bytes.subarray(from)).trim()
}

function isOnlyRs(bytes: Uint8Array, from: number, to: number): boolean {
  for (let at = from; at < to; at++) if (bytes[at] !== RS) return false
  return true
}

function parsedOrUndefined(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

/**
 * Server-Sent Events: an event ends at a blank line. A CR ends a line at once; an LF right after it
 * belongs to the same line end, and goes with the bytes of whatever follows.
 */
function eventSplitter(): Splitter {
  let scanned = 0
  // Where the line being scanned started, and whether the byte before `scanned` was a CR.
  let lineStart = 0
  let afterCr = false
  return {
    items(bytes) {
      const items: StreamItem[] = []
      let start = 0
      for (let at = scanned; at < bytes.byteLength; at++) {
        const byte = bytes[at]
        if (byte !== LF && byte !== CR) {
          afterCr = false
          continue
        }
        const endsCrLf = byte === LF && afterCr
        afterCr = byte === CR
        if (endsCrLf) {
          lineStart = at + 1
          continue
        }
        // The line ends here: a blank one ends the event.
        const blank = at === lineStart
        lineStart = at + 1
        if (!blank) continue
        // A blank line ended by CRLF: its LF, where it came already, goes with its event.
        if (byte === CR && bytes[at + 1] === LF) {
          at++
          afterCr = false
          lineStart = at + 1
        }
        items.push(eventItem(bytes.subarray(start, at + 1)))
        start = at + 1
      }
      scanned = bytes.byteLength - start
      lineStart -= start
      return { items, rest: bytes.subarray(start) }
    },
    // An event the stream never ended is not dispatched (WHATWG HTML, 9.2.6): its bytes carry no item.
    last: (bytes) => ({ bytes }),
  }
}

/** An event's item: its `data` lines joined with LF, as an EventSource gives them; none without a `data` field. */
function eventItem(bytes: Uint8Array): StreamItem {
  const text = eventFieldsOf(utf8Text(bytes)).data
  return text === undefined ? { bytes } : { bytes, text }
}
