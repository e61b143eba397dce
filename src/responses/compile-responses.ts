import type { Violation } from '../errors/index.js'
import type { Logger } from '../common/log.js'
import type { MediaTypeDescription, OperationDescription, ResponseDescription } from '../openapi/operations.js'
import { derefSchema, nodeAt } from '../openapi/resolve-ref.js'
import { type Ajv, compileAt, compileOnFirstUse } from '../validation/create-ajv.js'
import { compileExamples } from './compile-examples.js'
import { attachFixture } from './attach-fixture.js'
import type { Fixture } from './fixtures.js'
import { type DeclaredMedia, type DeclaredResponse, type ResponseSet, statusOf } from './declared-responses.js'
import { compileHeaders } from './compile-headers.js'
import { type XmlNames, contentTypeFor, kindOf } from './serialize-body.js'
import { MULTIPART_CLOSING, closingEventOf } from './sequence-media.js'
import { framingOf } from '../internal/media-type.js'
import { byteBoundsOf, isBinaryMedia } from './binary-bodies.js'
import { toHeaderText } from './write-header-value.js'
import { warnOnce } from './header-context.js'

export interface ResponseCompileContext {
  document: unknown
  /** The request view of the description, where fixture templates' placeholders are checked (a writeOnly field is sent). @default document */
  requestDocument?: unknown
  ajv: Ajv
  /** The engine's coercing Ajv, to check header values as header parameters are read (see `HeaderContext`). */
  coercingAjv?: Ajv
  logger: Logger
  /** Read no example of the description (`ignoreExamples`): those responses are generated, or served from fixtures. */
  ignoreExamples?: boolean
  /**
   * Keep an example that breaks its schema as a body, with how it breaks it (`--errors`, which then
   * answers it 500 with the violations): else it is left out with a warning, and a valid body served.
   */
  serveBrokenExamples?: boolean
  /**
   * Where given, examples are not checked now: each response that has some is put here, to be
   * checked after the server listens, or when a request first needs it (`settleExamples`).
   * Checking them compiled a validator per response: loket.nl's 663 operations spent 4 of their 6 s
   * of start-up there, where Prism starts in 2.8 s (#11).
   */
  deferredExamples?: DeclaredResponse[]
}

export function compileResponses(
  context: ResponseCompileContext,
  operation: OperationDescription,
  fixtures: readonly Fixture[] = [],
): ResponseSet {
  const declared = operation.responses.map((response) => compileResponse(context, operation, response))
  for (const fixture of fixtures) attachFixture(context, operation, declared, fixture)
  return { declared, success: pickSuccess(declared), violationStatus: pickViolationStatus(declared) }
}

function compileResponse(
  context: ResponseCompileContext,
  operation: OperationDescription,
  response: ResponseDescription,
): DeclaredResponse {
  const label = `${operation.id} ${response.code}`
  const pending: Array<() => void> = []
  const media = jsonFirst(response.content).map((content) => compileMedia(context, label, content, pending))
  const preferred = media[0]
  const { headers, violations, generateHeaders } = compileHeaders(context, label, response.headers)
  const declared: DeclaredResponse = {
    code: response.code,
    mediaType: preferred?.mediaType,
    schemaPointer: preferred?.schemaPointer,
    validate: preferred?.validate,
    bodies: preferred?.bodies ?? new Map(),
    media,
    headers,
    violations,
    generateHeaders,
  }
  if (pending.length > 0) {
    declared.settle = () => pending.forEach((check) => check())
    context.deferredExamples!.push(declared)
  }
  return declared
}

/**
 * The `Content-Type` a media type is answered with, made fit to send: a name with a character HTTP
 * cannot carry made Node throw on every answer of it, a 500 with a stack on stderr (#34). It is
 * percent-encoded instead, told once per description.
 */
function sendableContentType(context: ResponseCompileContext, label: string, mediaType: string): string {
  const contentType = contentTypeFor(mediaType)
  const sendable = toHeaderText(contentType)
  if (sendable !== contentType)
    warnOnce(
      context,
      `media:${mediaType}`,
      `${label}: the media type "${mediaType}" is answered with Content-Type "${sendable}", wherever the description declares it: a header value is visible ASCII, so line breaks became spaces, other control characters were dropped and other characters percent-encoded (UTF-8).`,
    )
  return sendable
}

