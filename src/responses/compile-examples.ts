import type { MediaTypeDescription } from '../openapi/operations.js'
import { derefSchema } from '../openapi/resolve-ref.js'
import { isPlainObject } from '../internal/plain-object.js'
import type { Violation } from '../errors/index.js'
import { bodyViolations, schemaViolations } from '../validation/check-response-body.js'
import { schemaRootOf } from '../validation/create-ajv.js'
import type { ResponseCompileContext } from './compile-responses.js'
import type { DeclaredMedia } from './declared-responses.js'
import { serializeBody } from './serialize-body.js'

/** The description's examples of one media type that meet its schema, as its bodies; else one made of its schema's examples. */
export function compileExamples(
  context: ResponseCompileContext,
  label: string,
  content: MediaTypeDescription,
  media: DeclaredMedia,
  schema: unknown,
): void {
  const { document, logger } = context
  const { kind } = media
  for (const { name, value } of content.examples) {
    const violations = exampleViolations(context, media, value)
    const problems = violations.map((v) => `${v.path} ${v.message}`)
    const broken = problems.length > 0 && context.serveBrokenExamples === true
    const text = problems.length && !broken ? undefined : serializeBody(kind, value, media.xml)
    if (broken && text !== undefined) {
      // Under --errors the description's own example is answered for what it is: 500, naming how it breaks its schema (#30).
      media.bodies.set(name, { name, origin: 'example', json: text, violations })
      continue
    }
    if (text === undefined) {
      const why = problems.length
        ? `it breaks its schema: ${problems.join('; ')}${rulesBroken(document, media, value)}`
        : `it cannot be written as ${content.mediaType}`
      logger.warn(`${label} ${content.mediaType}: the example "${name}" is not served, since ${why}.`)
      continue
    }
    media.bodies.set(name, { name, origin: 'example', json: text })
  }
  if (media.bodies.size === 0 && schema) addSchemaExample(context, media, schema)
}

/**
 * Without an example on the media type, the schema's own `example` makes the body, when valid. Where
 * a body can be made of the schema, the examples of its properties are left to the static sample,
 * which takes them first and fills every other declared property as Prism's does (#30); a body made
 * of the property examples alone would leave the others out. Where none can be made (an object under
 * `text/plain`), the property examples are all there is.
 */
function addSchemaExample(context: ResponseCompileContext, media: DeclaredMedia, schema: unknown): void {
  const value = media.generatable ? ownExampleOf(context.document, schema) : exampleOfSchema(context.document, schema)
  if (value === undefined || exampleViolations(context, media, value).length) return
  const text = serializeBody(media.kind, value, media.xml)
  if (text !== undefined) media.bodies.set('default', { name: 'default', origin: 'example', json: text })
}

/** The `example` (or first of `examples`) written on the schema itself. */
function ownExampleOf(document: unknown, schema: unknown): unknown {
  const node = derefSchema(document, schema) as Record<string, any> | undefined
  if (!isPlainObject(node)) return undefined
  if (node.example !== undefined) return node.example
  return Array.isArray(node.examples) && node.examples.length ? node.examples[0] : undefined
}

/** Which keywords an example breaks and where they are written, for the warning: ` (rules broken: format at #/components/...)`. */
function rulesBroken(document: unknown, media: DeclaredMedia, value: unknown): string {
  if (!media.validate || !media.schemaPointer || media.validate(value)) return ''
  const root = schemaRootOf(document, media.schemaPointer)
  const rules = new Set(
    (media.validate.errors ?? []).map((e) => `${e.keyword} at ${absoluteSchemaPath(e.schemaPath, root)}`),
  )
  const shown = [...rules].slice(0, 5)
  return ` (rules broken: ${shown.join(', ')}${rules.size > shown.length ? ', ...' : ''})`
}

/** Ajv names a rule inside a `$ref`'d schema from the document's root, and others from the compiled schema's root. */
function absoluteSchemaPath(schemaPath: string, root: string): string {
  return /^#\/(components|paths|webhooks|definitions)\//.test(schemaPath)
    ? schemaPath
    : `#${root}${schemaPath.slice(1)}`
}

/** An XML or text example written as a string is the document itself: only its schema, if a string one, can judge it. */
function exampleViolations(context: ResponseCompileContext, media: DeclaredMedia, value: unknown): Violation[] {
  if (media.kind === 'json' || (media.kind === 'xml' && typeof value === 'object' && value !== null))
    return bodyViolations(context, media, value)
  if (media.kind === 'xml') return []
  return schemaViolations(media, value)
}

/**
 * A value made of the `example`s a schema carries: its own `example` (or first of `examples`), else
 * an object of its properties' examples, an array of its items' example, or the merge of its `allOf`.
 * Each schema is worked out once per description (a `$ref` shared by a hundred properties costs
 * one visit), and a schema met again inside itself (a recursive graph) adds nothing: without both,
 * recursive descriptions took exponential time to start (#11).
 */
function exampleOfSchema(document: unknown, schema: unknown): unknown {
  let memo = exampleMemos.get(document as object)
  if (!memo) exampleMemos.set(document as object, (memo = new Map()))
  return exampleOf(document, schema, memo, new Set())
}

/** Deeper than this, examples of nested schemas are left out (the call stack stays small). */
const MAX_EXAMPLE_DEPTH = 64

const exampleMemos = new WeakMap<object, Map<object, unknown>>()

function exampleOf(document: unknown, schema: unknown, memo: Map<object, unknown>, inProgress: Set<object>): unknown {
  const node = derefSchema(document, schema)
  if (typeof node !== 'object' || node === null || inProgress.has(node) || inProgress.size > MAX_EXAMPLE_DEPTH)
    return undefined
  if (memo.has(node)) return memo.get(node)
  inProgress.add(node)
  const value = exampleOfNode(node, (part) => exampleOf(document, part, memo, inProgress))
  inProgress.delete(node)
  memo.set(node, value)
  return value
}

function exampleOfNode(node: Record<string, any>, exampleOfPart: (schema: unknown) => unknown): unknown {
  if (node.example !== undefined) return node.example
  if (Array.isArray(node.examples) && node.examples.length) return node.examples[0]
  if (Array.isArray(node.allOf)) {
    const parts = node.allOf.map(exampleOfPart).filter(isPlainObject)
    const own = node.properties ? exampleOfProperties(node.properties, exampleOfPart) : undefined
    const merged = Object.assign({}, ...parts, isPlainObject(own) ? own : {})
    return Object.keys(merged).length ? merged : undefined
  }
  for (const keyword of ['oneOf', 'anyOf']) {
    const first = Array.isArray(node[keyword]) ? node[keyword][0] : undefined
    if (first !== undefined) return exampleOfPart(first)
  }
  if (node.properties) return exampleOfProperties(node.properties, exampleOfPart)
  if (node.items !== undefined) {
    const item = exampleOfPart(node.items)
    return item === undefined ? undefined : [item]
  }
  return undefined
}

function exampleOfProperties(
  properties: Record<string, unknown>,
  exampleOfPart: (schema: unknown) => unknown,
): Record<string, unknown> | undefined {
  if (typeof properties !== 'object' || properties === null) return undefined
  const defined = Object.entries(properties)
    .map(([name, property]) => [name, exampleOfPart(property)] as const)
    .filter(([, value]) => value !== undefined)
  return defined.length ? Object.fromEntries(defined) : undefined
}
