import { editDistance } from '../closest-word.js'
import { MockError, errors } from '../errors.js'

export interface Routable {
  method: string
  path: string
  /**
   * What a path parameter's value can be, as a regular expression source, where its schema says
   * (enum, const, integer): it splits a segment that holds several parameters (`{name}{ext}`).
   */
  pathValuePatterns?: Record<string, string>
  /**
   * Where each parameter is declared (`name` → `query`, `header`...): set only for path keys with a
   * query or fragment part, whose names it places (`/#Action=List` is a query parameter in one
   * description, `/#X-Amz-Target=X` a header in another).
   */
  parameterLocations?: Record<string, string>
}

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

/**
 * One requirement written in a path key after `?` or `#`: a query parameter or a header, present
 * (`#tagKeys`) or equal to a value (`#X-Amz-Target=AWSGlue.CreateJob`, `?Action=DescribeInstances`).
 */
interface Condition {
  in: 'query' | 'header'
  /** The query parameter's name, or the header's in lower case, as the request is read. */
  key: string
  value?: string
  /**
   * The path parameter this query parameter carries: `/alerts?lat={lat}` (weatherbit, clicksend)
   * declares `lat` in the path, and the request sends it as `?lat=…`.
   */
  param?: string
  /** For the 404 that names what was expected, in the description's own spelling. */
  label: string
}

/** An operation whose path key carries conditions. */
interface Guarded<T> {
  operation: T
  conditions: Condition[]
}

/**
 * The operations of one path and method whose path keys carry conditions, most conditions first.
 * AWS descriptions put hundreds at `POST /`, each asking one header (or query parameter) to hold
 * its own value: they are also indexed by that value, so a request reads it once.
 */
interface Choice<T> {
  candidates: Array<Guarded<T>>
  byValue?: { in: Condition['in']; key: string; candidates: Map<string, Array<Guarded<T>>> }
}

/** Where a path ends: its operations by method. */
interface Endpoint<T> {
  /** Operations whose path key is a plain path. */
  byMethod?: Map<string, T>
  /** Operations whose path key has a query or fragment part; absent for most descriptions. */
  guarded?: Map<string, Choice<T>>
}

/**
 * How a segment can be taken by a parameter: whole (`{id}`, no regex), or by a pattern mixing
 * text and parameters (`{name}.{ext}`), a regular expression compiled at start-up.
 */
interface Alternative<T> {
  regex?: RegExp
  names: string[]
  node: SegmentNode<T>
}

/** One path segment of the tree: literal children, then parameter alternatives. */
interface SegmentNode<T> extends Endpoint<T> {
  literal: Map<string, SegmentNode<T>>
  /**
   * Patterns first, then whole parameters, each in declaration order. Usually at most one; two
   * templates may name the same position differently (`/a/{id}`, `/a/{key}/b`).
   */
  alternatives: Array<Alternative<T>>
}

/** Operations indexed by path: a map for literal paths, a segment tree for templated ones. */
export interface Router<T> {
  literal: Map<string, Endpoint<T>>
  tree: SegmentNode<T>
  /** Server URL paths (`/api/v3`) the operations are also served under, longest first; tried only on a miss. */
  prefixes: readonly string[]
  /** Every path served, as declared (`/plants/{id}`), once each: a 404 names those near the path sent. */
  paths: readonly string[]
}

/** The parameters of a literal path: one shared empty object. */
export const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>

const NO_CONDITIONS: Condition[] = []

export function createRouter<T extends Routable>(
  operations: readonly T[],
  prefixes: readonly string[] = [],
): Router<T> {
  const literal = new Map<string, Endpoint<T>>()
  const tree = createNode<T>()
  for (const operation of operations) {
    const { route, conditions } = splitPathKey(operation)
    let endpoint: Endpoint<T>
    if (!route.includes('{')) {
      endpoint = literal.get(route) ?? {}
      literal.set(route, endpoint)
    } else {
      endpoint = route
        .split('/')
        .slice(1)
        .reduce((parent, segment) => childFor(parent, segment, operation.pathValuePatterns), tree)
    }
    addOperation(endpoint, operation, conditions)
  }
  return { literal, tree, prefixes, paths: [...new Set(operations.map((o) => splitPathKey(o).route))] }
}

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
  throw miss ?? errors.notFound(method, path, router.prefixes, nearPaths(router, path), router.paths.length)
}

/** Paths shown near a missed one, at most. */
const NEAR_PATHS = 3

/**
 * The declared paths closest to one that matched nothing (`/plant` → `/plants`), by edit distance
 * over those that share its first segment, or all where none does: work done on a miss only.
 */
