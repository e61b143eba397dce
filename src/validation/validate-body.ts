import type { ValidateFunction } from 'ajv'
import { errors, type Violation } from '../errors/index.js'
import type { MediaTypeDescription, PartEncoding } from '../openapi/operations.js'
import { type Ajv, compileAt, descriptionOf } from './create-ajv.js'
import { toViolations } from './violations.js'
import { jsonLiterals } from './exact-integers.js'
import { MAX_FORM_FIELDS, fieldsOf, parseJsonField, withoutFieldsReported, wrapLoneItems } from './form-fields.js'
import { type FormPlan, planForm } from './form-plan.js'
import { fieldsWithReservedCharacters, formEntries } from './read-form.js'
import { essenceOf, framingOf, isJsonType } from '../internal/media-type.js'
import type { Network, Part } from '../common/network.js'
import { latin1Text, utf8Text } from '../internal/bytes.js'
import { MAX_JSON_DEPTH, depthViolation } from './json-depth.js'

/**
 * How a body of that media type is parsed before it is validated; `other` bodies are not read.
 * `parts`: a multipart body other than a form whose parts' Content-Types are declared by position
 * (OpenAPI 3.2's `prefixEncoding` and `itemEncoding`).
 */
type BodyKind = 'json' | 'form' | 'multipart' | 'parts' | 'sequence' | 'other'

interface AcceptedMediaType {
  /** `application/json`, `application/*`, `*\/*`... lower-cased, parameters dropped. */
  range: string
  kind: BodyKind
  /** Form fields arrive as text: their validator coerces them to the schema's types, as for parameters. */
  validate?: ValidateFunction
  /** Of a form or multipart body: which fields nest (`scope[type]`) and which are JSON. */
  plan?: FormPlan
  /** Of a `parts` body: the media ranges each part may be, by position. */
  partTypes?: PartTypes
  /** Deepest nesting a JSON body may have (`--max-depth`). */
  maxDepth: number
}

/** The request body of one operation, compiled at start-up. */
export interface BodyValidator {
  required: boolean
  accepted: AcceptedMediaType[]
  /** As declared, for the 415 message. */
  declared: string[]
  /** The platform's multipart reader (`Network.readMultipart`). */
  readMultipart: Network['readMultipart']
}

/** What a body is compiled with besides its schemas. */
export interface BodyCompileOptions {
  /** Reads a multipart body: the platform's (`Network.readMultipart`). */
  readMultipart: Network['readMultipart']
  /** Deepest nesting a JSON body may have. @default MAX_JSON_DEPTH */
  maxDepth?: number
}

/** `coercingAjv` compiles the schemas of form bodies (their fields are text); without it they are not coerced. */
export function compileBody(
  ajv: Ajv,
  body: { required: boolean; content: MediaTypeDescription[] },
  coercingAjv: Ajv = ajv,
  { readMultipart, maxDepth = MAX_JSON_DEPTH }: BodyCompileOptions,
): BodyValidator {
  return {
    required: body.required,
    readMultipart,
    declared: body.content.map((c) => c.mediaType),
    accepted: body.content.map(({ mediaType, schemaPointer, itemSchemaPointer, prefixEncoding, itemEncoding }) => {
      const range = essenceOf(mediaType)
      const partTypes = range.startsWith('multipart/') ? partTypesOf(prefixEncoding, itemEncoding) : undefined
      if (partTypes) return { range, kind: 'parts', partTypes, maxDepth }
      const kind = kindOf(range)
      const fields = kind === 'form' || kind === 'multipart'
      // The items of a sequence (JSON Lines, JSON text sequences) are judged each by the item schema.
      const pointer = kind === 'sequence' ? (itemSchemaPointer ?? schemaPointer) : schemaPointer
      const validate = pointer ? compileAt(fields ? coercingAjv : ajv, pointer) : undefined
      const plan =
        fields && schemaPointer ? planForm(descriptionOf(coercingAjv), schemaPointer, kind === 'multipart') : undefined
      return { range, kind, validate, plan, maxDepth }
    }),
  }
}

