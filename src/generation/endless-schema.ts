import { nodeAt } from '../openapi/resolve-ref.js'

/** Schemas walked at most for one body: a bound on the work, far above real descriptions. */
const MAX_SCHEMAS_WALKED = 10_000

/**
 * The way round, when every instance of the schema at `schemaPointer` holds itself again, so that no
 * body of it ends: a required property, an item of an array that needs one (`minItems` of 1 or more)
 * or an `allOf` member leads back, through `$ref`s, to a schema already on the way (`next`, for
 * `Link: {required: [next], properties: {next: Link}}`). The sampler and json-schema-faker stop at a
 * depth and hand back a body that breaks the schema; the mock answers 500 instead, naming it (#30).
 * Anything that offers a way out ends the walk there: `anyOf` and `oneOf`, an optional property, an
 * array that may be empty, a schema that allows `null` or another type. `undefined` when a finite
 * body exists, as far as this walk can tell (it never calls a schema endless that is not).
 */
export function endlessPath(document: unknown, schemaPointer: string): string | undefined {
  const finite = new Set<object>()
  const onTheWay = new Set<object>()
  let walked = 0
  const walk = (schema: unknown, path: readonly string[]): readonly string[] | undefined => {
    if (typeof schema !== 'object' || schema === null || finite.has(schema)) return undefined
    if (onTheWay.has(schema)) return path
    if (++walked > MAX_SCHEMAS_WALKED) return undefined
    const node = schema as Record<string, any>
    if (typeof node.$ref === 'string') {
      if (!node.$ref.startsWith('#')) return undefined
      onTheWay.add(node)
      const found = walk(nodeAt(document, node.$ref.slice(1)), path)
      onTheWay.delete(node)
      if (!found) finite.add(node)
      return found
    }
    if (allowsAnotherType(node)) return undefined
    onTheWay.add(node)
    const found = walkParts(node, path)
    onTheWay.delete(node)
    if (!found) finite.add(node)
    return found
  }
  const walkParts = (node: Record<string, any>, path: readonly string[]): readonly string[] | undefined => {
    if (Array.isArray(node.allOf))
      for (const member of node.allOf) {
        const found = walk(member, path)
        if (found) return found
      }
    if (Array.isArray(node.required) && typeof node.properties === 'object' && node.properties !== null)
      for (const name of node.required) {
        if (typeof name !== 'string' || !Object.hasOwn(node.properties, name)) continue
        const found = walk(node.properties[name], [...path, name])
        if (found) return found
      }
    if (typeof node.minItems === 'number' && node.minItems >= 1 && typeof node.items === 'object')
      return walk(node.items, [...path, '0'])
    return undefined
  }
  const found = walk(nodeAt(document, schemaPointer), [])
  return found && found.length ? found.join('.') : undefined
}

/** The schema allows `null` (3.0's `nullable`, 3.1's type list) or a type besides an object or an array: a way out. */
function allowsAnotherType(node: Record<string, any>): boolean {
  if (node.nullable === true) return true
  const { type } = node
  if (type === undefined) return false
  const types: unknown[] = Array.isArray(type) ? type : [type]
  return types.some((t) => t !== 'object' && t !== 'array')
}
