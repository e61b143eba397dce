import { errors } from '../errors.js'

export interface Routable {
  method: string
  path: string
  /**
   * What a path parameter's value can be, as a regular expression source, where its schema says
   * (enum, const, integer): it splits a segment that holds several parameters (`{name}{ext}`).
   */
  pathValuePatterns?: Record<string, string>
}

export interface RouteMatch<T> {
  operation: T
  /** Path parameters, still percent-encoded as they came. */
  params: Record<string, string>
}

/**
 * One path segment of the tree. A segment is a literal (`plants`), a whole parameter (`{id}`), or
 * a pattern mixing both (`{name}.{ext}`), which gets a regular expression compiled at start-up.
 */
interface SegmentNode<T> {
  literal: Map<string, SegmentNode<T>>
  /** Usually one; two templates may name the same position differently (`/a/{id}`, `/a/{key}/b`). */
  params: Array<{ name: string; node: SegmentNode<T> }>
  patterns: Array<{ regex: RegExp; names: string[]; node: SegmentNode<T> }>
  /** Operations of the path that ends here. */
  byMethod?: Map<string, T>
}

/** Operations indexed by path: a map for literal paths, a segment tree for templated ones. */
export interface Router<T> {
  literal: Map<string, Map<string, T>>
  tree: SegmentNode<T>
}

/** The parameters of a literal path: one shared empty object. */
export const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>

export function createRouter<T extends Routable>(operations: readonly T[]): Router<T> {
  const literal = new Map<string, Map<string, T>>()
  const tree = createNode<T>()
  for (const operation of operations) {
    if (!operation.path.includes('{')) {
      const byMethod = literal.get(operation.path) ?? new Map<string, T>()
      literal.set(operation.path, byMethod.set(operation.method, operation))
      continue
    }
    const node = operation.path.split('/').slice(1).reduce((parent, segment) => childFor(parent, segment, operation.pathValuePatterns), tree)
    node.byMethod ??= new Map()
    node.byMethod.set(operation.method, operation)
  }
  return { literal, tree }
}

/**
 * (method, path) → operation. Literal paths win over templated ones, and at each segment a
 * literal wins over a pattern, which wins over a bare parameter (`/plants/mine` before
 * `/plants/{id}`), as OpenAPI asks. A method the best path lacks may be declared by a less
 * specific one (`DELETE /plants/{id}` serves `DELETE /plants/mine` when `/plants/mine` has only GET).
 */
export function matchOperation<T>(router: Router<T>, method: string, path: string): RouteMatch<T> {
  const allowed = new Set<string>()
  const byMethod = router.literal.get(path)
  if (byMethod) {
    const operation = byMethod.get(method) ?? headAsGet(byMethod, method)
    if (operation !== undefined) return { operation, params: NO_PARAMS }
    byMethod.forEach((_, declared) => allowed.add(declared))
  }
  const params: Record<string, string> = {}
  const operation = walk(router.tree, path.split('/'), 1, method, params, allowed)
  if (operation !== undefined) return { operation, params }
  if (allowed.size) throw errors.methodNotAllowed(method, path, [...allowed])
  throw errors.notFound(method, path)
}

function walk<T>(node: SegmentNode<T>, segments: string[], at: number, method: string, params: Record<string, string>, allowed: Set<string>): T | undefined {
  if (at === segments.length) {
    const operation = node.byMethod && (node.byMethod.get(method) ?? headAsGet(node.byMethod, method))
    if (operation === undefined) node.byMethod?.forEach((_, declared) => allowed.add(declared))
    return operation
  }
  const segment = segments[at]!
  const literal = node.literal.get(segment)
  const viaLiteral = literal && walk(literal, segments, at + 1, method, params, allowed)
  if (viaLiteral !== undefined) return viaLiteral
  for (const { regex, names, node: next } of node.patterns) {
    const found = regex.exec(segment)
    if (!found) continue
    names.forEach((name, i) => (params[name] = found[i + 1]!))
    const viaPattern = walk(next, segments, at + 1, method, params, allowed)
    if (viaPattern !== undefined) return viaPattern
    names.forEach((name) => delete params[name])
  }
  if (segment === '') return undefined
  for (const { name, node: next } of node.params) {
    params[name] = segment
    const viaParam = walk(next, segments, at + 1, method, params, allowed)
    if (viaParam !== undefined) return viaParam
    delete params[name]
  }
  return undefined
}

/** HEAD is answered by the GET operation where the description declares no HEAD of its own; `Allow` still lists only declared methods. */
function headAsGet<T>(byMethod: Map<string, T>, method: string): T | undefined {
  return method === 'HEAD' ? byMethod.get('GET') : undefined
}

function createNode<T>(): SegmentNode<T> {
  return { literal: new Map(), params: [], patterns: [] }
}

function childFor<T>(parent: SegmentNode<T>, segment: string, valuePatterns: Record<string, string> = {}): SegmentNode<T> {
  const whole = /^\{([^{}]+)\}$/.exec(segment)
  if (whole) {
    const name = whole[1]!
    const existing = parent.params.find((p) => p.name === name)
    if (existing) return existing.node
    const param = { name, node: createNode<T>() }
    parent.params.push(param)
    return param.node
  }
  if (!segment.includes('{')) {
    const child = parent.literal.get(segment) ?? createNode<T>()
    parent.literal.set(segment, child)
    return child
  }
  const source = patternSource(segment, valuePatterns)
  const existing = parent.patterns.find((p) => p.regex.source === source)
  if (existing) return existing.node
  const names = [...segment.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!)
  const pattern = { regex: new RegExp(source), names, node: createNode<T>() }
  parent.patterns.push(pattern)
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