function compileMedia(
  context: ResponseCompileContext,
  label: string,
  content: MediaTypeDescription,
  pending: Array<() => void>,
): DeclaredMedia {
  const { document, ajv } = context
  const kind = kindOf(content.mediaType)
  const schema = content.schemaPointer ? derefSchema(document, nodeAt(document, content.schemaPointer)) : undefined
  const media: DeclaredMedia = {
    mediaType: content.mediaType,
    contentType: sendableContentType(context, label, content.mediaType),
    kind,
    schemaPointer: content.schemaPointer,
    // Compiled on first use: most responses of a large description are never generated and have no example.
    validate: content.schemaPointer ? compileOnFirstUse(() => compileAt(ajv, content.schemaPointer!)) : undefined,
    generatable: schema !== undefined && (kind !== 'text' || isScalarSchema(schema)),
    xml: kind === 'xml' && content.schemaPointer ? xmlNamesOf(document, content.schemaPointer) : undefined,
    bodies: new Map(),
  }
  const framing = framingOf(content.mediaType)
  const itemPointer = content.itemSchemaPointer ?? content.schemaPointer
  if (framing && itemPointer) {
    // The stream is made of its items: the examples of the whole stream are read for its closing event only.
    media.sequence = {
      framing,
      item: {
        mediaType: 'application/json',
        contentType: 'application/json',
        kind: 'json',
        schemaPointer: itemPointer,
        validate: compileOnFirstUse(() => compileAt(ajv, itemPointer)),
        generatable: true,
        bodies: new Map(),
      },
      closing: framing === 'multipart' ? MULTIPART_CLOSING : closingEventOf(framing, content.examples),
    }
    media.generatable = true
    return media
  }
  if (isBinaryMedia(content.mediaType, schema)) {
    media.binary = byteBoundsOf(schema)
    media.generatable = true
  } else if (kind === 'text' && isStructuredSchema(schema)) media.unwritable = unwritableAs(content.mediaType)
  if (context.ignoreExamples || (content.examples.length === 0 && !schema)) return media
  const check = () => compileExamples(context, label, content, media, schema)
  if (context.deferredExamples) pending.push(check)
  else check()
  return media
}

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean'])

/** A schema that says it is an object or an array, and nothing else: no text body can be made of it. */
function isStructuredSchema(schema: any): boolean {
  const types: unknown[] = Array.isArray(schema?.type) ? schema.type : [schema?.type]
  return types.every((t) => t === 'object' || t === 'array')
}

/** Made once per such media type, at start-up: the request path only reads it. */
function unwritableAs(mediaType: string): readonly Violation[] {
  return Object.freeze([
    {
      path: 'body',
      message: `cannot be written as ${mediaType}: its schema is an object or an array, which only a JSON or XML media type carries, and no example gives the text`,
    },
  ])
}

function isScalarSchema(schema: any): boolean {
  const types: unknown[] = Array.isArray(schema?.type) ? schema.type : [schema?.type]
  return types.some((t) => SCALAR_TYPES.has(t as string))
}

/** `xml.name` of the schema, else the name of the schema it refers to. */
function xmlNamesOf(document: unknown, pointer: string): XmlNames {
  const raw = nodeAt(document, pointer)
  const schema = derefSchema(document, raw)
  const nameOf = (node: any, fallback: string) =>
    derefSchema(document, node)?.xml?.name ?? node?.xml?.name ?? refName(node) ?? fallback
  const isArray =
    schema?.type === 'array' ||
    (Array.isArray(schema?.type) && schema.type.includes('array')) ||
    schema?.items !== undefined
  return isArray ? { root: nameOf(raw, 'items'), item: nameOf(schema.items, 'item') } : { root: nameOf(raw, 'root') }
}

function refName(node: any): string | undefined {
  return typeof node?.$ref === 'string' ? node.$ref.split('/').pop() : undefined
}

/** The declared media types with the first JSON one moved to the front: JSON is served unless Accept asks otherwise. */
function jsonFirst(content: MediaTypeDescription[]): MediaTypeDescription[] {
  const json =
    content.find((c) => kindOf(c.mediaType) === 'json' && !c.mediaType.includes('*')) ??
    content.find((c) => kindOf(c.mediaType) === 'json')
  return json ? [json, ...content.filter((c) => c !== json)] : content
}

/**
 * What a valid request gets: the lowest 2xx, else 2XX, else default; an operation that declares
 * none of those (only 4xx, only a redirect...) still answers a status it declares: the lowest one,
 * a range (`4XX`) as its first status. 1xx statuses are not final answers, so they are never picked:
 * an operation that declares only those answers like one that declares nothing (204).
 */
function pickSuccess(declared: DeclaredResponse[]): DeclaredResponse | undefined {
  const final = declared.filter((r) => !r.code.startsWith('1'))
  const lowestFirst = final.filter((r) => r.code !== 'default').sort((a, b) => statusOf(a, 0) - statusOf(b, 0))
  return (
    lowestFirst.find((r) => /^2\d\d$/.test(r.code)) ??
    final.find((r) => r.code === '2XX') ??
    final.find((r) => r.code === 'default') ??
    lowestFirst[0]
  )
}

function pickViolationStatus(declared: DeclaredResponse[]): number {
  const codes = new Set(declared.map((r) => r.code))
  if (codes.has('422')) return 422
  if (codes.has('400') || codes.has('4XX')) return 400
  return 422
}