function kindOf(range: string): BodyKind {
  const framing = framingOf(range)
  if (framing === 'jsonl' || framing === 'json-seq') return 'sequence'
  if (isJsonType(range)) return 'json'
  if (range === 'application/x-www-form-urlencoded') return 'form'
  if (range === 'multipart/form-data') return 'multipart'
  return 'other'
}

/** The declared media type a request's Content-Type falls under; 415 when there is none. */
export function selectMediaType(body: BodyValidator, contentType: string | undefined): AcceptedMediaType {
  const type = contentType === undefined ? '' : essenceOf(contentType)
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
  /** The body decoded as text, where it was (JSON): the journal keeps it rather than a copy of the bytes. */
  text?: string
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/** A request without a body: the one place that says a required one is missing. */
export function validateMissingBody(body: BodyValidator): BodyOutcome {
  return body.required
    ? { violations: [{ path: 'body', message: 'is required but the request has no body' }] }
    : { violations: [] }
}

/**
 * Decodes, parses and validates a body. Problems come back as violations, never thrown.
 * Only a multipart body is parsed asynchronously; a JSON body takes the same synchronous path as ever.
 */
export function validateBody(body: BodyValidator, media: AcceptedMediaType, bytes: Uint8Array): BodyOutcome
/** With the request's Content-Type, which a multipart body needs for its boundary. */
export function validateBody(
  body: BodyValidator,
  media: AcceptedMediaType,
  bytes: Uint8Array,
  contentType: string | undefined,
): BodyOutcome | Promise<BodyOutcome>
export function validateBody(
  body: BodyValidator,
  media: AcceptedMediaType,
  bytes: Uint8Array,
  contentType = '',
): BodyOutcome | Promise<BodyOutcome> {
  // An empty form is a form: a client whose fields are all optional sends `Content-Type: application/
  // x-www-form-urlencoded` and no bytes (truora.com), and it is judged as `{}`. Any other empty body is no body.
  if (bytes.byteLength === 0 && media.kind !== 'form') return validateMissingBody(body)
  if (media.kind === 'json') return validateJson(media, bytes)
  if (media.kind === 'sequence') return validateSequence(media, bytes)
  if (media.kind === 'multipart') {
    // The boundary is in the Content-Type; without it the parts cannot be told apart.
    return contentType
      ? validateMultipart(body, media, bytes, contentType)
      : { violations: [{ path: 'body', message: 'is multipart/form-data without a boundary' }] }
  }
  if (media.kind === 'parts') {
    return contentType
      ? validateParts(body, media, bytes, contentType)
      : { violations: [{ path: 'body', message: `is ${media.range} without a boundary` }] }
  }
  if (media.kind === 'other') return { violations: [] }
  return validateForm(media, bytes)
}

/** Media ranges a part may be: `image/png, image/jpeg` → both; `undefined` where any is. */
type Ranges = readonly string[] | undefined

interface PartTypes {
  /** The parts of `prefixEncoding`, first to last. */
  prefix: readonly Ranges[]
  /** Every part after those, from `itemEncoding`. */
  item: Ranges
}

/** What `prefixEncoding` and `itemEncoding` say of the parts' Content-Types; `undefined` when they say nothing. */
function partTypesOf(
  prefix: readonly PartEncoding[] | undefined,
  item: PartEncoding | undefined,
): PartTypes | undefined {
  const rangesOf = (encoding: PartEncoding | undefined): Ranges =>
    encoding?.contentType
      ?.split(',')
      .map(essenceOf)
      .filter((range) => range !== '')
  const types = { prefix: (prefix ?? []).map(rangesOf), item: rangesOf(item) }
  return types.item?.length || types.prefix.some((ranges) => ranges?.length) ? types : undefined
}

/**
 * A multipart body other than a form (`multipart/mixed`) whose parts OpenAPI 3.2 describes by position
 * (#31 §1): each part's Content-Type must be one its encoding names, `prefixEncoding`'s for the first
 * parts, `itemEncoding`'s for the rest. A violation names the part by its index (`body[1]`).
 */
async function validateParts(
  body: BodyValidator,
  media: AcceptedMediaType,
  bytes: Uint8Array,
  contentType: string,
): Promise<BodyOutcome> {
  const parts = await body.readMultipart(bytes, contentType, MAX_FORM_FIELDS)
  if (!Array.isArray(parts)) return { violations: [{ path: 'body', message: parts.problem }] }
  const { prefix, item } = media.partTypes!
  const violations: Violation[] = []
  parts.forEach(({ mimeType }, index) => {
    const ranges = index < prefix.length ? prefix[index] : item
    if (ranges?.length && !ranges.some((range) => range === mimeType || covers(range, mimeType)))
      violations.push({
        path: `body[${index}]`,
        message: `is ${mimeType}; its encoding asks for ${ranges.join(' or ')}`,
      })
  })
  return { violations }
}

function validateJson(media: AcceptedMediaType, bytes: Uint8Array): BodyOutcome {
  const text = decode(bytes)
  if (typeof text !== 'string') return { violations: [text] }
  // Nesting is bounded before anything walks the value: 5,000 levels against a recursive schema
  // overflowed the validator's stack (#12).
  const tooDeep = depthViolation('body', text, media.maxDepth, MAX_DEPTH_FLAG)
  if (tooDeep) return { violations: [tooDeep] }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { violations: [{ path: 'body', message: `is not valid JSON (${(error as Error).message})` }], text }
  }
  if (!media.validate || media.validate.call(jsonLiterals(text), value)) return { violations: [], value, text }
  return { violations: toViolations('body', media.validate.errors), value, text }
}

