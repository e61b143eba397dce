import type { Violation } from '../errors.js'
import { toHeaderValue } from '../http/header-value.js'
import type { Logger } from '../log.js'
import { isPlainObject } from '../plain-object.js'
import type { RequestData } from '../request.js'
import type { HeaderDescription, ParameterDescription } from '../openapi/operations.js'
import { derefSchema, nodeAt } from '../openapi/resolve-ref.js'
import { type Ajv, addDescriptionSchema, compileAt, createAjv } from '../validation/create-ajv.js'
import { fieldPath, toViolations } from '../validation/violations.js'
import { compileParameters, validateParameters } from '../validation/validate-params.js'
import { seededRandom } from './seeded-random.js'
import { stringMatching } from './schema-strings.js'
import { sampleSchema } from './sample-body.js'
import { kindOf } from './serialize-body.js'

/**
 * Response headers no description sets: `Content-Type` (OpenAPI: "it SHALL be ignored", the negotiated
 * media type says it), the framing and hop-by-hop headers the server writes for the body it sends,
 * and `Content-Encoding`, since the mock never encodes a body (a declared `gzip` made every client
 * fail to read it).
 */
export const SERVER_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
])

/** What start-up makes of a response's declared headers. */
export interface CompiledHeaders {
  /** Lower-case name → value, sent with every answer of the response; `undefined` when none is sent. */
  headers?: Record<string, string>
  /** How the values sent break their schemas (a written example that breaks it, a made-up value no sample meets). */
  violations?: Violation[]
  /** Under `--dynamic`: a fresh set, made-up values generated again (see `DeclaredResponse.generateHeaders`). */
  generateHeaders?: (fake: (schema: object) => unknown) => Record<string, string>
}

export interface HeaderContext {
  /** The response view of the description. */
  document: unknown
  /** Validates without coercion: the values of headers declared with `content`. */
  ajv: Ajv
  /**
   * Validates with coercion, as header parameters are: the engine's (it holds the request view, which
   * differs only in readOnly/writeOnly properties, that a header schema does not have). Where not
   * given, one is made on a first header with a schema: adding GitHub's description to an Ajv costs 75 ms.
   */
  coercingAjv?: Ajv
  logger: Logger
}

/** One declared header, settled at start-up. */
interface HeaderPlan {
  name: string
  declared: HeaderDescription
  /** What is sent; `undefined` for a header left out. */
  value?: string
  /** A value the description wrote (kept even if it breaks its schema), or one the mock made up. */
  origin: 'described' | 'made-up'
  /** Checks a value as a client would read it back: split and coerced as a header parameter is. */
  check: HeaderCheck
}

type HeaderCheck = (value: string) => Violation[]

/**
 * Every header a response declares, sent with each answer: the value the description writes for it,
 * else one made of its schema. All the work is done here, once: the request path only writes the record.
 * @param label `<operation> <status>`, for the warnings.
 */
export function compileHeaders(
  context: HeaderContext,
  label: string,
  declared: readonly HeaderDescription[],
): CompiledHeaders {
  const plans = declared.filter((h) => isSendable(context, label, h)).map((h) => planHeader(context, label, h))
  const sent = plans.filter((p) => p.value !== undefined)
  if (plans.length === 0) return {}
  const headers = sent.length ? Object.fromEntries(sent.map((p) => [p.name, p.value!])) : undefined
  const violations = sent.flatMap((p) => violationsOf(context, label, p))
  return {
    headers,
    violations: violations.length ? violations : undefined,
    generateHeaders: createHeaderGenerator(context.document, headers, plans),
  }
}

/** Server-written headers are passed over silently; a name HTTP cannot carry is passed over with a warning. */
function isSendable(context: HeaderContext, label: string, header: HeaderDescription): boolean {
  const name = header.name.toLowerCase()
  if (SERVER_HEADERS.has(name)) return false
  if (/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(header.name)) return true
  warnOnce(
    context,
    `name:${header.name}`,
    `${label}: the header "${header.name}" is not sent: HTTP header names are letters, digits and !#$%&'*+-.^_\`|~ only.`,
  )
  return false
}

