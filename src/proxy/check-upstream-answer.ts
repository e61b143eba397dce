import type { Violation } from '../errors/index.js'
import type { ParsedHeaders } from '../common/request.js'
import { joinHeader } from '../internal/join-header.js'
import { essenceOf, framingOf } from '../internal/media-type.js'
import type { ResponseDescription } from '../openapi/operations.js'
import { type DeclaredMedia, type ResponseSet, findResponse, mediaOf } from '../responses/declared-responses.js'
import { schemaViolations } from '../validation/check-response-body.js'
import { toViolations } from '../validation/violations.js'
import { type ItemFraming, itemFramingOf } from './read-upstream-stream.js'
import { eventFieldsOf } from '../internal/event-stream.js'

/** An upstream's answer with its body read whole: what a recording is made of. */
export interface UpstreamAnswer {
  status: number
  headers: Headers
  body: Uint8Array
}

/**
 * What the head of an upstream's answer (status and headers) says against the operation's declared
 * responses, and what is left to check in its body. The body is read whole only where it must be
 * seen: a JSON body with a schema, or one without a Content-Type (which breaks the contract only if
 * it is not empty); any other is passed on as it comes.
 */
export interface HeadCheck {
  violations: Violation[]
  /** The body must be read whole: `schema` checks it; without one, it came with no Content-Type (`declared` says what it should have). */
  body?: { schema?: DeclaredMedia; declared: readonly DeclaredMedia[] }
  /** The body is a stream of items (a sequential media type, #31 §2): read and judged item by item as it passes. */
  stream?: UpstreamStream
}

/** How an answer of a sequential media type is read as it passes. */
export interface UpstreamStream {
  /** As the answer's Content-Type frames its items. */
  framing: ItemFraming
  /** The item schema (3.2's `itemSchema`, else the `schema`); `undefined` where the declared media type has none: items are counted, not judged. */
  item?: DeclaredMedia
  /** The closing event's data the description's examples show (`[DONE]`): passed on, not judged as an item. */
  closing?: string
}

/**
 * The answer's head against the declared responses, with the validators compiled at start-up: a
 * status not declared, a required header missing, a media type not declared.
 */
export function checkUpstreamHead(
  responses: ResponseSet,
  described: readonly ResponseDescription[],
  status: number,
  headers: ParsedHeaders,
  bodiless: boolean,
): HeadCheck {
  const response = findResponse(responses.declared, status)
  if (!response) {
    const codes = responses.declared.map((r) => r.code).join(', ') || 'none'
    return {
      violations: [
        { path: 'status', message: `is ${status}, which the operation does not declare (declared: ${codes})` },
      ],
    }
  }
  const violations: Violation[] = []
  for (const header of described.find((r) => r.code === response.code)?.headers ?? []) {
    if (header.required && headers[header.name.toLowerCase()] === undefined)
      violations.push({
        path: `header.${header.name.toLowerCase()}`,
        message: 'is required by the description, and missing',
      })
  }
  const declared = mediaOf(response)
  if (declared.length === 0 || bodiless || headers['content-length'] === '0') return { violations }
  const contentType = essenceOf(joinHeader(headers['content-type']) ?? '')
  if (!contentType) return { violations, body: { declared } }
  const media = declared.find((m) => mediaMatches(m.mediaType, contentType))
  if (!media) {
    violations.push(mediaViolation(contentType, declared))
    return { violations }
  }
  const framing = itemFramingOf(framingOf(contentType))
  if (framing) {
    const { sequence } = media
    const closing = sequence?.closing === undefined ? undefined : eventFieldsOf(sequence.closing).data
    return { violations, stream: { framing, item: sequence?.item, closing } }
  }
  return media.kind === 'json' && media.validate ? { violations, body: { schema: media, declared } } : { violations }
}

/** What the body read whole (as `checkUpstreamHead` asked) breaks: an untyped body that is not empty, JSON that is not JSON or breaks the schema. */
export function upstreamBodyViolations(check: NonNullable<HeadCheck['body']>, body: Uint8Array): Violation[] {
  if (body.byteLength === 0) return []
  if (!check.schema) return [mediaViolation('', check.declared)]
  let value: unknown
  try {
    value = JSON.parse(utf8.decode(body))
  } catch {
    return [{ path: 'body', message: 'is not JSON, as its content type says' }]
  }
  return schemaViolations(check.schema, value)
}

const utf8 = new TextDecoder()

/**
 * What one item of a streamed answer breaks (#31 §2), named by its place from 0 (`body[2].token`):
 * not JSON, or against the item schema; with its value where it is JSON. `parsed` is the value when
 * reading the stream parsed it already.
 */
export function upstreamItemViolations(
  item: DeclaredMedia,
  text: string,
  index: number,
  parsed?: { value: unknown },
): { violations: Violation[]; parsed?: { value: unknown } } {
  if (!parsed) {
    try {
      parsed = { value: JSON.parse(text) }
    } catch {
      return { violations: [{ path: `body[${index}]`, message: 'is not JSON, as the item of its media type must be' }] }
    }
  }
  const violations =
    !item.validate || item.validate(parsed.value) ? [] : toViolations(`body[${index}]`, item.validate.errors)
  return { violations, parsed }
}

function mediaViolation(contentType: string, declared: readonly DeclaredMedia[]): Violation {
  const types = declared.map((m) => m.mediaType).join(', ')
  return {
    path: 'header.content-type',
    message: `is "${contentType || 'absent'}", which the response does not declare (declared: ${types})`,
  }
}

/** `application/json` matches itself, `application/*` and `*\/*`; parameters are left out. */
function mediaMatches(declared: string, actual: string): boolean {
  const range = declared.split(';')[0]!.trim().toLowerCase()
  if (range === actual || range === '*/*') return true
  return range.endsWith('/*') && actual.startsWith(range.slice(0, -1))
}
