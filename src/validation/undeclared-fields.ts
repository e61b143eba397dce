import { flattenSchema } from '../openapi/flatten-schema.js'

/**
 * Paths of object fields that the schema does not declare. A response must carry only what its
 * schema names (the Plant Store stresses that Plant has no `id`), even where the schema does not say
 * `additionalProperties: false`. An explicit `additionalProperties` or `patternProperties` allows more.
 */
export function findUndeclaredFields(document: unknown, schema: unknown, value: unknown, path = ''): string[] {
  if (Array.isArray(value)) {
    const items = collect(document, schema, 'items')[0]
    return items === undefined
      ? []
      : value.flatMap((item, i) => findUndeclaredFields(document, items, item, `${path}[${i}]`))
  }
  if (value === null || typeof value !== 'object') return []
  const parts = flattenSchema(document, schema)
  // A free-form object (no `properties` anywhere) or an explicit allowance takes any field.
  if (!parts.some((s) => s.properties)) return []
  if (
    parts.some((s) => (s.additionalProperties !== undefined && s.additionalProperties !== false) || s.patternProperties)
  )
    return []
  const found: string[] = []
  for (const [key, child] of Object.entries(value)) {
    const declared = parts.filter((s) => s.properties && Object.hasOwn(s.properties, key)).map((s) => s.properties[key])
    if (declared.length === 0) found.push(`${path}.${key}`)
    else found.push(...findUndeclaredFields(document, declared[0], child, `${path}.${key}`))
  }
  return found
}

function collect(document: unknown, schema: unknown, keyword: string): unknown[] {
  return flattenSchema(document, schema)
    .filter((s) => s[keyword] !== undefined)
    .map((s) => s[keyword])
}