function planHeader(context: HeaderContext, label: string, declared: HeaderDescription): HeaderPlan {
  const name = declared.name.toLowerCase()
  const check = checkOf(context, declared)
  const described = describedValueOf(context.document, declared)
  if (described !== undefined)
    return { name, declared, value: headerText(context, label, declared, described), origin: 'described', check }
  if (name === 'set-cookie') {
    if (declared.required)
      warnOnce(
        context,
        `cookie:${label}`,
        `${label}: the required header Set-Cookie is not sent: the description gives no value, and the mock makes up no cookie; give it an example.`,
      )
    return { name, declared, origin: 'made-up', check }
  }
  const value = headerText(context, label, declared, madeUpValueOf(context.document, declared))
  const plan: HeaderPlan = { name, declared, value, origin: 'made-up', check }
  // An optional header no made-up value fits is better left out than sent broken with every answer.
  if (value !== undefined && !declared.required && name !== 'location' && check(value).length) {
    warnOnce(
      context,
      `left-out:${declared.schemaPointer}:${value}`,
      `${label}: the optional header ${declared.name} is not sent: no value made of its schema meets it (${listed(check(value))}); give it an example.`,
    )
    plan.value = undefined
  }
  return plan
}

/** The header's example (or first of its examples), else its schema's example, first of examples, default, const or first enum value. */
function describedValueOf(document: unknown, declared: HeaderDescription): unknown {
  if (declared.example !== undefined) return declared.example
  const schema = schemaOf(document, declared)
  if (!isPlainObject(schema)) return undefined
  const examples = Array.isArray(schema.examples) ? schema.examples : []
  const enums = Array.isArray(schema.enum) ? schema.enum : []
  return [schema.example, examples[0], schema.default, schema.const, enums[0]].find((v) => v !== undefined)
}

/**
 * A value made of the schema: for `Location`, a URL or path as its format says (as before); for any
 * other, a sample of its schema (the same on every run, patterns followed), a header
 * without a schema being read as a string. `Set-Cookie` gets none (`planHeader`): a made-up cookie
 * lands in the browser's jar for every port of the host, and goes on to the other servers run there.
 */
function madeUpValueOf(document: unknown, declared: HeaderDescription): unknown {
  const schema = schemaOf(document, declared)
  if (declared.name.toLowerCase() === 'location')
    return schema?.format === 'uri' || schema?.format === 'url' ? 'http://127.0.0.1/' : '/'
  return sampleOf(document, declared.schemaPointer ? nodeAt(document, declared.schemaPointer) : { type: 'string' })
}

/**
 * The static sample of a header's schema (`sampleSchema`, as bodies get); a string schema with a
 * `pattern`, which the sampler does not read, gets a string the pattern matches, drawn from a fixed
 * seed so that it is the same on every run. A schema the sampler cannot read (a dangling `$ref`
 * inside) makes an empty value, which its check then judges.
 */
function sampleOf(document: unknown, schema: unknown): unknown {
  const node = derefSchema(document, schema)
  if (isPlainObject(node) && typeof node.pattern === 'string' && (node.type === undefined || node.type === 'string')) {
    const matching = stringMatching(node.pattern, node, seededRandom(1))
    if (matching !== undefined) return matching
  }
  try {
    return sampleSchema(schema as object, document as object)
  } catch {
    return ''
  }
}

function schemaOf(document: unknown, declared: HeaderDescription): any {
  return declared.schemaPointer ? derefSchema(document, nodeAt(document, declared.schemaPointer)) : undefined
}