function nearPaths(router: Router<unknown>, path: string): string[] {
  const stripped = router.prefixes.find((p) => path.startsWith(`${p}/`))
  const sent = stripped ? path.slice(stripped.length) : path
  const first = sent.split('/', 2)[1] ?? ''
  const sameStart = router.paths.filter((p) => p.split('/', 2)[1] === first)
  const candidates = sameStart.length ? sameStart : router.paths
  // A description of thousands of paths is not measured whole for each miss.
  if (candidates.length > 2000) return []
  return candidates
    .map((candidate) => ({ candidate, distance: editDistance(sent, candidate) }))
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, NEAR_PATHS)
    .map((c) => c.candidate)
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

/** The first candidate, most conditions first, whose conditions the request meets; the path parameters it carries go into `params`. */
function chooseByConditions<T>(
  choice: Choice<T>,
  request: RouteRequest,
  params: Record<string, string>,
): T | undefined {
  const { byValue } = choice
  const candidates = byValue
    ? byValue.candidates.get(readCondition(byValue.in, byValue.key, request) ?? '')
    : choice.candidates
  if (candidates === undefined) return undefined
  for (const candidate of candidates) {
    if (!meetsAll(candidate.conditions, request)) continue
    for (const { param, in: location, key } of candidate.conditions) {
      // Path parameters are read percent-encoded, as they come in a path.
      if (param !== undefined) params[param] = encodeURIComponent(readCondition(location, key, request)!)
    }
    return candidate.operation
  }
  return undefined
}

function meetsAll(conditions: Condition[], request: RouteRequest): boolean {
  for (const condition of conditions) {
    const actual = readCondition(condition.in, condition.key, request)
    if (actual === undefined || (condition.value !== undefined && actual !== condition.value)) return false
  }
  return true
}

function readCondition(location: Condition['in'], key: string, request: RouteRequest): string | undefined {
  return location === 'header' ? request.header(key) : (request.query().get(key) ?? undefined)
}

/** Why an endpoint of a matching path did not serve the request: the methods it declares, and conditions not met. */
function noteMiss<T, R>(endpoint: Endpoint<T>, search: Search<T, R>): void {
  const allowed = (search.allowed ??= new Set())
  endpoint.byMethod?.forEach((_, declared) => allowed.add(declared))
  if (endpoint.guarded === undefined) return
  endpoint.guarded.forEach((_, declared) => allowed.add(declared))
  search.unmet ??= endpoint.guarded.get(search.method) ?? headAsGet(endpoint.guarded, search.method)
}

/** 404 naming what the operations of the path and method expect of the request (a few, for AWS's hundreds). */
function unmetConditions<T>(method: string, path: string, choice: Choice<T>): MockError {
  const shown = 5
  const expected = choice.candidates
    .slice(0, shown)
    .map((candidate) => candidate.conditions.map((c) => c.label).join(' and '))
  return errors.unmetConditions(method, path, expected, choice.candidates.length - shown)
}

/** HEAD is answered by the GET operation where the description declares no HEAD of its own; `Allow` still lists only declared methods. */
function headAsGet<V>(byMethod: Map<string, V>, method: string): V | undefined {
  return method === 'HEAD' ? byMethod.get('GET') : undefined
}

function addOperation<T>(endpoint: Endpoint<T>, operation: T & Routable, conditions: Condition[]): void {
  const { method } = operation
  if (conditions.length === 0) {
    endpoint.byMethod ??= new Map()
    if (!endpoint.byMethod.has(method)) endpoint.byMethod.set(method, operation)
    return
  }
  endpoint.guarded ??= new Map()
  const candidates = endpoint.guarded.get(method)?.candidates ?? []
  // After those with as many conditions or more: among equals, the first declared wins.
  const before = candidates.findIndex((other) => other.conditions.length < conditions.length)
  candidates.splice(before === -1 ? candidates.length : before, 0, { operation, conditions })
  endpoint.guarded.set(method, { candidates, byValue: indexByValue(candidates) })
}

/** When every candidate asks one same header or query parameter for a value, the candidates by that value. */
function indexByValue<T>(candidates: Array<Guarded<T>>): Choice<T>['byValue'] {
  if (candidates.length < 2) return undefined
  const shared = candidates[0]!.conditions.find(
    (c) =>
      c.value !== undefined &&
      candidates.every((other) => other.conditions.some((o) => sameKey(o, c) && o.value !== undefined)),
  )
  if (!shared) return undefined
  const byValue = new Map<string, Array<Guarded<T>>>()
  for (const candidate of candidates) {
    const value = candidate.conditions.find((c) => sameKey(c, shared))!.value!
    byValue.set(value, [...(byValue.get(value) ?? []), candidate])
  }
  return { in: shared.in, key: shared.key, candidates: byValue }
}

function sameKey(a: Condition, b: Condition): boolean {
  return a.in === b.in && a.key === b.key
}