/** Items a sequential request body may hold; more is refused, the rest unread. */
export const MAX_SEQUENCE_ITEMS = 10_000

/**
 * A JSON Lines or JSON text sequence body (#31 §2): each item parsed and judged by the item schema
 * on its own, its violations named by its index (`body[2].name`), all within the body's size limit.
 */
function validateSequence(media: AcceptedMediaType, bytes: Uint8Array): BodyOutcome {
  const text = decode(bytes)
  if (typeof text !== 'string') return { violations: [text] }
  const separator = media.range === 'application/json-seq' ? '\x1e' : '\n'
  const items = text.split(separator).filter((item) => item.trim() !== '')
  if (items.length > MAX_SEQUENCE_ITEMS)
    return { violations: [{ path: 'body', message: `has more than ${MAX_SEQUENCE_ITEMS} items` }] }
  const violations: Violation[] = []
  const values: unknown[] = []
  items.forEach((item, index) => {
    const at = `body[${index}]`
    const tooDeep = depthViolation(at, item, media.maxDepth, MAX_DEPTH_FLAG)
    if (tooDeep) return void violations.push(tooDeep)
    let value: unknown
    try {
      value = JSON.parse(item)
    } catch (error) {
      return void violations.push({ path: at, message: `is not valid JSON (${(error as Error).message})` })
    }
    values.push(value)
    if (media.validate && !media.validate(value)) violations.push(...toViolations(at, media.validate.errors))
  })
  return { violations, value: values }
}

/** The limit a too deep JSON body passed, as its refusal names it. */
const MAX_DEPTH_FLAG = ' (--max-depth)'

function decode(bytes: Uint8Array): string | Violation {
  try {
    return utf8.decode(bytes)
  } catch {
    return { path: 'body', message: 'is not valid UTF-8' }
  }
}

function validateValue(media: AcceptedMediaType, value: unknown): BodyOutcome {
  if (!media.validate || media.validate(value)) return { violations: [], value }
  return { violations: toViolations('body', media.validate.errors), value }
}

