import { derefSchema } from './resolve-ref.js'

/** Deeper than this, `allOf`/`anyOf`/`oneOf` are not followed: far beyond real descriptions. */
const MAX_FLATTEN_DEPTH = 32

/**
 * The schema and every subschema it combines with (`allOf`, `anyOf`, `oneOf`, in that order, depth
 * first), `$ref`s followed. A subschema reached twice (a diamond, a recursive `allOf`) is listed
 * once, so a cycle ends and a schema whose branches meet again costs no more than its parts.
 */
export function flattenSchema(document: unknown, schema: unknown): any[] {
  const parts: any[] = []
  const seen = new Set<object>()
  const collect = (raw: unknown, depth: number) => {
    const node = derefSchema(document, raw)
    if (!node || typeof node !== 'object' || depth > MAX_FLATTEN_DEPTH || seen.has(node)) return
    seen.add(node)
    parts.push(node)
    for (const keyword of ['allOf', 'anyOf', 'oneOf'])
      if (Array.isArray(node[keyword])) for (const sub of node[keyword]) collect(sub, depth + 1)
  }
  collect(schema, 0)
  return parts
}