/**
 * `/tags/{arn}#tagKeys` → the route `/tags/{arn}` and its conditions. Descriptions converted from
 * AWS's models write in the path key what tells operations of one path apart: after `?`, query
 * parameters (`?acl`, `?Action=DescribeInstances&Version=2016-11-15`); after `#`, the parameters
 * the request must carry, placed where the operation declares them, else a `Name=Value` as a header
 * (AWS's JSON protocol: `#X-Amz-Target=AWSGlue.CreateJob`) and a bare name as a query parameter.
 */
function splitPathKey(operation: Routable): { route: string; conditions: Condition[] } {
  const { path } = operation
  const cut = path.search(/[?#]/)
  if (cut === -1) return { route: path, conditions: NO_CONDITIONS }
  const hash = path.indexOf('#', cut)
  const query = path[cut] === '?' ? path.slice(cut + 1, hash === -1 ? undefined : hash) : ''
  const fragment = hash === -1 ? '' : path.slice(hash + 1)
  const conditions = [
    ...itemsOf(query).map(([name, value]) => conditionOf('query', name, value)),
    ...itemsOf(fragment).map(([name, value]) =>
      conditionOf(fragmentLocation(name, value, operation.parameterLocations), name, value),
    ),
  ]
  return { route: path.slice(0, cut), conditions }
}

/** `a=1&b` → `[['a', '1'], ['b', undefined]]`, percent-decoded. */
function itemsOf(text: string): Array<[string, string | undefined]> {
  return text
    .split('&')
    .filter((item) => item !== '')
    .map((item) => {
      const equals = item.indexOf('=')
      return equals === -1 ? [decode(item), undefined] : [decode(item.slice(0, equals)), decode(item.slice(equals + 1))]
    })
}

/** Headers OpenAPI describes elsewhere than in parameters (a parameter of one of these names is ignored). */
const HTTP_HEADERS = new Set(['accept', 'content-type', 'authorization'])

function fragmentLocation(
  name: string,
  value: string | undefined,
  declared: Record<string, string> = {},
): Condition['in'] {
  const lower = name.toLowerCase()
  const location =
    declared[name] ??
    Object.entries(declared).find(([other, at]) => at === 'header' && other.toLowerCase() === lower)?.[1]
  if (location === 'query' || location === 'header') return location
  return value === undefined && !HTTP_HEADERS.has(lower) ? 'query' : 'header'
}

function conditionOf(location: Condition['in'], name: string, value: string | undefined): Condition {
  const label =
    location === 'header'
      ? `header ${name}${value === undefined ? '' : `: ${value}`}`
      : `query parameter ${name}${value === undefined ? '' : `=${value}`}`
  const key = location === 'header' ? name.toLowerCase() : name
  // `?lat={lat}`: any value, which is the path parameter's.
  const param = location === 'query' ? /^\{([^{}]+)\}$/.exec(value ?? '')?.[1] : undefined
  return param === undefined ? { in: location, key, value, label } : { in: location, key, param, label }
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

function createNode<T>(): SegmentNode<T> {
  return { literal: new Map(), alternatives: [] }
}

function childFor<T>(
  parent: SegmentNode<T>,
  segment: string,
  valuePatterns: Record<string, string> = {},
): SegmentNode<T> {
  const { alternatives } = parent
  const whole = /^\{([^{}]+)\}$/.exec(segment)
  if (whole) {
    const name = whole[1]!
    const existing = alternatives.find((a) => a.regex === undefined && a.names[0] === name)
    if (existing) return existing.node
    const param = { names: [name], node: createNode<T>() }
    alternatives.push(param)
    return param.node
  }
  if (!segment.includes('{')) {
    const child = parent.literal.get(segment) ?? createNode<T>()
    parent.literal.set(segment, child)
    return child
  }
  const source = patternSource(segment, valuePatterns)
  const existing = alternatives.find((a) => a.regex?.source === source)
  if (existing) return existing.node
  const names = [...segment.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!)
  const pattern = { regex: new RegExp(source), names, node: createNode<T>() }
  // Patterns come before whole parameters: the more literal text, the more specific.
  const firstWhole = alternatives.findIndex((a) => a.regex === undefined)
  alternatives.splice(firstWhole === -1 ? alternatives.length : firstWhole, 0, pattern)
  return pattern.node
}

/**
 * A segment mixing text and parameters (`{name}.{ext}`, `{pageName}{mediaTypeExtension}`) as a
 * regular expression: a parameter whose schema says what it can be (enum, const, integer) matches
 * only that; any other takes as few characters as it can. So `/question/{page}{ext}` with `ext`
 * an enum of `.json` matches `/question/abc.json` as `abc` and `.json`.
 */
function patternSource(segment: string, valuePatterns: Record<string, string>): string {
  const parts = segment.split(/(\{[^{}]+\})/).map((part) => {
    const name = /^\{([^{}]+)\}$/.exec(part)?.[1]
    if (name === undefined) return part.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')
    return `(${valuePatterns[name] ?? '[^/]+?'})`
  })
  return `^${parts.join('')}$`
}
