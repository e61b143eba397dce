import { startupErrors } from '../errors/index.js'
import { describeRequestBody } from './describe-content.js'
import { describeParameters } from './describe-parameters.js'
import { describeResponse } from './describe-responses.js'
import type { SpecDocument } from './load-spec.js'
import { type Located, pointerOf, resolveRef } from './resolve-ref.js'
import { type EventDescription, describeCallbacks } from './describe-events.js'

/** The Path Item's fixed fields for methods: OpenAPI 3.2 adds `query` (the QUERY method, a safe request with a body). */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query'] as const

export type SecurityRequirement = Record<string, string[]>

/** `querystring` (OpenAPI 3.2): the whole query string as one value, read as its `content` media type says. */
export type ParameterLocation = 'path' | 'query' | 'querystring' | 'header' | 'cookie'
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
  /**
   * `querystring` only: the media type of its `content` that says how the query string is written
   * (`application/x-www-form-urlencoded`, the default, each key a property; `application/json`, the
   * percent-encoded JSON text).
   */
  mediaType?: string
}

export interface MediaTypeDescription {
  mediaType: string
  schemaPointer?: string
  /** OpenAPI 3.2's `itemSchema`: each item of a sequential media type (`text/event-stream`, JSON Lines). */
  itemSchemaPointer?: string
  /** Named examples in declaration order; a lone `example` is named `default`. */
  examples: Array<{ name: string; value: unknown }>
  /**
   * OpenAPI 3.2's multipart `prefixEncoding`: how the parts are written, by position (the first entry
   * the first part). Only where declared.
   */
  prefixEncoding?: PartEncoding[]
  /** OpenAPI 3.2's multipart `itemEncoding`: how every part after those of `prefixEncoding` is written. Only where declared. */
  itemEncoding?: PartEncoding
}

/**
 * One Encoding Object of `prefixEncoding` or `itemEncoding`, as the mock reads it. Without a
 * `contentType`, the part's schema decides, as OpenAPI's defaults say (`application/json` for an
 * object or array, `application/octet-stream` for binary, `text/plain` for the rest).
 */
export interface PartEncoding {
  /** The part's Content-Type as declared: one media type, or a comma-separated list of those allowed. */
  contentType?: string
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
  /** The callbacks the operation declares (`describeCallbacks`); absent when none. */
  callbacks?: EventDescription[]
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
    for (const { method, node, pointer } of operationsOf(pathItem)) {
      const at = { node, pointer }
      const described = describeOperation(document, path, method, at, pathItem, globalSecurity)
      const callbacks = describeCallbacks(document, at)
      if (callbacks.length) described.callbacks = callbacks
      operations.push(described)
    }
  }
  return operations
}

/** An operationId that several operations share, with theirs in description order. */
export interface SharedOperationId {
  id: string
  operations: Array<{ method: string; path: string; fixtureKey: string }>
}

/**
 * Tells apart operations that share an operationId (Prism's own petstore example has five such):
 * the first keeps the id, the others are named by method and path (`POST /no_auth/pets`), as an
 * operation without an id is; and every one's fixtures folder is its method and path
 * (`post_no_auth_pets`), since a folder named by the id could mean any of them. Returns what was
 * shared, for one start-up warning.
 */
export function separateSharedIds(operations: OperationDescription[]): SharedOperationId[] {
  const byId = new Map<string, OperationDescription[]>()
  for (const operation of operations) {
    const same = byId.get(operation.id)
    if (same) same.push(operation)
    else byId.set(operation.id, [operation])
  }
  const shared: SharedOperationId[] = []
  for (const [id, same] of byId) {
    if (same.length < 2) continue
    same.forEach((operation, index) => {
      operation.fixtureKey = methodPathKey(operation.method, operation.path)
      if (index > 0) operation.id = `${operation.method} ${operation.path}`
    })
    shared.push({ id, operations: same.map(({ method, path, fixtureKey }) => ({ method, path, fixtureKey })) })
  }
  return shared
}

/** The fixtures folder of an operation named by method and path: `post_plants_{id}` for POST /plants/{id}. */
function methodPathKey(method: string, path: string): string {
  return `${method.toLowerCase()}${path.replace(/\//g, '_')}`
}

/**
 * A path item's operations: its method fields, then OpenAPI 3.2's `additionalOperations` (any other
 * method, keyed as it is sent: `LINK`, `PURGE`), in declaration order.
 */
export function operationsOf(pathItem: Located): Array<{ method: string; node: any; pointer: string }> {
  const found: Array<{ method: string; node: any; pointer: string }> = []
  const item = pathItem.node
  if (typeof item !== 'object' || item === null) return found
  for (const method of HTTP_METHODS)
    if (item[method]) found.push({ method, node: item[method], pointer: `${pathItem.pointer}${pointerOf(method)}` })
  const additional = item.additionalOperations
  if (typeof additional === 'object' && additional !== null)
    for (const [method, node] of Object.entries(additional))
      if (
        typeof node === 'object' &&
        node !== null &&
        !(HTTP_METHODS as readonly string[]).includes(method.toLowerCase())
      )
        found.push({ method, node, pointer: `${pathItem.pointer}${pointerOf('additionalOperations', method)}` })
  return found
}

export function describeOperation(
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
    fixtureKey: operationId ?? methodPathKey(method, path),
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
