import { closestWord } from '../closest-word.js'
import { startupErrors } from '../errors.js'
import { isPlainObject } from '../plain-object.js'
import type { OperationDescription } from '../openapi/operations.js'
import { derefSchema, nodeAt, pointerTokens } from '../openapi/resolve-ref.js'

/** What a template may read of a request. Plain data only: templates never run code or read files. */
export interface TemplateRequest {
  method: string
  /** The URL path, e.g. `/plants/3`. */
  path: string
  /** Path parameters, percent-decoded. */
  params: Record<string, string>
  query: URLSearchParams
  header(name: string): string | undefined
  /** The parsed JSON body, if any. */
  body: unknown
}

export interface BodyTemplate {
  render(request: TemplateRequest): unknown
  /** JSON pointers of values that are a whole placeholder: their type is only known per request. */
  slots: string[]
  /** The same, as keys to walk. */
  slotKeys: string[][]
}

/**
 * The operation a fixture answers, and the description its schema pointers point into: with it, a
 * placeholder that no valid request can fill (a path parameter the path lacks, a field a closed
 * request schema forbids) stops start-up instead of quietly rendering nothing on every request.
 */
export interface TemplateOperation {
  /**
   * The description the operation's request body pointers are read in. Where it is the response view
   * (`deriveReadWriteViews`), `writeOnly` fields are gone from it, and a placeholder reading one of a
   * closed request schema is refused: pass the request view where it is at hand.
   */
  document: unknown
  operation: OperationDescription
}

