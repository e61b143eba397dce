import type { ValidateFunction } from 'ajv'
import type { Violation } from '../errors/index.js'
import type { BodySchema } from '../validation/check-response-body.js'
import type { BodyTemplate } from './templates.js'
import { type MediaKind, type XmlNames, kindOf } from './serialize-body.js'
import type { SequenceFraming } from '../internal/media-type.js'
import type { ByteBounds } from './binary-bodies.js'

/** A body known at start-up, already serialised: the request path only writes it. */
export interface StaticBody {
  name: string
  /** `inline`: a rule's or a stub's own `body`. */
  origin: 'fixture' | 'example' | 'inline'
  /** The serialised body: JSON text, or the XML or plain text of a non-JSON media type. */
  json: string
  /** A fixture with `{{request...}}` placeholders is rendered per request instead of served as `json`. */
  template?: BodyTemplate
  /** A file fixture of another media type (`200.png`): its bytes are the body (`json` is empty). */
  bytes?: Uint8Array
  /** A file fixture served for a declared range (`image/*`): the `Content-Type` its file name says. */
  contentType?: string
  /** A stream fixture (`200.stream.jsonl`): the items of a streamed answer (`json` is empty). */
  stream?: StaticStream
  /**
   * A fixture with a `.headers.json` sidecar: every header sent with this body, lower-case names, the
   * sidecar's over the response's own (`DeclaredResponse.headers`), merged at start-up.
   */
  headers?: Record<string, string>
  /** How a declared example breaks its schema, kept under `--errors` (`serveBrokenExamples`) to be answered 500. */
  violations?: readonly Violation[]
}

/** A stream fixture's items, ready to frame; each may be a template, filled from the request. */
export interface StaticStream {
  items: Array<{ json: string; template?: BodyTemplate; event?: string; id?: string }>
  /** The closing event the file ends with (`data: [DONE]`), framed. */
  closing?: string
  /** Some item has placeholders: the request is read back for it. */
  templated: boolean
}

/** One declared media type of a response, with its own schema and examples. */
export interface DeclaredMedia extends BodySchema {
  /** As declared: `application/json`, `application/xml`, `text/plain`... */
  mediaType: string
  /** What `Content-Type` says: the declared type, or for a range a concrete type it covers (`contentTypeFor`). */
  contentType: string
  kind: MediaKind
  /** A body can be generated per request: a schema, and a scalar one for text. */
  generatable: boolean
  xml?: XmlNames
  /** Fixtures first (in file order), then the description's examples. */
  bodies: Map<string, StaticBody>
  /** A sequential media type (`text/event-stream`, JSON Lines): its answers are streams of items. */
  sequence?: SequenceMedia
  /** A binary media type (an image, audio, a PDF, an octet stream): its bodies are bytes within these bounds (#31 §3). */
  binary?: ByteBounds
  /**
   * Set when no body can be written for its schema (an object under `text/html`): the empty body the
   * mock then sends is told as a violation, `X-Mock-Violations`, or 500 under `--errors` (#30).
   */
  unwritable?: readonly Violation[]
}

/**
 * How a sequential media type's answers are made (#31 §2): each item from the item schema (3.2's
 * `itemSchema`, else the `schema`, which 3.0 and 3.1 descriptions such as OpenAI's write for one
 * event) as a JSON body is, framed as the media type frames items.
 */
export interface SequenceMedia {
  framing: SequenceFraming
  /** The item, as a JSON media type of its own: made and checked as any body. */
  item: DeclaredMedia
  /** The closing event the examples show (`data: [DONE]`), if any. */
  closing?: string
}

/** One declared response of an operation, ready to serve. */
export interface DeclaredResponse {
  /** As declared: `200`, `2XX` or `default`. */
  code: string
  /** The preferred media type (JSON if declared, else the first); `undefined` when the response declares no content (no body is sent). */
  mediaType?: string
  schemaPointer?: string
  validate?: ValidateFunction
  /** Bodies of the preferred media type. */
  bodies: Map<string, StaticBody>
  /** Every declared media type, the preferred one first (its fields are the ones above). */
  media?: DeclaredMedia[]
  /**
   * The examples of its media types, not yet checked against their schemas (`deferredExamples`):
   * `mediaOf` checks them before any body is read (`settleExamples`).
   */
  settle?: () => void
  /**
   * Every header the response declares, lower-case name → value, settled at start-up (`compileHeaders`):
   * sent with every answer of this response; `undefined` when it declares none that is sent.
   */
  headers?: Record<string, string>
  /**
   * How every answer of this response breaks its declaration whatever its body, known at start-up:
   * a header value that breaks the header's schema. Reported with each answer.
   */
  violations?: readonly Violation[]
  /**
   * Under `--dynamic`: a fresh set of header values, those made of a schema generated again with
   * `fake` (a generated value that breaks its schema gives way to the static one); values the
   * description writes keep their static value. `undefined` when no header would change.
   */
  generateHeaders?: (fake: (schema: object) => unknown) => Record<string, string>
}

export interface ResponseSet {
  declared: DeclaredResponse[]
  /** What a valid request gets (see `pickSuccess`); `undefined` only when the operation declares no response: 204. */
  success?: DeclaredResponse
  /** Status for a request that breaks the description: the first declared of 422, 400 (or 4XX); else 422. */
  violationStatus: number
}

/** The declared response that covers a status: exact code, then its range, then `default`. */
export function findResponse(declared: readonly DeclaredResponse[], status: number): DeclaredResponse | undefined {
  const code = String(status)
  return (
    declared.find((r) => r.code === code) ??
    declared.find((r) => r.code === `${code[0]}XX`) ??
    declared.find((r) => r.code === 'default')
  )
}

/** The concrete status a declared response is served with. */
export function statusOf(response: DeclaredResponse, fallback: number): number {
  if (/^\d{3}$/.test(response.code)) return Number(response.code)
  if (response.code.endsWith('XX')) return Number(response.code[0]) * 100
  return fallback
}

/** Every declared media type of a response, the preferred one first. */
export function mediaOf(response: DeclaredResponse): DeclaredMedia[] {
  settleExamples(response)
  if (response.media) return response.media
  if (!response.mediaType) return []
  // A response built by hand (tests, scenarios) with only the preferred media type's fields.
  const { mediaType, schemaPointer, validate, bodies } = response
  return [
    {
      mediaType,
      contentType: mediaType,
      kind: kindOf(mediaType),
      schemaPointer,
      validate,
      generatable: validate !== undefined,
      bodies,
    },
  ]
}

/** Checks a response's deferred examples, once: every reader of its bodies goes through `mediaOf`, which calls this. */
export function settleExamples(response: DeclaredResponse): void {
  const { settle } = response
  if (settle === undefined) return
  response.settle = undefined
  settle()
}

/** The body served when none is asked for by name: the one named `default` (`200.json`), else the first. */
export function defaultBodyOf(response: { bodies: Map<string, StaticBody> }): StaticBody | undefined {
  return response.bodies.get('default') ?? response.bodies.values().next().value
}
