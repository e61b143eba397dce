import type { Violation } from '../errors/index.js'
import { pointerOf } from '../openapi/resolve-ref.js'

/** The response header that reports violations the mock answered past (`--validate report`, a response that breaks its schema). */
export const VIOLATIONS_HEADER = 'x-mock-violations'

/** Longest `X-Mock-Violations` value, in characters: a header, not a report (the journal keeps every violation). */
export const MAX_VIOLATIONS_HEADER = 2048

/** One violation as the header lists it: `{"location":"request.query","pointer":"/limit","message":"must be an integer"}`. */
export interface LocatedViolation {
  /** `request.` or `response.` followed by the first segment of the violation's path: `body`, `query`, `header`, `status`... */
  location: string
  /** JSON pointer within that location (`""` for the whole of it). */
  pointer: string
  message: string
}

/**
 * The `X-Mock-Violations` value: a compact JSON list, request violations first, as visible ASCII
 * (other characters escaped as `\uXXXX`, so it stays JSON). Beyond `MAX_VIOLATIONS_HEADER`, whole
 * entries are left out and a last one says how many.
 */
export function renderViolationsHeader(
  request: readonly Violation[] = [],
  response: readonly Violation[] = [],
): string {
  const located = [
    ...request.map((v) => locateViolation('request', v)),
    ...response.map((v) => locateViolation('response', v)),
  ]
  return boundedList(located, (left) => ({
    location: '',
    pointer: '',
    message: `${left} more violation${left === 1 ? '' : 's'}; the journal lists them all`,
  }))
}

/**
 * `[a,b,...]` as visible-ASCII JSON, at most `MAX_VIOLATIONS_HEADER` characters: beyond it, whole
 * entries are left out and a last one (`more`) says how many.
 */
function boundedList<T>(items: readonly T[], more: (left: number) => T): string {
  const parts: string[] = []
  // Room kept for the closing bracket and the "N more" entry.
  let length = 2 + 100
  for (const item of items) {
    const part = asciiJson(item)
    if (length + part.length + 1 > MAX_VIOLATIONS_HEADER) break
    parts.push(part)
    length += part.length + 1
  }
  const left = items.length - parts.length
  if (left > 0) parts.push(asciiJson(more(left)))
  return `[${parts.join(',')}]`
}

/** Prism's header of a request's violations, for clients written against Prism (#30). */
export const PRISM_VIOLATIONS_HEADER = 'sl-violations'

/**
 * The `sl-violations` value Prism sends with an invalid request's answer: a JSON list of
 * `{"location":["request","body","name"],"severity":"Error","message":"..."}`, bounded as
 * `X-Mock-Violations` is. Prism's `code` (an Ajv keyword) is left out: the mock's violations do not keep it.
 */
export function renderPrismViolations(violations: readonly Violation[]): string {
  return boundedList(
    violations.map((violation) => {
      const { location, pointer } = locateViolation('request', violation)
      const tokens = pointer === '' ? [] : pointer.slice(1).split('/').map(unescapePointer)
      return { location: [...location.split('.'), ...tokens], severity: 'Error', message: violation.message }
    }),
    (left) => ({
      location: [],
      severity: 'Error',
      message: `${left} more violation${left === 1 ? '' : 's'}; the journal lists them all`,
    }),
  )
}

function unescapePointer(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~')
}

/**
 * A violation's path (`body.pot.size`, `body[0]`, `header["x-id"]`, as `fieldPath` writes them) as a
 * location and a JSON pointer. A path written some other way keeps its remainder as one token.
 */
export function locateViolation(side: 'request' | 'response', { path, message }: Violation): LocatedViolation {
  const root = /^[A-Za-z]+/.exec(path)?.[0] ?? ''
  return { location: `${side}.${root}`, pointer: pathToPointer(path.slice(root.length)), message }
}

/** `.pot.size` → `/pot/size`, `[0]` → `/0`, `["a.b"]` → `/a.b` (`~` and `/` escaped). */
function pathToPointer(rest: string): string {
  let pointer = ''
  let at = 0
  // Bounded by the path's length: every step consumes at least one character.
  while (at < rest.length) {
    const step = STEP.exec(rest.slice(at))
    if (!step) return pointer + pointerOf(rest.slice(at))
    const token = step[1] ?? step[2] ?? parseQuoted(step[3]!)
    pointer += pointerOf(token)
    at += step[0].length
  }
  return pointer
}

/** `.name` (up to the next `.` or `[`), `[12]`, or `["any \"text\""]`. */
const STEP = /^(?:\.([^.[]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/

function parseQuoted(text: string): string {
  try {
    return JSON.parse(text) as string
  } catch {
    return text
  }
}

/** JSON with every character outside visible ASCII and space escaped: a header value must be one line of those. */
function asciiJson(value: unknown): string {
  const text = JSON.stringify(value)
  // Looked for first: a replace with a function runs in V8's C++ even when nothing matches (#19).
  if (!NOT_VISIBLE_ASCII.test(text)) return text
  return text.replace(NOT_VISIBLE_ASCII_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

const NOT_VISIBLE_ASCII = /[^\x20-\x7e]/
const NOT_VISIBLE_ASCII_ALL = /[^\x20-\x7e]/g
