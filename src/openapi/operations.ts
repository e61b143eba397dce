import { startupErrors } from '../errors.js'
import { flattenSchema } from './flatten-schema.js'
import type { SpecDocument } from './load-spec.js'
import { type Located, derefSchema, pointerOf, resolveRef } from './resolve-ref.js'

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

export type SecurityRequirement = Record<string, string[]>

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie'
export type ParameterStyle = 'form' | 'spaceDelimited' | 'pipeDelimited' | 'deepObject' | 'simple' | 'label' | 'matrix'
/** What the parameter's schema says its value is, which decides how the text is split. */
export type ParameterShape = 'primitive' | 'array' | 'object'

export interface ParameterDescription {
  name: string
  in: ParameterLocation
  required: boolean
  schemaPointer?: string
  /** As declared, or the default of its location (form for query and cookie, simple otherwise). */
  style: ParameterStyle
  /** As declared, or the default of its style (true for form, false otherwise). */
  explode: boolean
  shape: ParameterShape
  /** The declared property names of an object parameter (exploded form style sends each as its own key). */
  properties: string[]
  /** An object parameter that takes properties it does not declare (`additionalProperties` not false). */
  openObject: boolean
  /** Query only: `?name=` is accepted (and not validated) only when this is set. */
  allowEmptyValue: boolean
  allowReserved: boolean
}

export interface MediaTypeDescription {
  mediaType: string
  schemaPointer?: string
  /** Named examples in declaration order; a lone `example` is named `default`. */
  examples: Array<{ name: string; value: unknown }>
}

/** A response header as declared, `$ref` followed. */
export interface HeaderDescription {
  name: string
  required: boolean
  /** The header's `schema`, or the schema of the one media type of its `content`. */
  schemaPointer?: string
  /** `example`, else the value of the first of `examples`, of the header itself (or of its `content`'s media type). */
  example?: unknown
  /** Where `schema` is the header's own: how its value is written, as a header parameter's (`simple` is the only style a header has). */
  explode: boolean
  /** What the schema says the value is: decides how the value is written, and read back to be checked. */
  shape: ParameterShape
  /** A header declared with `content` rather than `schema` (OpenAPI 3): its value is a document of this media type. */
  mediaType?: string
}

export interface ResponseDescription {
  /** As declared: `200`, `2XX` or `default`. */
  code: string
  content: MediaTypeDescription[]
  headers: HeaderDescription[]
}

/** One operation as the description declares it, with `$ref`s followed and schemas left as pointers. */
export interface OperationDescription {
  /** The operationId, or `METHOD /path` where there is none. */
  id: string
  /** Folder name of its fixtures: the operationId, or e.g. `post_plants_{id}`. */
  fixtureKey: string
  method: string
  path: string
  parameters: ParameterDescription[]
  requestBody?: { required: boolean; content: MediaTypeDescription[] }
  responses: ResponseDescription[]
  security: SecurityRequirement[]
  /** Where the security requirements are declared, as a JSON pointer: the operation's own, else the document's. */
  securityPointer: string
}

/** Lists every operation of the description, in declaration order. */
export function describeOperations({ document }: SpecDocument): OperationDescription[] {
  const operations: OperationDescription[] = []
  const globalSecurity: SecurityRequirement[] = document.security ?? []
  for (const [path, rawPathItem] of Object.entries(document.paths ?? {})) {
    // The Paths Object may carry extensions (`x-codegen-contextRoot`, apicurio's registry): not paths.
    if (path.startsWith('x-')) continue
    if (!path.startsWith('/')) throw startupErrors.pathWithoutSlash(path)
    const pathItem = resolveRef(document, { node: rawPathItem, pointer: pointerOf('paths', path) })
    for (const method of HTTP_METHODS) {
      const operation = pathItem.node?.[method]
      if (!operation) continue
      const at = { node: operation, pointer: `${pathItem.pointer}${pointerOf(method)}` }
      operations.push(describeOperation(document, path, method, at, pathItem, globalSecurity))
    }
  }
  return operations
}

function describeOperation(
  document: any,
  path: string,
  method: string,
  { node: operation, pointer }: Located,
  pathItem: Located,
  globalSecurity: SecurityRequirement[],
): OperationDescription {
  const operationId = typeof operation.operationId === 'string' ? operation.operationId : undefined
  return {
    id: operationId ?? `${method.toUpperCase()} ${path}`,
    fixtureKey: operationId ?? `${method}${path.replace(/\//g, '_')}`,
    method: method.toUpperCase(),
    path,
    parameters: describeParameters(document, pathItem, { node: operation, pointer }),
    requestBody: operation.requestBody
      ? describeRequestBody(document, { node: operation.requestBody, pointer: `${pointer}/requestBody` })
      : undefined,
    responses: Object.entries(operation.responses ?? {}).map(([code, response]) =>
      describeResponse(document, code, { node: response, pointer: `${pointer}${pointerOf('responses', code)}` }),
    ),
    security: operation.security ?? globalSecurity,
    securityPointer: operation.security ? `#${pointer}/security` : '#/security',
  }
}

