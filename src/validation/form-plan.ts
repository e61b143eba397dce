import { derefSchema, nodeAt } from '../openapi/resolve-ref.js'
import { FORM_DATA_EMPTY_VALUES } from '../openapi/convert-swagger2.js'
import { essenceOf, isJsonType } from '../internal/media-type.js'

/**
 * What start-up learns from a form or multipart media type object about reading its fields: which
 * names are declared, which hold nested values written with brackets (`scope[type]`, `expand[0]`),
 * and which carry JSON text. Read once from the schema and the `encoding` object, so that a request
 * only looks names up.
 */
export interface FormPlan {
  /** Top-level property names the body schema declares; a declared `a[b]` is a name, not a path. */
  declared: ReadonlySet<string>
  /** Properties whose bracketed keys are decoded into objects and arrays. */
  nested: ReadonlySet<string>
  /** Properties that hold objects, not arrays: `metadata[0]=x` is a key there, not an index. */
  objects: ReadonlySet<string>
  /** Properties whose values are JSON text, parsed before validation. */
  json: ReadonlySet<string>
  /** Array properties among `json`: one JSON object sent alone is the array's one item. */
  jsonArrays: ReadonlySet<string>
  /**
   * Form fields (`application/x-www-form-urlencoded`) whose encoding object does not set
   * `allowReserved: true`: a reserved character sent as it is, not percent-encoded, is refused.
   * Fields without an encoding object are not judged, as Prism judges them.
   */
  reservedRefused: ReadonlySet<string>
  /** Swagger 2.0 `formData` parameters without `allowEmptyValue: true`: an empty value is refused (`FORM_DATA_EMPTY_VALUES`). */
  emptyRefused: ReadonlySet<string>
}

/** Possible JSON types of a schema's instances, as far as the schema says. */
type Shape = Set<'object' | 'array' | 'other'>

/** Schemas looked at through `allOf`/`anyOf`/`oneOf` for one body or property: a bound on start-up work, far above real ones. */
const MAX_SCHEMAS_VISITED = 200

/**
 * The plan of the media type whose schema lives at `schemaPointer` (its `encoding` sits beside it).
 * `undefined` when nothing in it changes how fields are read.
 */
export function planForm(document: unknown, schemaPointer: string, multipart: boolean): FormPlan | undefined {
  const schema = derefSchema(document, nodeAt(document, schemaPointer))
  const mediaObject = nodeAt(document, schemaPointer.slice(0, -'/schema'.length))
  const encoding = mediaObject?.encoding
  const properties = propertiesOf(document, schema)
  if (properties.size === 0) return undefined
  const plan = {
    declared: new Set(properties.keys()),
    nested: new Set<string>(),
    objects: new Set<string>(),
    json: new Set<string>(),
    jsonArrays: new Set<string>(),
    reservedRefused: new Set<string>(),
    emptyRefused: new Set<string>(),
  }
  const emptyValues = mediaObject?.[FORM_DATA_EMPTY_VALUES]
  for (const [name, property] of properties) {
    const shape = shapeOf(document, property)
    const style = encodingOf(encoding, name)
    // OpenAPI reads allowReserved for application/x-www-form-urlencoded alone.
    if (!multipart && style !== undefined && (style as { allowReserved?: unknown }).allowReserved !== true)
      plan.reservedRefused.add(name)
    if (typeof emptyValues === 'object' && emptyValues !== null && emptyValues[name] === false)
      plan.emptyRefused.add(name)
    if (shape.has('object') || shape.has('array') || style?.style === 'deepObject') plan.nested.add(name)
    if (shape.has('object') && !shape.has('array')) plan.objects.add(name)
    if (isJsonPart(document, property, shape, style?.contentType, multipart)) {
      plan.json.add(name)
      if (shape.has('array')) plan.jsonArrays.add(name)
    }
  }
  return plan
}

/** The encoding object of one property, if the media type declares one. */
function encodingOf(encoding: unknown, name: string): { style?: unknown; contentType?: unknown } | undefined {
  if (typeof encoding !== 'object' || encoding === null || !Object.hasOwn(encoding, name)) return undefined
  const entry = (encoding as Record<string, unknown>)[name]
  return typeof entry === 'object' && entry !== null ? entry : undefined
}

/**
 * Whether a field's text is JSON. A declared `contentType` decides (every type it lists a JSON
 * one); without it, OpenAPI makes application/json the default of an object part of a multipart
 * body, and of each item of an array of objects. A form field is JSON only when declared so.
 */
function isJsonPart(
  document: unknown,
  property: unknown,
  shape: Shape,
  contentType: unknown,
  multipart: boolean,
): boolean {
  if (typeof contentType === 'string') return contentType.split(',').every((type) => isJsonType(essenceOf(type)))
  if (!multipart) return false
  if (isOnly(shape, 'object')) return true
  const items = derefSchema(document, (derefSchema(document, property) as Record<string, unknown> | undefined)?.items)
  return isOnly(shape, 'array') && isOnly(shapeOf(document, items), 'object')
}

function isOnly(shape: Shape, kind: 'object' | 'array'): boolean {
  return shape.size === 1 && shape.has(kind)
}

/** The declared properties of a schema, those of its `allOf`/`anyOf`/`oneOf` branches included; the first declaration wins. */
function propertiesOf(
  document: unknown,
  schema: unknown,
  found = new Map<string, unknown>(),
  seen = new Set<unknown>(),
): Map<string, unknown> {
  if (typeof schema !== 'object' || schema === null || seen.has(schema) || seen.size > MAX_SCHEMAS_VISITED) return found
  seen.add(schema)
  const { properties } = schema as Record<string, unknown>
  if (typeof properties === 'object' && properties !== null) {
    for (const [name, property] of Object.entries(properties)) if (!found.has(name)) found.set(name, property)
  }
  for (const branch of branchesOf(schema)) propertiesOf(document, derefSchema(document, branch), found, seen)
  return found
}

/** What a property's values can be: its `type`, else what its keywords imply, else what any of its branches can be. */
function shapeOf(document: unknown, raw: unknown, seen = new Set<unknown>()): Shape {
  const schema = derefSchema(document, raw) as Record<string, unknown> | undefined
  const shape: Shape = new Set()
  if (typeof schema !== 'object' || schema === null) return shape.add('other')
  // A branch already looked at adds nothing new: recursive and diamond-shaped branches are walked once.
  if (seen.has(schema) || seen.size > MAX_SCHEMAS_VISITED) return shape
  seen.add(schema)
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : []
  for (const type of types) shape.add(type === 'object' || type === 'array' ? type : 'other')
  if (types.length === 0) {
    if ('properties' in schema || 'additionalProperties' in schema) shape.add('object')
    if ('items' in schema || 'prefixItems' in schema) shape.add('array')
  }
  const branches = branchesOf(schema)
  for (const branch of branches) for (const kind of shapeOf(document, branch, seen)) shape.add(kind)
  // A schema without type, keywords or branches (`{}`, `enum: ['']`) allows anything, or text.
  if (shape.size === 0) shape.add('other')
  return shape
}

function branchesOf(schema: object): unknown[] {
  const { allOf, anyOf, oneOf } = schema as Record<string, unknown>
  return [allOf, anyOf, oneOf].flatMap((list) => (Array.isArray(list) ? list : []))
}
