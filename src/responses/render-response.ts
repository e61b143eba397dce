import type { ValidateFunction } from 'ajv'
import type { Violation } from '../errors/index.js'
import type { Logger } from '../common/log.js'
import type { OffThreadGenerator } from '../common/platform.js'
import type { DeclaredMedia, DeclaredResponse, SequenceMedia, StaticBody, StaticStream } from './declared-responses.js'
import { bodyProblems, bodyViolations, schemaProblems, schemaViolations } from '../validation/check-response-body.js'
import { serializeRecord } from '../internal/exact-values.js'
import type { Faker } from '../generation/fake.js'
import type { Sampler } from '../generation/sample-body.js'
import type { GenerationBudget } from '../generation/generation-budget.js'
import type { BodySource, ResponsePlan } from './select-response.js'
import { type MadeBody, madeBodyOf } from './made-body.js'
import { base64Body, binaryBody } from './binary-bodies.js'
import { seededRandom } from '../generation/seeded-random.js'

/** Static binary bodies draw from this seed: the same bytes every run. */
const BINARY_SEED = 1
import { serializeBody } from './serialize-body.js'
import { type TemplateRequest, pullsInStructure } from './templates.js'

export interface RenderedResponse {
  status: number
  contentType?: string
  /** Declared headers the response carries besides Content-Type. */
  headers?: Record<string, string>
  /** Text, or the bytes of a binary media type (#31 §3). */
  body: string | Uint8Array | null
  /**
   * How this answer breaks the operation's declared response, when the mock knows it does: set only
   * then. Nothing is validated again to find out: what is known comes from start-up (a made-up
   * header) or from the checks rendering makes anyway (a generated body no mending could fix).
   */
  violations?: readonly Violation[]
  /** The fixture, example or rule body served, when the body is one (rendered from it, if a template): coverage counts it. */
  staticBody?: StaticBody
  /** A sequential media type's answer: the pipeline streams its items (`body` is null). */
  streamPlan?: StreamPlan
}

/** What a streamed answer is made of: the sequence's items, made as a body of the response's status is. */
export interface StreamPlan {
  sequence: SequenceMedia
  /** The declared status (`200`), for the messages of a body that cannot be made. */
  code: string
  /** The same item each time, made once (static mode), or each generated (`--dynamic`). */
  sampled: boolean
  /** Items given, sent in order instead of made ones: a stream fixture's, or a resource's records (`--stateful`). */
  given?: StaticStream
  /** The request, which the fixture's templated items read. */
  request?: TemplateRequest
}

export interface RenderContext {
  document: unknown
  logger: Logger
  faker: Faker
  /** Static bodies of schemas without an example (`sampled`): the same body every time and every run. */
  sampler: Sampler
  /** Bodies are generated per request unless a `Prefer` says otherwise (`--dynamic`); else sampled. */
  dynamic: boolean
  /** Schemas no generated body could meet, already warned about. */
  unsatisfied: Set<string>
  /** What generating one body may spend: this app's own (`generationBytes`, `generationMs`). */
  budget: GenerationBudget
  /** The description has schemas that ask for more than the generation budget could hold (warned about at start-up). */
  beyondBudget: boolean
  /** A validator of the schema at a pointer whose errors carry their schemas (`verbose`), made on first use. */
  explain: (schemaPointer: string) => ValidateFunction
  /** Where bodies that outlast a slice of the main thread are made (`Platform.offThread`); absent without threads. */
  offThread?: OffThreadGenerator
  /** A body made off the main thread for this media type, taken by the next render of it (rendering is synchronous: no other request comes between). */
  handed?: { media: DeclaredMedia; made: MadeBody }
}

/**
 * Turns a plan into bytes. Static bodies were serialised at start-up; templated fixtures are
 * filled from the request; generated ones are made from their schema (`madeBodyOf`), and written
 * as the chosen media type asks (JSON, XML, or text). Whatever is made per request is checked against its schema before it is served;
 * what still breaks it is told in `violations`, with what start-up knew of the response (see `DeclaredResponse.violations`).
 */
export function renderResponse(
  plan: ResponsePlan,
  context: RenderContext,
  request?: TemplateRequest,
  handOff = false,
): RenderedResponse {
  const { response } = plan
  // The one status not taken from the description: 204 for an operation that declares no final response.
  if (!response) return { status: plan.status, body: null, violations: NO_DECLARED_RESPONSE }
  const rendered = renderDeclared(plan, response, context, request, handOff)
  if (!response.violations) return rendered
  return {
    ...rendered,
    violations: rendered.violations ? [...response.violations, ...rendered.violations] : response.violations,
  }
}

const NO_DECLARED_RESPONSE: readonly Violation[] = Object.freeze([
  { path: 'status', message: 'is 204, which the operation does not declare (it declares no final response)' },
])

