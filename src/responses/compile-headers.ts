import type { Violation } from '../errors/index.js'
import { isPlainObject } from '../internal/plain-object.js'
import type { HeaderDescription } from '../openapi/operations.js'
import { derefSchema, nodeAt } from '../openapi/resolve-ref.js'
import { type HeaderContext, warnOnce } from './header-context.js'
import { type HeaderValidator, headerValidatorOf } from './header-validators.js'
import { sampleSchema } from '../generation/sample-body.js'
import { stringMatching } from '../generation/schema-strings.js'
import { seededRandom } from '../generation/seeded-random.js'
import { toHeaderText, writeHeaderValue } from './write-header-value.js'

/**
 * Response headers no description sets: `Content-Type` (OpenAPI: "it SHALL be ignored", the negotiated
 * media type says it), the framing and hop-by-hop headers the server writes for the body it sends,
 * and `Content-Encoding`, since the mock never encodes a body (a declared `gzip` made every client
 * fail to read it).
 */
const SERVER_HEADERS: ReadonlySet<string> = new Set([
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

/** One declared header, settled at start-up. */
interface HeaderPlan {
  name: string
  declared: HeaderDescription
  /** What is sent; `undefined` for a header left out. */
  value?: string
  /** A value the description wrote (kept even if it breaks its schema), or one the mock made up. */
  origin: 'described' | 'made-up'
  /** Checks a value as a client would read it back: split and coerced as a header parameter is. */
  check: HeaderValidator
}

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
  const check = headerValidatorOf(context, declared)
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

function listed(violations: readonly Violation[]): string {
  return violations.map((v) => `${v.path} ${v.message}`).join('; ')
}
