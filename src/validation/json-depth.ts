import type { Violation } from '../errors/index.js'

/** Deepest nesting of arrays and objects a JSON body may have, by default (`--max-depth`). */
export const MAX_JSON_DEPTH = 256

/**
 * How JSON text nesting deeper than `max` is refused, before anything walks it (5,000 levels against a
 * recursive schema overflowed the validator's stack, #12): named by where the limit is passed (`at`
 * and the path down to there) and by the limit (`limit` says what sets it, e.g. ` (--max-depth)`, #34). `undefined` within it.
 * A text no longer than `max` cannot nest deeper, so most texts are not read at all.
 */
export function depthViolation(at: string, text: string, max: number, limit = ''): Violation | undefined {
  if (text.length <= max) return undefined
  const opening = deepestOpening(text, max)
  if (opening === -1) return undefined
  return {
    path: pathTo(at, text, opening),
    message: `opens level ${max + 1} of nesting at position ${opening}: the limit is ${max} levels${limit}`,
  }
}

/** Where the bracket that opens level `max + 1` is, brackets inside strings aside; -1 if none does. One pass. */
function deepestOpening(text: string, max: number): number {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // a backslash escapes the next character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return -1
}

/** Segments of a path shown at each end; a path down a deep nesting is long, and the middle says least. */
const SHOWN_SEGMENTS = 4

/**
 * The path (`body.tags[0][3]`) to the value that starts at `offset`, read off the text before it: each
 * open array at its item, each open object at its last key. Only a refused text is read this way.
 */
function pathTo(at: string, text: string, offset: number): string {
  const open: Array<{ array: boolean; segment: string; index: number; awaitingKey: boolean }> = []
  for (let i = 0; i < offset; i++) {
    const c = text.charCodeAt(i)
    const top = open[open.length - 1]
    if (c === 0x22) {
      const end = endOfString(text, i)
      if (top && !top.array && top.awaitingKey) {
        top.segment = keySegment(text.slice(i, end + 1))
        top.awaitingKey = false
      }
      i = end
    } else if (c === 0x5b) open.push({ array: true, segment: '[0]', index: 0, awaitingKey: false })
    else if (c === 0x7b) open.push({ array: false, segment: '', index: 0, awaitingKey: true })
    else if (c === 0x5d || c === 0x7d) open.pop()
    else if (c === 0x2c && top) {
      if (top.array) top.segment = `[${++top.index}]`
      else top.awaitingKey = true
    }
  }
  const segments = open.map((frame) => frame.segment)
  if (segments.length <= 2 * SHOWN_SEGMENTS) return at + segments.join('')
  return `${at}${segments.slice(0, SHOWN_SEGMENTS).join('')}…${segments.slice(-SHOWN_SEGMENTS).join('')}`
}

/** Where the string that opens at `start` closes (its last character, if it never does). */
function endOfString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x5c) i++
    else if (c === 0x22) return i
  }
  return text.length - 1
}

/** A key as a path segment: `.name`, or `["a b"]` for one that is not a plain name. */
function keySegment(quoted: string): string {
  let key: string
  try {
    key = JSON.parse(quoted) as string
  } catch {
    key = quoted.slice(1, -1)
  }
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
}
