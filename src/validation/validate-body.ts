import type { ValidateFunction } from 'ajv'
import { errors, type Violation } from '../errors.js'
import type { MediaTypeDescription } from '../spec/operations.js'
import { type Ajv, compileAt, toViolations } from './create-ajv.js'
import { jsonLiterals } from './exact-integers.js'

interface AcceptedMediaType {
  /** `application/json`, `application/*`, `*\/*`... lower-cased, parameters dropped. */
  range: string
  isJson: boolean
  validate?: ValidateFunction
}

/** The request body of one operation, compiled at start-up. */
export interface BodyValidator {
  required: boolean
  accepted: AcceptedMediaType[]
  /** As declared, for the 415 message. */
  declared: string[]
}

export function compileBody(
  ajv: Ajv,
  body: { required: boolean; content: MediaTypeDescription[] },
): BodyValidator {
  return {
    required: body.required,
    declared: body.content.map((c) => c.mediaType),
    accepted: body.content.map(({ mediaType, schemaPointer }) => {
      const range = essence(mediaType)
      return { range, isJson: isJsonType(range), validate: schemaPointer ? compileAt(ajv, schemaPointer) : undefined }
    }),
  }
}

/** The declared media type a request's Content-Type falls under; 415 when there is none. */
export function selectMediaType(body: BodyValidator, contentType: string | undefined): AcceptedMediaType {
  const type = contentType === undefined ? '' : essence(contentType)
  const found =
    body.accepted.find((m) => m.range === type) ??
    body.accepted.find((m) => covers(m.range, type)) ??
    // `application/merge-patch+json` is JSON: it may stand where `application/json` is declared.
    (isJsonType(type) ? body.accepted.find((m) => m.range === 'application/json') : undefined)
  if (!found) throw errors.unsupportedMediaType(contentType, body.declared)
  return found
}

export interface BodyOutcome {
  violations: Violation[]
  value?: unknown
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/** Decodes, parses and validates a body. Problems come back as violations, never thrown. */
export function validateBody(body: BodyValidator, media: AcceptedMediaType, bytes: Uint8Array): BodyOutcome {
  if (bytes.byteLength === 0) {
    return { violations: body.required ? [{ path: 'body', message: 'is required but the request has no body' }] : [] }
  }
  if (!media.isJson) return { violations: [] }
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return { violations: [{ path: 'body', message: 'is not valid UTF-8' }] }
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { violations: [{ path: 'body', message: `is not valid JSON (${(error as Error).message})` }] }
  }
  if (!media.validate || media.validate.call(jsonLiterals(text), value)) return { violations: [], value }
  return { violations: toViolations('body', media.validate.errors), value }
}

function essence(mediaType: string): string {
  const semicolon = mediaType.indexOf(';')
  return (semicolon === -1 ? mediaType : mediaType.slice(0, semicolon)).trim().toLowerCase()
}

function isJsonType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json')
}

function covers(range: string, type: string): boolean {
  if (range === '*/*') return type !== ''
  return range.endsWith('/*') && type.startsWith(range.slice(0, -1))
}
