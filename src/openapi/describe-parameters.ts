import { startupErrors } from '../errors/index.js'
import { describeContent } from './describe-content.js'
import { flattenSchema } from './flatten-schema.js'
import type { ParameterDescription, ParameterLocation, ParameterShape, ParameterStyle } from './operations.js'
import { type Located, derefSchema, resolveRef } from './resolve-ref.js'

/** Operation parameters override path-level ones with the same name and location. */
export function describeParameters(document: any, pathItem: Located, operation: Located): ParameterDescription[] {
  const byKey = new Map<string, ParameterDescription>()
  for (const owner of [pathItem, operation]) {
    const list: unknown[] = owner.node.parameters ?? []
    list.forEach((raw, index) => {
      const { node, pointer } = resolveRef(document, { node: raw, pointer: `${owner.pointer}/parameters/${index}` })
      if (!['path', 'query', 'querystring', 'header', 'cookie'].includes(node?.in)) {
        throw startupErrors.parameterWithoutNameOrIn(pointer)
      }
      // A query, header or cookie parameter without a name (brainbi.net: `name: ""`) names nothing a request could send.
      if (!node.name && node.in !== 'path') return
      if (!node.name) throw startupErrors.pathParameterWithoutName(pointer)
      // "If in is header and the name is Accept, Content-Type or Authorization, the parameter definition SHALL be ignored."
      if (node.in === 'header' && IGNORED_HEADERS.has(String(node.name).toLowerCase())) return
      byKey.set(`${node.in}:${node.name}`, describeParameter(document, node, pointer))
    })
  }
  return [...byKey.values()]
}

/** Header parameters OpenAPI says to ignore: content negotiation and security have their own fields. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization'])

const STYLES: Record<ParameterLocation, readonly ParameterStyle[]> = {
  path: ['simple', 'label', 'matrix'],
  query: ['form', 'spaceDelimited', 'pipeDelimited', 'deepObject'],
  // A querystring has no style: its `content` media type says how the query string is written.
  querystring: ['form'],
  header: ['simple'],
  cookie: ['form'],
}

/** Everything about how a parameter is written is settled here, once, so the request path only reads it. */
function describeParameter(document: any, node: any, pointer: string): ParameterDescription {
  const location = node.in as ParameterLocation
  if (location === 'querystring') return describeQuerystring(document, node, pointer)
  const style: ParameterStyle = node.style ?? STYLES[location][0]
  if (!STYLES[location].includes(style)) {
    throw startupErrors.parameterStyle(pointer, style, location, STYLES[location])
  }
  const schema = node.schema === undefined ? undefined : derefSchema(document, node.schema)
  const shape = shapeOf(document, schema)
  const parts = shape === 'object' ? flattenSchema(document, schema) : []
  return {
    name: node.name,
    in: location,
    required: location === 'path' || node.required === true,
    schemaPointer: node.schema ? `${pointer}/schema` : undefined,
    style,
    explode: typeof node.explode === 'boolean' ? node.explode : style === 'form',
    shape,
    properties: [...new Set(parts.flatMap((s) => Object.keys(s.properties ?? {})))],
    openObject:
      shape === 'object' && !parts.some((s) => s.additionalProperties === false || s.unevaluatedProperties === false),
    allowEmptyValue: location === 'query' && node.allowEmptyValue === true,
    allowReserved: location === 'query' && node.allowReserved === true,
  }
}

/**
 * OpenAPI 3.2's `in: querystring` (#31 §1): the whole query string is one value, described by the one
 * media type of its `content` (a `$ref`'d Media Type Object followed). Without `content` (a `schema`
 * of its own) it is read as form-encoded, which is what a query string most often is.
 */
function describeQuerystring(document: any, node: any, pointer: string): ParameterDescription {
  const [media] = describeContent(document, node.content, `${pointer}/content`)
  return {
    name: node.name,
    in: 'querystring',
    required: node.required === true,
    schemaPointer: media ? media.schemaPointer : node.schema ? `${pointer}/schema` : undefined,
    style: 'form',
    explode: true,
    shape: 'object',
    properties: [],
    openObject: true,
    allowEmptyValue: false,
    allowReserved: false,
    mediaType: media?.mediaType ?? 'application/x-www-form-urlencoded',
  }
}

/** array, object or primitive, looking through `$ref`s, type lists (`[array, "null"]`) and allOf/anyOf/oneOf. */
export function shapeOf(document: any, schema: any): ParameterShape {
  for (const part of flattenSchema(document, schema)) {
    const types = Array.isArray(part.type) ? part.type : [part.type]
    if (types.includes('array') || part.items !== undefined) return 'array'
    if (types.includes('object') || part.properties !== undefined || part.additionalProperties !== undefined)
      return 'object'
  }
  return 'primitive'
}
