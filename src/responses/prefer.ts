import type { ValidationMode } from '../common/config.js'
import { MAX_DELAY_MS } from '../common/option-values.js'

/** What a client asked for with `Prefer` (Prism's syntax: `Prefer: code=400, example=duplicate-id`). */
export interface Preferences {
  code?: number
  example?: string
  dynamic?: boolean
  /** Milliseconds to wait before answering; NaN when the value is not a whole number in range. */
  delay?: number
  /** How this request is validated (`validate=strict|report|off`, `true` and `false` too); `null` when the value is none of these. */
  validate?: ValidationMode | null
  /** Set when code, example and dynamic came from the query (`?__code=`), so that errors name what the client wrote. */
  from?: PreferenceSource
  /** Why a query control cannot be followed (`?__dynamic=maybe`); answered as a bad preference. */
  problem?: string
  /** Items a streamed answer sends (`stream-items=`, 1 to `MAX_STREAM_ITEMS`); NaN when out of range. */
  streamItems?: number
  /** Milliseconds between them (`stream-interval=`, 0 to `MAX_STREAM_INTERVAL_MS`); NaN when out of range. */
  streamInterval?: number
}

/** Items a stream sends at most, whatever a Prefer asks. */
export const MAX_STREAM_ITEMS = 1000
/** The longest pause between two items a Prefer may ask for. */
export const MAX_STREAM_INTERVAL_MS = 10_000

/** Where code, example and dynamic came from, when not from `Prefer`: Prism's query controls. */
export type PreferenceSource = 'query'

/** How the client wrote a preference, for messages and request lines: `Prefer: code=` or `__code=`. */
export function written(name: 'code' | 'example', from: PreferenceSource | undefined): string {
  return from === 'query' ? `__${name}=` : `Prefer: ${name}=`
}

const NONE: Preferences = Object.freeze({})

/**
 * Reads the preferences the mock understands and ignores the rest, as RFC 7240 asks of unknown ones.
 * A `code` that is not a status is kept as NaN so that the caller can reject it clearly.
 */
export function parsePrefer(header: string | undefined): Preferences {
  if (!header) return NONE
  const preferences: Preferences = {}
  for (const part of header.split(/[,;]/)) {
    const equals = part.indexOf('=')
    if (equals === -1) continue
    const key = part.slice(0, equals).trim().toLowerCase()
    // RFC 7240 §2: only the first instance of a repeated preference counts.
    if (Object.hasOwn(preferences, key)) continue
    const value = part
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
    if (key === 'code') preferences.code = /^[1-5]\d\d$/.test(value) ? Number(value) : Number.NaN
    else if (key === 'example') preferences.example = value
    else if (key === 'dynamic') preferences.dynamic = value.toLowerCase() === 'true'
    else if (key === 'delay')
      preferences.delay = /^\d{1,9}$/.test(value) && Number(value) <= MAX_DELAY_MS ? Number(value) : Number.NaN
    else if (key === 'validate') preferences.validate = VALIDATION_WORDS[value.toLowerCase()] ?? null
    else if (key === 'stream-items') preferences.streamItems = wholeIn(value, 1, MAX_STREAM_ITEMS)
    else if (key === 'stream-interval') preferences.streamInterval = wholeIn(value, 0, MAX_STREAM_INTERVAL_MS)
  }
  return preferences
}

/** A whole number from `min` to `max`, else NaN. */
function wholeIn(text: string, min: number, max: number): number {
  const n = /^\d{1,6}$/.test(text) ? Number(text) : Number.NaN
  return n >= min && n <= max ? n : Number.NaN
}

/** `Prefer: validate=` words: the modes of `--validate`, and `true` / `false` for strict / off. */
const VALIDATION_WORDS: Record<string, ValidationMode> = Object.assign(Object.create(null), {
  strict: 'strict',
  true: 'strict',
  report: 'report',
  off: 'off',
  false: 'off',
})