/** Where placeholders are compiled: the fixture named in messages, and what it answers, if known. */
interface Scope {
  where: string
  answers?: TemplateOperation
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g
const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/

type Render = (request: TemplateRequest) => unknown
/** Marks a value that is left out: a whole placeholder reading something the request lacks. */
const ABSENT = Symbol('absent')

/**
 * Compiles `{{request.body.name}}`-style placeholders in a fixture, once at start-up. A string that
 * is one placeholder takes the value with its type (a number stays a number) and disappears when
 * the request lacks it, so an optional field is echoed only when sent; placeholders inside a longer
 * string are written as text. `undefined` when the value has no placeholder. Given the operation the
 * fixture answers, each placeholder is also checked against its description (`checkPlaceholder`).
 */
export function compileTemplate(value: unknown, where: string, answers?: TemplateOperation): BodyTemplate | undefined {
  const slots: string[] = []
  const render = compileValue(value, '', slots, { where, answers })
  if (!render) return undefined
  const slotKeys = slots.map(pointerTokens)
  return { render: (request) => orNull(render(request)), slots, slotKeys }
}

/**
 * Whether a rendered value holds an object or array where a whole placeholder stood: only then can
 * it carry fields the schema does not declare (the template's own fields were checked at start-up).
 */
export function pullsInStructure(template: BodyTemplate, rendered: unknown): boolean {
  return template.slotKeys.some((path) => {
    let node = rendered
    for (const key of path)
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined
    return node !== null && typeof node === 'object'
  })
}

function compileValue(value: unknown, pointer: string, slots: string[], scope: Scope): Render | undefined {
  if (typeof value === 'string') return compileString(value, pointer, slots, scope)
  if (Array.isArray(value)) {
    const items = value.map((item, i) => compileValue(item, `${pointer}/${i}`, slots, scope))
    if (!items.some(Boolean)) return undefined
    return (request) =>
      value.flatMap((item, i) => (items[i] ? [items[i]!(request)].filter((v) => v !== ABSENT) : [item]))
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(
      ([key, item]) => [key, item, compileValue(item, `${pointer}/${escape(key)}`, slots, scope)] as const,
    )
    if (!entries.some(([, , render]) => render)) return undefined
    return (request) => {
      const out: Record<string, unknown> = {}
      for (const [key, item, render] of entries) {
        const rendered = render ? render(request) : item
        // A "__proto__" key of the fixture is data: assignment would set the prototype instead.
        if (rendered !== ABSENT)
          Object.defineProperty(out, key, { value: rendered, enumerable: true, writable: true, configurable: true })
      }
      return out
    }
  }
  return undefined
}

function compileString(text: string, pointer: string, slots: string[], scope: Scope): Render | undefined {
  const whole = WHOLE.exec(text)
  if (whole) {
    slots.push(pointer)
    const read = compilePlaceholder(whole[0], whole[1]!, scope)
    return (request) => read(request) ?? ABSENT
  }
  const placeholders = [...text.matchAll(PLACEHOLDER)]
  if (placeholders.length === 0) return undefined
  // Literal text and placeholders alternate: text, placeholder, text, ..., text.
  const reads: Render[] = []
  let end = 0
  for (const { 0: written, 1: expression, index } of placeholders) {
    const literal = text.slice(end, index)
    reads.push(() => literal, compilePlaceholder(written, expression!, scope))
    end = index! + written.length
  }
  const tail = text.slice(end)
  reads.push(() => tail)
  return (request) => reads.map((read) => asText(read(request))).join('')
}

/** One placeholder, `written` as in the fixture (for messages): parsed, checked against the operation, compiled. */
function compilePlaceholder(written: string, expression: string, scope: Scope): Render {
  const parsed = parseExpression(expression)
  if ('problem' in parsed) throw startupErrors.templateBadExpression(written, scope.where, parsed.problem)
  if (scope.answers) checkPlaceholder(parsed, written, scope.where, scope.answers)
  return compileRead(parsed)
}

/** A placeholder's expression, parsed: where it reads, and the name or body path it reads there. */
type Expression =
  | { source: 'method' | 'path' }
  | { source: 'params' | 'query' | 'headers'; name: string }
  | { source: 'body'; steps: string[] }

const SOURCES = ['body', 'params', 'query', 'headers', 'method', 'path']
/** `a.b[0].c`, or `a.0.c`: field names between dots, and array indexes in brackets. */
const BODY_PATH = /^[^.[\]]+(?:\.[^.[\]]+|\[\d+\])*$/
const BODY_STEP = /([^.[\]]+)|\[(\d+)\]/g

/**
 * `request.body.a.b[0]`, `request.params.id`, `request.query.q`, `request.headers.x-id`,
 * `request.method`, `request.path`; anything else is a problem, said with a hint where one helps.
 * A name may hold spaces or quotes (a JSON field may be called `first name`): whether such a field
 * exists is for the request schema to say (`checkPlaceholder`), not for the grammar.
 */
function parseExpression(expression: string): Expression | { problem: string | undefined } {
  const filter = /\|\s*([^|]*)$/.exec(expression)
  if (filter)
    return {
      problem: `filters such as "| ${filter[1]!.trim()}" are not supported: a placeholder stands for the request value as sent`,
    }
  const [root, source, ...rest] = expression.split('.')
  const name = rest.join('.')
  if (root !== 'request') return { problem: didYouMean(rootHint(expression.split('.'))) }
  if ((source === 'method' || source === 'path') && !name) return { source }
  if ((source === 'params' || source === 'query' || source === 'headers') && name) return { source, name }
  if (source === 'body' && (!name || BODY_PATH.test(name)))
    return { source, steps: [...name.matchAll(BODY_STEP)].map((m) => m[1] ?? m[2]!) }
  const meant = source !== undefined && !SOURCES.includes(source) ? closestWord(source, SOURCES) : undefined
  return { problem: didYouMean(meant && ['request', meant, ...rest].join('.')) }
}

/** `reqest.body.name` → `request.body.name`; `body.name` → `request.body.name`. */
function rootHint([root, ...rest]: string[]): string | undefined {
  if (SOURCES.includes(root!)) return ['request', root, ...rest].join('.')
  if (closestWord(root!, ['request'])) return ['request', ...rest].join('.')
  return undefined
}

function didYouMean(meant: string | undefined): string | undefined {
  return meant ? `did you mean {{${meant}}}?` : undefined
}

function compileRead(expression: Expression): Render {
  switch (expression.source) {
    case 'method':
      return (request) => request.method
    case 'path':
      return (request) => request.path
    case 'params': {
      const { name } = expression
      return (request) => (Object.hasOwn(request.params, name) ? request.params[name] : undefined)
    }
    case 'query': {
      const { name } = expression
      return (request) => request.query.get(name) ?? undefined
    }
    case 'headers': {
      // Only a string is a header value: under node:http headers sit in a plain object, where
      // `constructor` or `__proto__` would otherwise read Object.prototype members.
      const name = expression.name.toLowerCase()
      return (request) => onlyString(request.header(name))
    }
    case 'body': {
      // Only own properties are read, so `__proto__` or `constructor` lead nowhere.
      const { steps } = expression
      return (request) => steps.reduce<unknown>((node, step) => readOwn(node, step), request.body)
    }
  }
}

function onlyString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

function readOwn(node: unknown, key: string): unknown {
  if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined
  return (node as Record<string, unknown>)[key]
}

/** Why a placeholder can never be filled, and the name it most likely meant. */
interface Mismatch {
  why: string
  meant?: string
}

/**
 * Stops start-up on a placeholder no valid request fills: a misspelt field renders nothing, silently,
 * on every request, which is far harder to find than a message naming it. Headers are not checked:
 * clients send many headers a description never declares. When the description is unsure (an open
 * schema, a schemaless body, an operation that declares no query parameters), the placeholder stands.
 */
function checkPlaceholder(
  expression: Expression,
  written: string,
  where: string,
  { document, operation }: TemplateOperation,
): void {
  const mismatch = mismatchOf(expression, document, operation)
  if (!mismatch) return
  throw startupErrors.templateNeverMatches(written, where, mismatch.why, mismatch.meant)
}

function mismatchOf(expression: Expression, document: unknown, operation: OperationDescription): Mismatch | undefined {
  if (expression.source === 'params') return pathParameterMismatch(operation, expression.name)
  if (expression.source === 'query') return queryParameterMismatch(operation, expression.name)
  if (expression.source === 'body') return bodyMismatch(document, operation, expression.steps)
  return undefined
}

/** The router fills `request.params` from the `{names}` of the path; declared path parameters count too. */
function pathParameterMismatch(operation: OperationDescription, name: string): Mismatch | undefined {
  const inPath = [...operation.path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!)
  const names = [...new Set([...inPath, ...operation.parameters.filter((p) => p.in === 'path').map((p) => p.name)])]
  if (names.includes(name)) return undefined
  const has = names.length ? `has ${listOfNames(names)}` : 'has no parameters'
  return {
    why: `request.params has no ${name}: the path ${operation.path} of ${operation.id} ${has}`,
    meant: closestWord(name, names),
  }
}

/**
 * An operation that declares query parameters describes its query, so another name is a mistake; one
 * that declares none says nothing about it (its requests may carry any), so every name stands. Object
 * parameters are sent as their properties (exploded form) or as `name[property]` (deepObject).
 */
function queryParameterMismatch(operation: OperationDescription, name: string): Mismatch | undefined {
  const declared = operation.parameters.filter((p) => p.in === 'query')
  if (declared.length === 0 || declared.some((p) => takesQueryKey(p, name))) return undefined
  const names = declared.map((p) => p.name)
  return {
    why: `request.query has no ${name}: ${operation.id} declares the query parameters ${listOfNames(names)}`,
    meant: closestWord(name, names),
  }
}

function takesQueryKey(parameter: OperationDescription['parameters'][number], key: string): boolean {
  if (parameter.name === key) return true
  if (parameter.shape !== 'object') return false
  if (parameter.style === 'deepObject') return key.startsWith(`${parameter.name}[`)
  return parameter.style === 'form' && parameter.explode && (parameter.openObject || parameter.properties.includes(key))
}

/** Follows a body path through the request schemas of every declared media type: a field any of them may hold stands. */
function bodyMismatch(
  document: unknown,
  operation: OperationDescription,
  steps: readonly string[],
): Mismatch | undefined {
  if (!operation.requestBody) return { why: `${operation.id} declares no request body, so request.body is never set` }
  const { content } = operation.requestBody
  // A media type without a schema (or no media type at all) takes any body.
  if (content.length === 0 || content.some((media) => !media.schemaPointer)) return undefined
  let schemas: unknown[] = content.map((media) => nodeAt(document, media.schemaPointer!))
  let at = 'request.body'
  for (const step of steps) {
    const next = schemas.map((schema) => stepInto(document, schema, step))
    if (next.includes(ANYTHING)) return undefined
    const found = (next as unknown[][]).flat()
    if (found.length === 0) return stepMismatch(document, schemas, step, at, operation)
    schemas = found
    at = `${at}.${step}`
  }
  return undefined
}

/** The schema merged from `$ref`s, `allOf` parts and `oneOf`/`anyOf` branches: lenient, as a field of any branch counts. */
interface Shape {
  parts: Array<Record<string, any>>
  /** A branch that says nothing of its shape (`{}`, `true`): any value may stand there. */
  anything: boolean
}

/** Returned where a schema takes any value at a step: the rest of the path cannot be judged. */
const ANYTHING = Symbol('anything')

/** The schemas of the value one step down (a field, or an array item), or ANYTHING. */
function stepInto(document: unknown, schema: unknown, step: string): unknown[] | typeof ANYTHING {
  const shape = shapeOf(document, schema)
  const kinds = kindsOf(shape)
  if (shape.anything || kinds.size === 0) return ANYTHING
  const found: unknown[] = []
  if (kinds.has('array')) {
    // `tags.length` reads the array's own length today: it matches, so it stands.
    if (step === 'length') return ANYTHING
    if (/^\d+$/.test(step)) {
      const items = itemSchemas(shape, Number(step))
      if (items.length === 0) return ANYTHING
      found.push(...items)
    }
  }
  if (kinds.has('object')) {
    const fields = fieldSchemas(document, schema, shape, step)
    if (fields === ANYTHING) return ANYTHING
    found.push(...fields)
  }
  return found
}

function shapeOf(document: unknown, schema: unknown): Shape {
  const shape: Shape = { parts: [], anything: false }
  collectParts(document, schema, shape, false, 0)
  return shape
}

/** Deeper than this, combinators are not followed (a recursive `allOf` ends here). */
const MAX_COMBINATOR_DEPTH = 32

function collectParts(document: unknown, schema: unknown, shape: Shape, isBranch: boolean, depth: number): void {
  const node = derefSchema(document, schema)
  if (!isPlainObject(node) || depth > MAX_COMBINATOR_DEPTH) {
    if (isBranch && node !== false) shape.anything = true
    return
  }
  shape.parts.push(node)
  if (isBranch && kindsOfPart(node).length === 0 && !hasCombinators(node)) shape.anything = true
  for (const part of listOf(node.allOf)) collectParts(document, part, shape, false, depth + 1)
  for (const branch of [...listOf(node.oneOf), ...listOf(node.anyOf)])
    collectParts(document, branch, shape, true, depth + 1)
}

function hasCombinators(node: Record<string, any>): boolean {
  return ['allOf', 'oneOf', 'anyOf'].some((keyword) => Array.isArray(node[keyword]) && node[keyword].length > 0)
}

function kindsOf(shape: Shape): Set<string> {
  return new Set(shape.parts.flatMap(kindsOfPart))
}

/** `type` as written, and the kinds its keywords imply (`properties` → object, `items` → array). */
function kindsOfPart(node: Record<string, any>): string[] {
  const types: unknown[] = Array.isArray(node.type) ? node.type : [node.type]
  const kinds = types.filter((t): t is string => typeof t === 'string')
  if (node.properties !== undefined || node.additionalProperties !== undefined || node.patternProperties !== undefined)
    kinds.push('object')
  if (node.items !== undefined || node.prefixItems !== undefined) kinds.push('array')
  return kinds
}

function itemSchemas(shape: Shape, index: number): unknown[] {
  return shape.parts.flatMap((part) => {
    if (Array.isArray(part.prefixItems) && index < part.prefixItems.length) return [part.prefixItems[index]]
    // Draft 4 tuples (`items: [...]`, as OpenAPI 3.0 never allows but descriptions write).
    if (Array.isArray(part.items))
      return index < part.items.length
        ? [part.items[index]]
        : [part.additionalItems].filter((s) => s !== undefined && s !== false)
    return part.items === undefined || part.items === false ? [] : [part.items]
  })
}

/** A declared field's schemas (of any part), else those of matching `patternProperties`; none when the object is closed. */
function fieldSchemas(document: unknown, schema: unknown, shape: Shape, field: string): unknown[] | typeof ANYTHING {
  const declared = shape.parts
    .filter((part) => isPlainObject(part.properties) && Object.hasOwn(part.properties, field))
    .map((part) => part.properties[field])
  if (declared.length) return declared
  const patterned = shape.parts.flatMap((part) =>
    Object.entries(isPlainObject(part.patternProperties) ? part.patternProperties : {}).filter(([pattern]) =>
      matchesPattern(pattern, field),
    ),
  )
  if (patterned.length) return patterned.map(([, property]) => property)
  return isClosed(document, schema, 0) ? [] : ANYTHING
}

/** A pattern this engine cannot read is taken to match: when unsure, the placeholder stands. */
function matchesPattern(pattern: string, field: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(field)
  } catch {
    return true
  }
}

