import { MockError, errors } from '../errors/index.js'
import { chooseByConditions, unmetConditions } from './choose-by-conditions.js'
import type { Alternative, Choice, Endpoint, Router, SegmentNode } from './create-router.js'
import { nearPaths } from './near-paths.js'

export interface RouteMatch<T> {
  operation: T
  /** Path parameters, still percent-encoded as they came. */
  params: Record<string, string>
}

/** What the router reads of a request to check the conditions of a path key; `RequestData` has both. */
export interface RouteRequest {
  /** By lower-case name. */
  header(name: string): string | undefined
  query(): URLSearchParams
}

/**
 * Asked only where several templates match one path (`/a/{FileName}`, `/a/{AttachmentID}`): does
 * this operation take the path parameters found for it? The router itself knows no schemas.
 */
export type AcceptsMatch<T, R> = (operation: T, params: Record<string, string>, request: R) => boolean

/** The parameters of a literal path: one shared empty object. */
export const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>

/**
 * (method, path) → operation. Literal paths win over templated ones, and at each segment a
 * literal wins over a pattern, which wins over a bare parameter (`/plants/mine` before
 * `/plants/{id}`), as OpenAPI asks. A method the best path lacks may be declared by a less
 * specific one (`DELETE /plants/{id}` serves `DELETE /plants/mine` when `/plants/mine` has only GET).
 * Path keys with a query or fragment part are served by their conditions, checked on `request`;
 * without a request (a CORS preflight) any candidate does. Where several templates match,
 * `accepts` may pick among them. Only when the path as sent matches nothing is a server prefix
 * (`/api/v3/pets` → `/pets`) taken off and the rest matched again, so a described path that
 * itself starts with the prefix wins, and a request that matches directly pays nothing more.
 */
export function matchOperation<T, R extends RouteRequest>(
  router: Router<T>,
  method: string,
  path: string,
  request?: R,
  accepts?: AcceptsMatch<T, R>,
): RouteMatch<T> {
  const direct = findOperation(router, method, path, path, request, accepts)
  if (direct !== undefined && !(direct instanceof MockError)) return direct
  let miss = direct
  for (const prefix of router.prefixes) {
    if (!path.startsWith(prefix) || (path.length > prefix.length && path[prefix.length] !== '/')) continue
    const found = findOperation(router, method, path.slice(prefix.length) || '/', path, request, accepts)
    if (found !== undefined && !(found instanceof MockError)) return found
    // A path that exists under the prefix explains the miss better (405, conditions) than the root's plain 404.
    miss ??= found
  }
  // A literal segment a client percent-encodes (`/test path > with | unsafe`, #30): asked only after a miss.
  const decoded = miss === undefined ? decodedPath(path) : undefined
  if (decoded !== undefined) {
    const found = findOperation(router, method, decoded, path, request, accepts)
    if (found instanceof MockError) miss = found
    else if (found !== undefined && Object.keys(found.params).length === 0) return found
  }
  throw miss ?? errors.notFound(method, path, router.prefixes, nearPaths(router, path), router.paths.length)
}

/**
 * (method, path) → the match; else the error that explains the miss (405, conditions not met),
 * naming the path as `shown`; else, where no path matched at all, `undefined`.
 */
function findOperation<T, R extends RouteRequest>(
  router: Router<T>,
  method: string,
  path: string,
  shown: string,
  request?: R,
  accepts?: AcceptsMatch<T, R>,
): RouteMatch<T> | MockError | undefined {
  const endpoint = router.literal.get(path)
  // Only a path key with a query part can give a literal path parameters (`/alerts?lat={lat}`).
  const carried = endpoint?.guarded && {}
  const direct = endpoint && operationAt(endpoint, method, request, carried || undefined)
  if (direct !== undefined) return { operation: direct, params: carried || NO_PARAMS }
  const search: Search<T, R> = {
    method,
    request,
    accepts: request && accepts,
    params: {},
    allowed: undefined,
    unmet: undefined,
  }
  if (endpoint) noteMiss(endpoint, search)
  const operation = walk(router.tree, path.split('/'), 1, search)
  if (operation !== undefined) return { operation, params: search.params }
  if (search.unmet) return unmetConditions(method, shown, search.unmet)
  if (search.allowed) return errors.methodNotAllowed(method, shown, [...search.allowed])
  return undefined
}

/** One request's way through the tree, and what it saw there to explain a miss. */
interface Search<T, R> {
  method: string
  request: R | undefined
  /** Set only with a request to pass it. */
  accepts: AcceptsMatch<T, R> | undefined
  params: Record<string, string>
  /** Methods declared at paths that matched, for the 405's `Allow`. */
  allowed: Set<string> | undefined
  /** Operations of the method at a matching path whose conditions the request did not meet, for the 404. */
  unmet: Choice<T> | undefined
}