/** A declared response as the plan says, with only what its body breaks: its headers, which the caller may not send, are not judged. */
export function renderDeclared(
  plan: ResponsePlan,
  response: DeclaredResponse,
  context: RenderContext,
  request?: TemplateRequest,
  handOff = false,
): RenderedResponse {
  const { status, media, source } = plan
  const headers = response.headers
  if (!media) return { status, headers, body: null }
  if (media.binary && (source.kind === 'sampled' || source.kind === 'generated' || source.kind === 'empty')) {
    // The same bytes on every request in static mode; new ones per request with --dynamic.
    const random = source.kind === 'generated' ? context.faker.random : seededRandom(BINARY_SEED)
    return {
      status,
      contentType: media.contentType,
      headers,
      body: media.binary.base64Of
        ? base64Text(media, base64Body(media.binary, random))
        : binaryBody(media.contentType, media.binary, random),
    }
  }
  if (media.sequence && (source.kind === 'sampled' || source.kind === 'generated')) {
    const streamPlan = { sequence: media.sequence, code: response.code, sampled: source.kind === 'sampled' }
    return { status, contentType: media.contentType, headers, body: null, streamPlan }
  }
  if (media.sequence && source.kind === 'record' && Array.isArray(source.value)) {
    // A list of a resource's records (`--stateful`), one item each.
    const items = source.value.map((record) => ({ json: serializeRecord(record).text }))
    const streamPlan = {
      sequence: media.sequence,
      code: response.code,
      sampled: true,
      given: { items, templated: false },
    }
    return { status, contentType: media.contentType, headers, body: null, streamPlan }
  }
  if (media.sequence && source.kind === 'static' && source.body.stream) {
    // A stream fixture: its items in order, each template filled from the request.
    const { body } = source
    const streamPlan = { sequence: media.sequence, code: response.code, sampled: true, given: body.stream, request }
    return {
      status,
      contentType: media.contentType,
      headers: body.headers ?? headers,
      body: null,
      streamPlan,
      staticBody: body,
    }
  }
  // Declared content that nothing can fill (no schema, no example) still comes as what was declared.
  if (source.kind === 'empty') {
    const rendered: RenderedResponse = {
      status,
      contentType: media.contentType,
      headers,
      body: serializeBody(media.kind, media.kind === 'text' ? '' : {}, media.xml) ?? '',
    }
    if (media.unwritable) rendered.violations = media.unwritable
    return rendered
  }
  if (source.kind === 'static') {
    // A fixture with headers of its own (a `.headers.json` beside it) carries the whole set, merged at start-up.
    const served = source.body.headers ?? headers
    if (!source.body.template || !request) {
      const rendered: RenderedResponse = {
        status,
        contentType: source.body.contentType ?? media.contentType,
        headers: served,
        body: source.body.bytes ?? source.body.json,
        staticBody: source.body,
      }
      // An example that breaks its schema, kept under --errors: answered 500 with how it breaks it.
      if (source.body.violations) rendered.violations = source.body.violations
      return rendered
    }
    return renderTemplate(
      { status, contentType: media.contentType, headers: served, body: null, staticBody: source.body },
      response.code,
      media,
      source.body,
      context,
      request,
    )
  }
  if (source.kind === 'record') return renderRecord(status, headers, media, source, context)
  if (!media.schemaPointer) return { status, headers, body: null }
  const made = madeBodyOf(response.code, media, context, source.kind === 'sampled', handOff)
  if (made.body === undefined) return { status, headers, body: null }
  // A generated body comes with generated header values, where the description writes none.
  const sent =
    source.kind === 'generated' && response.generateHeaders
      ? response.generateHeaders((schema) => context.faker(schema))
      : headers
  const rendered: RenderedResponse = { status, contentType: media.contentType, headers: sent, body: made.body }
  if (made.violations) rendered.violations = made.violations
  return rendered
}

/** Base64 text as its media type writes it: a JSON string under a JSON media type, else the text itself. */
function base64Text(media: DeclaredMedia, text: string): string {
  return media.kind === 'json' ? JSON.stringify(text) : text
}

/** A stored record (`--stateful`), checked against the schema like a generated body: what breaks it is told, not mended. */
function renderRecord(
  status: number,
  headers: Record<string, string> | undefined,
  media: DeclaredMedia,
  source: RecordSource,
  context: RenderContext,
): RenderedResponse {
  let made = renderedRecords.get(source)
  if (!made) {
    const { text, plain } = serializeRecord(source.value)
    const violations = source.nested ? bodyViolations(context, media, plain) : schemaViolations(media, plain)
    made = violations.length ? { text, violations } : { text }
    renderedRecords.set(source, made)
  }
  const rendered: RenderedResponse = { status, contentType: media.contentType, headers, body: made.text }
  if (made.violations) rendered.violations = made.violations
  return rendered
}

type RecordSource = Extract<BodySource, { kind: 'record' }>

/** A record source's bytes and what they break, made once: the data step answers reads of an unchanged record with the same source. */
const renderedRecords = new WeakMap<RecordSource, { text: string; violations?: readonly Violation[] }>()

/** A template that renders outside its schema (say, echoing a field the request lacks) yields to a generated body. */
function renderTemplate(
  rendered: RenderedResponse,
  code: string,
  media: DeclaredMedia,
  body: StaticBody,
  context: RenderContext,
  request: TemplateRequest,
): RenderedResponse {
  const template = body.template!
  const value = template.render(request)
  // The template's own fields were checked at start-up; only an object a placeholder pulled in can add undeclared ones.
  const problems = pullsInStructure(template, value)
    ? bodyProblems(context, media, value)
    : schemaProblems(media, value)
  if (problems.length === 0) {
    rendered.body = JSON.stringify(value)
    return rendered
  }
  context.logger.warn(
    `the fixture "${body.name}" (${code}) rendered a body that breaks its schema (${problems.join('; ')}); a generated body is served instead`,
  )
  const made = madeBodyOf(code, media, context, !context.dynamic)
  rendered.staticBody = undefined
  rendered.body = made.body ?? null
  if (made.violations) rendered.violations = made.violations
  return rendered
}
