import { derefSchema, pointerTokens } from './resolve-ref.js'
import { walkSchemas } from './walk.js'

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
  let readOnlyUsed = false
  let writeOnlyUsed = false
  walkSchemas(document, (schema) => {
    readOnlyUsed ||= schema.readOnly === true
    writeOnlyUsed ||= schema.writeOnly === true
  })
  if (!readOnlyUsed && !writeOnlyUsed) return { request: document, response: document }
  const request = readOnlyUsed ? structuredClone(document) : document
  const response = writeOnlyUsed ? structuredClone(document) : document
  // Decisions are read from the untouched description, so rewriting one schema never hides a flag from another.
  walkSchemas(document, (original, pointer) => {
    if (!original.properties && !original.allOf) return
    const inRequest = nodeAt(request, pointer)
    const inResponse = nodeAt(response, pointer)
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

/** The node at a pointer the walker gave (its tokens are keys as written: no percent-decoding, unlike a `$ref`). */
function nodeAt(root: unknown, pointer: string): any {
  let node: any = root
  for (const token of pointerTokens(pointer)) node = node?.[token]
  return node
}