function walk<T, R extends RouteRequest>(
  node: SegmentNode<T>,
  segments: string[],
  at: number,
  search: Search<T, R>,
): T | undefined {
  if (at === segments.length) {
    const operation = operationAt(node, search.method, search.request, search.params)
    if (operation === undefined) noteMiss(node, search)
    return operation
  }
  const segment = segments[at]!
  const literal = node.literal.get(segment)
  const viaLiteral = literal && walk(literal, segments, at + 1, search)
  if (viaLiteral !== undefined) return viaLiteral
  const { alternatives } = node
  if (alternatives.length > 1 && search.accepts) return walkCheckedAlternatives(alternatives, segments, at, search)
  const { params } = search
  for (const alternative of alternatives) {
    if (!bind(alternative, segment, params)) continue
    const operation = walk(alternative.node, segments, at + 1, search)
    if (operation !== undefined) return operation
    for (const name of alternative.names) delete params[name]
  }
  return undefined
}

/**
 * Where several templates can take a segment (`{FileName}` and `{AttachmentID}` after
 * `/Accounts/{AccountID}/Attachments/`), the first whose operation accepts its path parameters
 * wins: a file name is not sent to the operation that wants a uuid. If none accepts, the first
 * match, as without the check: its validation then says what is wrong.
 */
function walkCheckedAlternatives<T, R extends RouteRequest>(
  alternatives: Array<Alternative<T>>,
  segments: string[],
  at: number,
  search: Search<T, R>,
): T | undefined {
  const { params } = search
  const before = { ...params }
  let first: RouteMatch<T> | undefined
  for (const alternative of alternatives) {
    if (!bind(alternative, segments[at]!, params)) continue
    const operation = walk(alternative.node, segments, at + 1, search)
    if (operation !== undefined) {
      if (search.accepts!(operation, params, search.request!)) return operation
      first ??= { operation, params: { ...params } }
    }
    resetParams(params, before)
  }
  if (first) resetParams(params, first.params)
  return first?.operation
}

/** Binds the segment to the alternative's parameter names, if it can take the segment. */
function bind<T>(alternative: Alternative<T>, segment: string, params: Record<string, string>): boolean {
  if (alternative.regex === undefined) {
    if (segment === '') return false
    params[alternative.names[0]!] = segment
    return true
  }
  const found = alternative.regex.exec(segment)
  if (!found) return false
  alternative.names.forEach((name, i) => (params[name] = found[i + 1]!))
  return true
}

function resetParams(params: Record<string, string>, to: Record<string, string>): void {
  for (const name of Object.keys(params)) delete params[name]
  Object.assign(params, to)
}

/** The operation an endpoint has for the method (HEAD served by GET), conditions checked when there is a request. */
function operationAt<T>(
  endpoint: Endpoint<T>,
  method: string,
  request: RouteRequest | undefined,
  params: Record<string, string> | undefined,
): T | undefined {
  const { byMethod, guarded } = endpoint
  const plain = byMethod && (byMethod.get(method) ?? headAsGet(byMethod, method))
  if (guarded === undefined) return plain
  const choice = guarded.get(method) ?? headAsGet(guarded, method)
  if (choice === undefined) return plain
  if (request === undefined) return plain ?? choice.candidates[0]!.operation
  return chooseByConditions(choice, request, params ?? {}) ?? plain
}

/** Why an endpoint of a matching path did not serve the request: the methods it declares, and conditions not met. */
function noteMiss<T, R>(endpoint: Endpoint<T>, search: Search<T, R>): void {
  const allowed = (search.allowed ??= new Set())
  endpoint.byMethod?.forEach((_, declared) => allowed.add(declared))
  if (endpoint.guarded === undefined) return
  endpoint.guarded.forEach((_, declared) => allowed.add(declared))
  search.unmet ??= endpoint.guarded.get(search.method) ?? headAsGet(endpoint.guarded, search.method)
}

/** HEAD is answered by the GET operation where the description declares no HEAD of its own; `Allow` still lists only declared methods. */
function headAsGet<V>(byMethod: Map<string, V>, method: string): V | undefined {
  return method === 'HEAD' ? byMethod.get('GET') : undefined
}

/**
 * The path with each percent-encoded segment decoded, to match a literal path declared with
 * characters a client must encode; a segment that decodes to a `/` or does not decode stays as sent.
 * `undefined` when nothing changes.
 */
function decodedPath(path: string): string | undefined {
  if (!path.includes('%')) return undefined
  let changed = false
  const decoded = path.split('/').map((segment) => {
    if (!segment.includes('%')) return segment
    try {
      const text = decodeURIComponent(segment)
      if (text.includes('/')) return segment
      changed = true
      return text
    } catch {
      return segment
    }
  })
  return changed ? decoded.join('/') : undefined
}