/** A value as the header says it is written, made fit to send; a value that had to change is warned about. */
function headerText(context: HeaderContext, label: string, declared: HeaderDescription, value: unknown): string {
  const written = writeHeaderValue(value, declared)
  const text = toHeaderText(written)
  if (text !== written) {
    warnOnce(
      context,
      `text:${declared.name}:${written}`,
      `${label}: the ${declared.name} header is sent as "${text}": a header value is visible ASCII, so line breaks became spaces, other control characters were dropped and other characters percent-encoded (UTF-8).`,
    )
  }
  return text
}

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

/** How a sent value breaks its schema, each told once at start-up. */
function violationsOf(context: HeaderContext, label: string, plan: HeaderPlan): Violation[] {
  const violations = plan.check(plan.value!)
  if (violations.length) {
    const what = plan.origin === 'described' ? 'the value the description gives' : 'the value made of its schema'
    warnOnce(
      context,
      `breaks:${plan.declared.schemaPointer}:${plan.value}`,
      `${label}: the ${plan.declared.name} header is sent with ${what}, "${plan.value}", which breaks its schema (#${plan.declared.schemaPointer}): ${listed(violations)}. Each answer reports it in X-Mock-Violations.`,
    )
  }
  return violations
}

/**
 * Under `--dynamic`: made-up values of headers with a schema are generated again (`fake`) for each
 * answer; a generated value that breaks its schema gives way to the static one. Values the
 * description writes, `Location` and `Set-Cookie` keep their static value (or absence).
 */
function createHeaderGenerator(
  document: unknown,
  statics: Record<string, string> | undefined,
  plans: HeaderPlan[],
): CompiledHeaders['generateHeaders'] {
  const generated = plans.filter(
    (p) => p.origin === 'made-up' && p.declared.schemaPointer && p.name !== 'location' && p.name !== 'set-cookie',
  )
  if (generated.length === 0) return undefined
  return (fake) => {
    const headers = { ...statics }
    for (const plan of generated) {
      const value = generatedValue(document, plan, fake)
      if (value !== undefined) headers[plan.name] = value
    }
    return headers
  }
}

function generatedValue(document: unknown, plan: HeaderPlan, fake: (schema: object) => unknown): string | undefined {
  try {
    const text = toHeaderText(writeHeaderValue(fake(nodeAt(document, plan.declared.schemaPointer!)), plan.declared))
    return plan.check(text).length ? undefined : text
  } catch {
    // A header is not worth failing the answer for: the static value stands.
    return undefined
  }
}

/**
 * How a value of a header breaks its schema, as a client reads it back: a header declared with a
 * schema is split and coerced exactly as a request's header parameter is (`validateParameters`);
 * one declared with JSON `content` is parsed. Compiled once per header declaration: a header shared
 * by a thousand responses (GitHub's `Link`) is one check.
 */
export function checkOf(context: HeaderContext, declared: HeaderDescription): HeaderCheck {
  if (!declared.schemaPointer) return () => []
  const memo = memoOf(checks, context.document, () => new Map<string, HeaderCheck>())
  const key = `${declared.name.toLowerCase()}\0${declared.explode}\0${declared.shape}\0${declared.mediaType}\0${schemaKeyOf(context.document, declared.schemaPointer)}`
  let check = memo.get(key)
  if (!check)
    memo.set(
      key,
      (check = declared.mediaType === undefined ? parameterCheck(context, declared) : contentCheck(context, declared)),
    )
  return check
}

const checks = new WeakMap<object, Map<string, HeaderCheck>>()

/**
 * Header schemas are small and often written inline the same way (GitHub's hundred `Location: {type:
 * string}`): one written the same, `$ref`s included, is one check, whatever its place.
 */
function schemaKeyOf(document: unknown, pointer: string): string {
  const text = JSON.stringify(nodeAt(document, pointer)) ?? ''
  return text.length <= 1024 ? text : pointer
}