function validateForm(media: AcceptedMediaType, bytes: Uint8Array): BodyOutcome {
  const text = decode(bytes)
  if (typeof text !== 'string') return { violations: [text] }
  const entries: Array<[string, unknown]> | undefined = formEntries(text, MAX_FORM_FIELDS)
  if (!entries) return { violations: [{ path: 'body', message: `has more than ${MAX_FORM_FIELDS} fields` }] }
  const unparsable: Violation[] = []
  const { plan } = media
  if (plan?.json.size) {
    for (const entry of entries)
      if (plan.json.has(entry[0])) entry[1] = parsedField(entry[0], entry[1] as string, unparsable)
  }
  if (plan?.reservedRefused.size)
    for (const name of fieldsWithReservedCharacters(text, plan.reservedRefused))
      unparsable.push({
        path: `body.${name}`,
        message: `holds a reserved character that is not percent-encoded (its encoding does not set allowReserved)`,
      })
  if (plan?.emptyRefused.size) refuseEmpty(plan.emptyRefused, entries, unparsable)
  return validateFields(media, entries, unparsable)
}

/** Swagger 2.0 `formData` sent empty where the parameter does not set `allowEmptyValue`, as the query's are refused. */
function refuseEmpty(
  names: ReadonlySet<string>,
  entries: ReadonlyArray<[string, unknown]>,
  refused: Violation[],
): void {
  for (const [name, value] of entries)
    if (value === '' && names.has(name) && !refused.some((v) => v.path === `body.${name}`))
      refused.push({
        path: `body.${name}`,
        message: 'must not be empty (the formData parameter does not set allowEmptyValue)',
      })
}

async function validateMultipart(
  body: BodyValidator,
  media: AcceptedMediaType,
  bytes: Uint8Array,
  contentType: string,
): Promise<BodyOutcome> {
  const parts = await body.readMultipart(bytes, contentType, MAX_FORM_FIELDS)
  if (!Array.isArray(parts)) return { violations: [{ path: 'body', message: parts.problem }] }
  const unparsable: Violation[] = []
  const entries = parts.map((part): [string, unknown] => {
    const json = isJsonPart(media.plan, part)
    // A file counts as a binary string (its bytes as latin1, so `maxLength` counts bytes) unless it is JSON.
    const text = part.text ?? fileText(part.bytes!, json)
    return [part.name, json ? parsedField(part.name, text, unparsable) : text]
  })
  if (media.plan?.emptyRefused.size) refuseEmpty(media.plan.emptyRefused, entries, unparsable)
  return validateFields(media, entries, unparsable)
}

/** A file part's bytes as text: UTF-8 when it is JSON, else latin1, one character a byte. */
function fileText(bytes: Uint8Array, json: boolean): string {
  return json ? utf8Text(bytes) : latin1Text(bytes)
}

/** A JSON field's value; one that is not JSON stays text and is reported by name in `unparsable`. */
function parsedField(name: string, text: string, unparsable: Violation[]): unknown {
  const parsed = parseJsonField(name, text)
  if ('value' in parsed) return parsed.value
  unparsable.push(parsed.violation)
  return text
}

/**
 * Fields (form pairs or multipart parts) as the object the schema judges, nested names decoded.
 * The schema's complaints about a field already reported as not JSON are left out.
 */
function validateFields(
  media: AcceptedMediaType,
  entries: Array<[string, unknown]>,
  unparsable: Violation[],
): BodyOutcome {
  const fields = fieldsOf(entries, media.plan)
  wrapLoneItems(fields, media.plan)
  const outcome = validateValue(media, fields)
  return { ...outcome, violations: withoutFieldsReported(outcome.violations, unparsable) }
}

/**
 * JSON where the media type's plan says so (an `encoding` contentType, or an object part), or
 * where a part that is not a file is sent as JSON. An uploaded `.json` file is a file: its schema
 * is most often a binary string.
 */
function isJsonPart(plan: FormPlan | undefined, part: Part): boolean {
  return plan?.json.has(part.name) === true || (part.text !== undefined && isJsonType(part.mimeType))
}

function covers(range: string, type: string): boolean {
  if (range === '*/*') return type !== ''
  return range.endsWith('/*') && type.startsWith(range.slice(0, -1))
}
