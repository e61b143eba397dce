import { type Condition, splitPathKey } from './split-path-key.js'

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

/** An operation whose path key carries conditions. */
export interface Guarded<T> {
  operation: T
  conditions: Condition[]
}

/**
 * The operations of one path and method whose path keys carry conditions, most conditions first.
 * AWS descriptions put hundreds at `POST /`, each asking one header (or query parameter) to hold
 * its own value: they are also indexed by that value, so a request reads it once.
 */
export interface Choice<T> {
  candidates: Array<Guarded<T>>
  byValue?: { in: Condition['in']; key: string; candidates: Map<string, Array<Guarded<T>>> }
}

/** Where a path ends: its operations by method. */
export interface Endpoint<T> {
  /** Operations whose path key is a plain path. */
  byMethod?: Map<string, T>
  /** Operations whose path key has a query or fragment part; absent for most descriptions. */
  guarded?: Map<string, Choice<T>>
}

/**
 * How a segment can be taken by a parameter: whole (`{id}`, no regex), or by a pattern mixing
 * text and parameters (`{name}.{ext}`), a regular expression compiled at start-up.
 */
export interface Alternative<T> {
  regex?: RegExp
  names: string[]
  node: SegmentNode<T>
}

/** One path segment of the tree: literal children, then parameter alternatives. */
export interface SegmentNode<T> extends Endpoint<T> {
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