/** Operation parameters override path-level ones with the same name and location. */
function describeParameters(document: any, pathItem: Located, operation: Located): ParameterDescription[] {
  const byKey = new Map<string, ParameterDescription>()
  for (const owner of [pathItem, operation]) {
    const list: unknown[] = owner.node.parameters ?? []
    list.forEach((raw, index) => {
      const { node, pointer } = resolveRef(document, { node: raw, pointer: `${owner.pointer}/parameters/${index}` })
      if (!['path', 'query', 'header', 'cookie'].includes(node?.in)) {
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
  header: ['simple'],
  cookie: ['form'],
}

/** Everything about how a parameter is written is settled here, once, so the request path only reads it. */
function describeParameter(document: any, node: any, pointer: string): ParameterDescription {
  const location = node.in as ParameterLocation
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

/** array, object or primitive, looking through `$ref`s, type lists (`[array, "null"]`) and allOf/anyOf/oneOf. */
function shapeOf(document: any, schema: any): ParameterShape {
  for (const part of flattenSchema(document, schema)) {
    const types = Array.isArray(part.type) ? part.type : [part.type]
    if (types.includes('array') || part.items !== undefined) return 'array'
    if (types.includes('object') || part.properties !== undefined || part.additionalProperties !== undefined)
      return 'object'
  }
  return 'primitive'
}

function describeRequestBody(document: any, located: Located) {
  const { node, pointer } = resolveRef(document, located)
  return { required: node.required === true, content: describeContent(document, node.content, `${pointer}/content`) }
}

function describeResponse(document: any, code: string, located: Located): ResponseDescription {
  if (!/^([1-5](\d\d|XX)|default)$/.test(code)) {
    throw startupErrors.responseCode(code, located.pointer)
  }
  const { node, pointer } = resolveRef(document, located)
  return {
    code,
    content: describeContent(document, node?.content, `${pointer}/content`),
    headers: describeHeaders(document, node?.headers, `${pointer}/headers`),
  }
}

function describeHeaders(
  document: any,
  headers: Record<string, any> | undefined,
  pointer: string,
): HeaderDescription[] {
  if (typeof headers !== 'object' || headers === null) return []
  return Object.entries(headers).map(([name, raw]) => {
    const { node, pointer: at } = resolveRef(document, { node: raw, pointer: `${pointer}${pointerOf(name)}` })
    const declared = { name, required: node?.required === true, explode: node?.explode === true }
    const [media] = node?.schema === undefined ? describeContent(document, node?.content, `${at}/content`) : []
    if (media)
      return {
        ...declared,
        schemaPointer: media.schemaPointer,
        example: media.examples[0]?.value,
        shape: 'primitive',
        mediaType: media.mediaType,
      }
    const schema = node?.schema === undefined ? undefined : derefSchema(document, node.schema)
    return {
      ...declared,
      schemaPointer: node?.schema ? `${at}/schema` : undefined,
      example: exampleOfHeader(document, node, at),
      shape: shapeOf(document, schema),
    }
  })
}

/** A header's `example`, else the value of the first of its `examples` (Example Objects, `$ref`s followed). */
function exampleOfHeader(document: any, node: any, pointer: string): unknown {
  if (node?.example !== undefined) return node.example
  const [name, named] =
    node?.examples && typeof node.examples === 'object' ? (Object.entries(node.examples)[0] ?? []) : []
  return named === undefined
    ? undefined
    : resolveRef(document, { node: named, pointer: `${pointer}${pointerOf('examples', name!)}` }).node?.value
}

function describeContent(
  document: any,
  content: Record<string, any> | undefined,
  pointer: string,
): MediaTypeDescription[] {
  return Object.entries(content ?? {}).map(([mediaType, media]) => {
    const at = `${pointer}${pointerOf(mediaType)}`
    return {
      // An empty key (spoonacular.com's request bodies) names no type: read as any.
      mediaType: mediaType.trim() === '' ? '*/*' : mediaType,
      schemaPointer: media?.schema ? `${at}/schema` : undefined,
      examples: describeExamples(document, media ?? {}, at),
    }
  })
}

function describeExamples(document: any, media: Record<string, any>, pointer: string) {
  const examples: Array<{ name: string; value: unknown }> = []
  if (media.example !== undefined) examples.push({ name: 'default', value: media.example })
  for (const [name, raw] of Object.entries(media.examples ?? {})) {
    const { node } = resolveRef(document, { node: raw, pointer: `${pointer}${pointerOf('examples', name)}` })
    // externalValue would mean a download; only inline values are served.
    if (node && 'value' in node) examples.push({ name, value: node.value })
  }
  return examples
}
