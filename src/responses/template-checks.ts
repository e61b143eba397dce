import { closestWord } from '../internal/closest-word.js'
import { startupErrors } from '../errors/index.js'
import { isPlainObject } from '../internal/plain-object.js'
import type { OperationDescription } from '../openapi/operations.js'
import { nodeAt } from '../openapi/resolve-ref.js'
import { ANYTHING, kindsOf, shapeOf, stepInto } from '../openapi/step-into-schema.js'
import type { Expression } from './template-expression.js'

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
export function checkPlaceholder(
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
 * that declares none says nothing about it (its requests may carry any), so every name stands, and so
 * does every name under an OpenAPI 3.2 `querystring` (the whole query as one value). Object
 * parameters are sent as their properties (exploded form) or as `name[property]` (deepObject).
 */
function queryParameterMismatch(operation: OperationDescription, name: string): Mismatch | undefined {
  const declared = operation.parameters.filter((p) => p.in === 'query')
  if (declared.length === 0 || declared.some((p) => takesQueryKey(p, name))) return undefined
  if (operation.parameters.some((p) => p.in === 'querystring')) return undefined
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

/** `a, b and c`; a long list is cut, so that a message stays one readable line. */
function listOfNames(names: readonly string[]): string {
  const shown = names.slice(0, 12)
  const more = names.length - shown.length
  if (more > 0) return `${shown.join(', ')} and ${more} more`
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : shown.join('')
}