function parameterCheck(context: HeaderContext, declared: HeaderDescription): HeaderCheck {
  const ajv = context.coercingAjv ?? coercingAjvOf(context.document)
  if (!ajv) return () => []
  const name = declared.name.toLowerCase()
  const validator = compileParameters(ajv, [headerParameterOf(declared)])!
  const check: HeaderCheck = (value) => validateParameters(validator, requestWithHeader(name, value), {})
  return unjudgedIfUncompilable(check)
}

/** A JSON `content` header is its JSON text; a text one its text. */
function contentCheck(context: HeaderContext, declared: HeaderDescription): HeaderCheck {
  const path = fieldPath('header', declared.name.toLowerCase())
  const json = kindOf(declared.mediaType!) === 'json'
  const check: HeaderCheck = (value) => {
    const validate = compileAt(context.ajv, declared.schemaPointer!)
    let data: unknown = value
    try {
      if (json) data = JSON.parse(value)
    } catch {
      return [{ path, message: 'is not valid JSON' }]
    }
    return validate(data) ? [] : toViolations(path, validate.errors)
  }
  return unjudgedIfUncompilable(check)
}

/** A header schema Ajv cannot compile judges nothing: such headers were sent unjudged before, and must not stop start-up. */
function unjudgedIfUncompilable(check: HeaderCheck): HeaderCheck {
  try {
    check('')
    return check
  } catch {
    return () => []
  }
}

/** The header as a request's header parameter of the same schema: read back with the same reader and coercion. */
function headerParameterOf(declared: HeaderDescription): ParameterDescription {
  return {
    name: declared.name,
    in: 'header',
    required: true,
    schemaPointer: declared.schemaPointer,
    style: 'simple',
    explode: declared.explode,
    shape: declared.shape,
    properties: [],
    openObject: true,
    allowEmptyValue: false,
    allowReserved: false,
  }
}

function requestWithHeader(name: string, value: string): RequestData {
  return {
    method: 'GET',
    path: '/',
    header: (wanted) => (wanted === name ? value : undefined),
    headerSource: { [name]: value },
    query: () => new URLSearchParams(),
    rawQuery: '',
    cookie: () => undefined,
  }
}

/**
 * Header text is coerced as parameters are (`"5"` is 5): where the context has no coercing Ajv, one of
 * its own over the description, made on a first header with a schema; `undefined` if the description
 * cannot be added (headers then go unjudged).
 */
function coercingAjvOf(document: unknown): Ajv | undefined {
  return memoOf(coercingAjvs, document, () => {
    try {
      return addDescriptionSchema(createAjv({ coerceTypes: true }), document)
    } catch {
      return undefined
    }
  })
}

const coercingAjvs = new WeakMap<object, Ajv | undefined>()

/** Warnings about a header shared by many responses are told once per description. */
function warnOnce(context: HeaderContext, key: string, message: string): void {
  const told = memoOf(warned, context.document, () => new Set<string>())
  if (told.has(key)) return
  told.add(key)
  context.logger.warn(message)
}

const warned = new WeakMap<object, Set<string>>()

function memoOf<T>(memos: WeakMap<object, T>, document: unknown, create: () => T): T {
  const key = document as object
  if (!memos.has(key)) memos.set(key, create())
  return memos.get(key) as T
}

function listed(violations: readonly Violation[]): string {
  return violations.map((v) => `${v.path} ${v.message}`).join('; ')
}

/**
 * How a fixture's headers (a `.headers.json` sidecar) break the schemas of the headers the response
 * declares, as sentences; headers it does not declare are the fixture's own, and not judged.
 */
export function fixtureHeaderProblems(
  context: HeaderContext,
  declared: readonly HeaderDescription[],
  headers: Record<string, string>,
): string[] {
  const problems: string[] = []
  for (const header of declared) {
    const value = headers[header.name.toLowerCase()]
    if (value !== undefined) problems.push(...checkOf(context, header)(value).map((v) => `${v.path} ${v.message}`))
  }
  return problems
}
