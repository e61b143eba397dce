import { isPlainObject } from '../internal/plain-object.js'
import { flattenSchema } from './flatten-schema.js'
import { derefSchema } from './resolve-ref.js'

/** The schema merged from `$ref`s, `allOf` parts and `oneOf`/`anyOf` branches: lenient, as a field of any branch counts. */
export interface Shape {
  parts: Array<Record<string, any>>
  /** A branch that says nothing of its shape (`{}`, `true`): any value may stand there. */
  anything: boolean
}

/** Returned where a schema takes any value at a step: the rest of the path cannot be judged. */
export const ANYTHING = Symbol('anything')

/** The schemas of the value one step down (a field, or an array item), or ANYTHING. */
export function stepInto(document: unknown, schema: unknown, step: string): unknown[] | typeof ANYTHING {
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

export function shapeOf(document: unknown, schema: unknown): Shape {
  const parts = flattenSchema(document, schema).filter(isPlainObject)
  return { parts, anything: parts.some((part) => hasOpenBranch(document, part)) }
}

/** A `oneOf`/`anyOf` branch that says nothing of its shape (`{}`, `true`, a bare description): any value may stand there. */
function hasOpenBranch(document: unknown, part: Record<string, any>): boolean {
  return [...listOf(part.oneOf), ...listOf(part.anyOf)].some((branch) => {
    const node = derefSchema(document, branch)
    if (!isPlainObject(node)) return node !== false
    return kindsOfPart(node).length === 0 && !hasCombinators(node)
  })
}

function hasCombinators(node: Record<string, any>): boolean {
  return ['allOf', 'oneOf', 'anyOf'].some((keyword) => Array.isArray(node[keyword]) && node[keyword].length > 0)
}

export function kindsOf(shape: Shape): Set<string> {
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
  return isClosed(document, schema) ? [] : ANYTHING
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
 * schema or on one of its `allOf` parts, or on every `oneOf`/`anyOf` branch. Each schema is judged
 * once (a recursive or diamond-shaped composition costs no more than its parts); one met again inside
 * itself is taken as open.
 */
function isClosed(document: unknown, schema: unknown, judged = new Map<object, boolean>()): boolean {
  const node = derefSchema(document, schema)
  if (!isPlainObject(node)) return false
  const known = judged.get(node)
  if (known !== undefined) return known
  judged.set(node, false)
  const closed =
    node.additionalProperties === false ||
    node.unevaluatedProperties === false ||
    listOf(node.allOf).some((part) => isClosed(document, part, judged)) ||
    ['oneOf', 'anyOf'].some(
      (keyword) =>
        listOf(node[keyword]).length > 0 && listOf(node[keyword]).every((branch) => isClosed(document, branch, judged)),
    )
  judged.set(node, closed)
  return closed
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}