/**
 * Forbids undeclared fields: `additionalProperties: false` or `unevaluatedProperties: false` on the
 * schema or on one of its `allOf` parts, or on every `oneOf`/`anyOf` branch.
 */
function isClosed(document: unknown, schema: unknown, depth: number): boolean {
  const node = derefSchema(document, schema)
  if (!isPlainObject(node) || depth > MAX_COMBINATOR_DEPTH) return false
  if (node.additionalProperties === false || node.unevaluatedProperties === false) return true
  if (listOf(node.allOf).some((part) => isClosed(document, part, depth + 1))) return true
  return ['oneOf', 'anyOf'].some(
    (keyword) =>
      listOf(node[keyword]).length > 0 &&
      listOf(node[keyword]).every((branch) => isClosed(document, branch, depth + 1)),
  )
}

/** Says why no schema at `at` has `step`: a closed object without that field, an array, or a scalar. */
function stepMismatch(
  document: unknown,
  schemas: readonly unknown[],
  step: string,
  at: string,
  operation: OperationDescription,
): Mismatch {
  const shapes = schemas.map((schema) => shapeOf(document, schema))
  const kinds = new Set(shapes.flatMap((shape) => [...kindsOf(shape)]))
  const whose =
    at === 'request.body' ? `the request schema of ${operation.id}` : `its schema in the request of ${operation.id}`
  if (kinds.has('object')) {
    const fields = [
      ...new Set(
        shapes.flatMap((shape) =>
          shape.parts.flatMap((part) => (isPlainObject(part.properties) ? Object.keys(part.properties) : [])),
        ),
      ),
    ]
    const declares = fields.length
      ? `declares ${listOfNames(fields)} and forbids others`
      : 'declares no field and forbids any'
    return { why: `${at} has no field ${step}: ${whose} ${declares}`, meant: closestWord(step, fields) }
  }
  if (kinds.has('array'))
    return { why: `${at} is an array in ${whose}: it has items, not fields (read one as ${at}.0)` }
  return { why: `${at} is ${[...kinds].map(withArticle).join(' or ')} in ${whose}: it has no fields` }
}

function withArticle(kind: string): string {
  if (kind === 'null') return kind
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

/** `a, b and c`; a long list is cut, so that a message stays one readable line. */
function listOfNames(names: readonly string[]): string {
  const shown = names.slice(0, 12)
  const more = names.length - shown.length
  if (more > 0) return `${shown.join(', ')} and ${more} more`
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : shown.join('')
}

function asText(value: unknown): string {
  if (value === undefined || value === null || value === ABSENT) return ''
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

function orNull(value: unknown): unknown {
  return value === ABSENT ? null : value
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1')
}
