import { derefSchema } from './resolve-ref.js'

/** Two copies of a description, with the same JSON pointers: one to read requests with, one for responses. */
export interface ReadWriteViews {
  /** `readOnly` properties are never required: a client does not send them (but may). */
  request: Record<string, any>
  /** `writeOnly` properties are gone: never required, never generated, refused in fixtures like undeclared fields. */
  response: Record<string, any>
}

/**
 * Applies `readOnly` / `writeOnly` once, at start-up, by rewriting two copies of the description, so
 * validators and the faker compiled from them never look at the flags on the request path.
 * @note A property counts as readOnly (writeOnly) where the schema that lists it in `required`, or
 * the schema whose inline `allOf` part lists it, declares it so in its own `properties` or in those
 * of its `allOf` parts, `$ref`s followed.
 */
export function deriveReadWriteViews(document: Record<string, any>): ReadWriteViews {
  // Most descriptions use neither flag: then both views are the description itself, and one Ajv
  // serves both. A view is copied only when its flag is used (GitHub's description has readOnly and no
  // writeOnly: one copy of a 10 MB description, not two).
  const readOnlyUsed = usesFlag(document, 'readOnly')
  const writeOnlyUsed = usesFlag(document, 'writeOnly')
  if (!readOnlyUsed && !writeOnlyUsed) return { request: document, response: document }
  const request = readOnlyUsed ? structuredClone(document) : document
  const response = writeOnlyUsed ? structuredClone(document) : document
  // Decisions are read from the untouched description, so rewriting one schema never hides a flag from another.
  walkSchemas(document, [request, response], (original, [inRequest, inResponse]) => {
    if (readOnlyUsed) dropRequired(original, inRequest, flaggedProperties(document, original, 'readOnly'))
    // A node under a removed writeOnly property has no counterpart in the response view.
    if (!writeOnlyUsed || !inResponse) return
    const writeOnly = flaggedProperties(document, original, 'writeOnly')
    dropRequired(original, inResponse, writeOnly)
    for (const name of writeOnly)
      if (isFlagged(document, original.properties?.[name], 'writeOnly')) delete inResponse.properties[name]
  })
  return { request, response }
}

type Flag = 'readOnly' | 'writeOnly'

function usesFlag(node: unknown, flag: Flag): boolean {
  if (typeof node !== 'object' || node === null) return false
  if (Array.isArray(node)) return node.some((item) => usesFlag(item, flag))
  const schema = node as Record<string, unknown>
  if (schema[flag] === true) return true
  return Object.entries(schema).some(([key, value]) => key !== 'example' && key !== 'examples' && usesFlag(value, flag))
}

/** Names declared with the flag by the schema or by its allOf parts. */
function flaggedProperties(document: unknown, schema: Record<string, any>, flag: Flag): Set<string> {
  const names = new Set<string>()
  const parts = [
    schema,
    ...(Array.isArray(schema.allOf) ? schema.allOf.map((part: unknown) => derefSchema(document, part)) : []),
  ]
  for (const part of parts) {
    if (!part || typeof part.properties !== 'object' || part.properties === null) continue
    for (const [name, property] of Object.entries(part.properties))
      if (isFlagged(document, property, flag)) names.add(name)
  }
  return names
}

function isFlagged(document: unknown, property: any, flag: Flag): boolean {
  // OpenAPI 3.1 allows `{ $ref, readOnly: true }`; 3.0 puts the flag on the target.
  return property?.[flag] === true || derefSchema(document, property)?.[flag] === true
}

/** From the schema's `required` and from those of its inline allOf parts (`$ref`'d parts are shared and stay as they are). */
function dropRequired(original: Record<string, any>, schema: Record<string, any>, names: Set<string>): void {
  if (names.size === 0) return
  const inlineParts = Array.isArray(original.allOf)
    ? schema.allOf.filter((_: unknown, i: number) => original.allOf[i]?.$ref === undefined)
    : []
  for (const target of [schema, ...inlineParts]) {
    if (Array.isArray(target?.required)) target.required = target.required.filter((name: string) => !names.has(name))
  }
}

/** Visits every object of the description that could be a schema, together with the same node of each copy. */
function walkSchemas(node: unknown, copies: any[], visit: (node: Record<string, any>, copies: any[]) => void): void {
  if (typeof node !== 'object' || node === null) return
  if (Array.isArray(node))
    return node.forEach((item, i) =>
      walkSchemas(
        item,
        copies.map((c) => c?.[i]),
        visit,
      ),
    )
  const schema = node as Record<string, any>
  if (schema.properties || schema.allOf) visit(schema, copies)
  for (const [key, value] of Object.entries(schema)) {
    // Examples are data, not schemas.
    if (key !== 'example' && key !== 'examples')
      walkSchemas(
        value,
        copies.map((c) => c?.[key]),
        visit,
      )
  }
}
