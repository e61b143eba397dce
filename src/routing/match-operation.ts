import { errors } from '../errors.js'

export interface Routable {
  method: string
  path: string
}

export interface RouteMatch<T> {
  operation: T
  /** Path parameters, still percent-encoded as they came. */
  params: Record<string, string>
}

interface TemplatedPath<T> {
  pattern: RegExp
  names: string[]
  byMethod: Map<string, T>
}

/** Operations indexed by path: a map for literal paths, precompiled patterns for templated ones. */
export interface Router<T> {
  literal: Map<string, Map<string, T>>
  templated: TemplatedPath<T>[]
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>

export function createRouter<T extends Routable>(operations: readonly T[]): Router<T> {
  const literal = new Map<string, Map<string, T>>()
  const templated = new Map<string, TemplatedPath<T>>()
  for (const operation of operations) {
    if (!operation.path.includes('{')) {
      const byMethod = literal.get(operation.path) ?? new Map<string, T>()
      literal.set(operation.path, byMethod.set(operation.method, operation))
      continue
    }
    const route = templated.get(operation.path) ?? compileTemplate<T>(operation.path)
    templated.set(operation.path, route)
    route.byMethod.set(operation.method, operation)
  }
  return { literal, templated: [...templated.entries()].sort(bySpecificity).map(([, route]) => route) }
}

/**
 * (method, path) → operation. Literal paths win over templated ones, and among templates the one
 * with more literal segments wins, as OpenAPI asks (`/plants/mine` before `/plants/{id}`).
 */
export function matchOperation<T>(router: Router<T>, method: string, path: string): RouteMatch<T> {
  const allowed = new Set<string>()
  const byMethod = router.literal.get(path)
  if (byMethod) {
    const operation = byMethod.get(method)
    if (operation !== undefined) return { operation, params: NO_PARAMS }
    byMethod.forEach((_, declared) => allowed.add(declared))
  }
  // A method the literal path lacks may still be declared on a template that matches it
  // (`DELETE /plants/{id}` serves `DELETE /plants/mine` when `/plants/mine` has only GET).
  for (const route of router.templated) {
    const found = route.pattern.exec(path)
    if (!found) continue
    const operation = route.byMethod.get(method)
    if (operation === undefined) {
      route.byMethod.forEach((_, declared) => allowed.add(declared))
      continue
    }
    const params: Record<string, string> = {}
    route.names.forEach((name, index) => (params[name] = found[index + 1]!))
    return { operation, params }
  }
  if (allowed.size) throw errors.methodNotAllowed(method, path, [...allowed])
  throw errors.notFound(method, path)
}

function compileTemplate<T>(path: string): TemplatedPath<T> {
  const names: string[] = []
  const source = path
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1]
      if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      names.push(name)
      return '([^/]+)'
    })
    .join('')
  return { pattern: new RegExp(`^${source}$`), names, byMethod: new Map() }
}

function bySpecificity([a]: [string, unknown], [b]: [string, unknown]): number {
  const literalLength = (path: string) => path.replace(/\{[^}]+\}/g, '').length
  return literalLength(b) - literalLength(a) || a.localeCompare(b)
}
