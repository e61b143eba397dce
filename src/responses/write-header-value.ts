import { toHeaderValue } from '../internal/header-value.js'
import type { HeaderDescription } from '../openapi/operations.js'
import { isPlainObject } from '../internal/plain-object.js'
import { kindOf } from './serialize-body.js'

/**
 * A value in the `simple` style, the one style of headers (OpenAPI "Style Examples"): an array
 * `3,4,5`; an object `role,admin,x,1`, or exploded `role=admin,x=1`; a header declared with `content`
 * is a document of its media type (JSON text for JSON).
 */
export function writeHeaderValue(
  value: unknown,
  { explode, mediaType }: Pick<HeaderDescription, 'explode' | 'mediaType'>,
): string {
  if (mediaType !== undefined) return kindOf(mediaType) === 'json' ? (JSON.stringify(value) ?? '') : writeItem(value)
  if (Array.isArray(value)) return value.map(writeItem).join(',')
  if (isPlainObject(value))
    return Object.entries(value)
      .map(([k, v]) => `${k}${explode ? '=' : ','}${writeItem(v)}`)
      .join(',')
  return writeItem(value)
}

/** A scalar as text; `null` as nothing; a nested array or object as JSON (the style table stops at one level). */
function writeItem(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/**
 * Text a header can carry as it is: line breaks become one space (as a folded header line is read,
 * RFC 9112 §5.2), other controls are dropped, what is not ASCII is percent-encoded (`toHeaderValue`),
 * and the ends are trimmed, as every client trims them.
 */
export function toHeaderText(text: string): string {
  return toHeaderValue(text.replace(/[ \t]*[\r\n]+[ \t]*/g, ' ')).trim()
}
