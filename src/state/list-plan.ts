import { flattenSchema } from '../openapi/flatten-schema.js'
import type { OperationDescription } from '../openapi/operations.js'
import { nodeAt } from '../openapi/resolve-ref.js'
import type { Resource } from './resource.js'

/** How a list operation pages and filters, and where its answer puts the records: compiled once at start-up. */
export interface ListPlan {
  /** The page size: limit, per_page, perPage, pageSize, page_size, size, count, max_results, maxResults, top or $top. */
  limit?: string
  /** Records to skip: offset, skip, start or $skip. */
  offset?: string
  /** The 1-based page number: page, page_number or pageNumber. */
  page?: string
  /** A cursor the mock handed out: cursor, after, page_token, pageToken, starting_after, next_token, nextToken or continue. */
  cursor?: string
  /** The limit parameter's schema `default`, if it declares one: the page size when the request gives none. Without one, every record is listed. */
  defaultLimit?: number
  /** Declared query parameters (not one of the roles above) whose name is one of `resource.fields`: equality filters. */
  filters: string[]
  /** Set when the list response is an object wrapping the array; undefined when the response is the array itself. */
  wrapper?: ListWrapper
}

/** The roles of `ListPlan` a wrapper may echo. */
export type EchoedRole = 'limit' | 'offset' | 'page'

/** Where a wrapped list answer puts the records and what it says about them. */
export interface ListWrapper {
  /** The array property: the one there is; of several, the first named items, data, results, records, content, values or like the resource; else the first. */
  items: string
  /** An integer property for the number of records that matched before paging: total, totalCount, total_count, count, totalItems, total_items, totalElements, total_results or totalResults. */
  total?: string
  /** A string property for the next cursor, when the plan has a cursor: next_cursor, nextCursor, next, cursor, nextPageToken, next_page_token or continue. */
  next?: string
  /** Whether `next` may be null at the end of the list; where not, it is left out (or `''` where required). */
  nextNullable: boolean
  /** A boolean property set when more records follow: hasMore, has_more or more. */
  hasMore?: string
  /** Roles whose value the wrapper echoes, under the query parameter's own name (an integer property). */
  echoes: EchoedRole[]
  /** The wrapper's required properties: those the mock does not fill are taken from the caller's sample. */
  required: string[]
}

/** Query parameter names by role, most preferred first; case-sensitive. */
const ROLE_NAMES = {
  limit: [
    'limit',
    'per_page',
    'perPage',
    'pageSize',
    'page_size',
    'size',
    'count',
    'max_results',
    'maxResults',
    'top',
    '$top',
  ],
  offset: ['offset', 'skip', 'start', '$skip'],
  page: ['page', 'page_number', 'pageNumber'],
  cursor: ['cursor', 'after', 'page_token', 'pageToken', 'starting_after', 'next_token', 'nextToken', 'continue'],
} as const

/** Wrapper property names by what the mock fills in them, most preferred first. */
const ITEMS_NAMES = ['items', 'data', 'results', 'records', 'content', 'values']
const TOTAL_NAMES = [
  'total',
  'totalCount',
  'total_count',
  'count',
  'totalItems',
  'total_items',
  'totalElements',
  'total_results',
  'totalResults',
]
const NEXT_NAMES = ['next_cursor', 'nextCursor', 'next', 'cursor', 'nextPageToken', 'next_page_token', 'continue']
const HAS_MORE_NAMES = ['hasMore', 'has_more', 'more']

/** `successPointer`: the list operation's success JSON response schema pointer. */
export function compileListPlan(
  description: OperationDescription,
  document: unknown,
  resource: Resource,
  successPointer: string | undefined,
): ListPlan {
  const query = description.parameters.filter((parameter) => parameter.in === 'query')
  const declared = new Set(query.map((parameter) => parameter.name))
  const plan: ListPlan = { filters: [] }
  for (const role of ['limit', 'offset', 'page', 'cursor'] as const) {
    const name = ROLE_NAMES[role].find((candidate) => declared.has(candidate))
    if (name) plan[role] = name
  }
  const limitSchema = query.find((parameter) => parameter.name === plan.limit)?.schemaPointer
  const defaultLimit = limitSchema === undefined ? undefined : declaredDefault(document, limitSchema)
  if (defaultLimit !== undefined) plan.defaultLimit = defaultLimit
  const roles = new Set([plan.limit, plan.offset, plan.page, plan.cursor])
  plan.filters = [...declared].filter((name) => !roles.has(name) && resource.fields.includes(name))
  const wrapper = successPointer === undefined ? undefined : compileWrapper(document, successPointer, plan, resource)
  if (wrapper) plan.wrapper = wrapper
  return plan
}

/** The first non-negative whole `default` the schema (or a part it combines) declares. */
function declaredDefault(document: unknown, pointer: string): number | undefined {
  const parts = flattenSchema(document, schemaAt(document, pointer))
  const value = parts.map((part) => part.default).find((candidate) => candidate !== undefined)
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined
}

/** The object wrapping a list's array, read from the success schema; undefined where that schema is not one. */
function compileWrapper(
  document: unknown,
  pointer: string,
  plan: ListPlan,
  resource: Resource,
): ListWrapper | undefined {
  const parts = flattenSchema(document, schemaAt(document, pointer))
  if (parts.some(isArraySchema)) return undefined
  const properties = propertiesOf(parts)
  const arrays = [...properties].filter(([, schema]) => typesOf(document, schema).has('array')).map(([name]) => name)
  const resourceName = resource.name.slice(resource.name.lastIndexOf('/') + 1)
  const items = [...ITEMS_NAMES, resourceName].find((name) => arrays.includes(name)) ?? arrays[0]
  if (items === undefined) return undefined
  const having = (names: readonly string[], type: string) =>
    names.find(
      (name) => name !== items && properties.has(name) && allows(typesOf(document, properties.get(name)), type),
    )
  const total = having(TOTAL_NAMES, 'integer')
  const next = plan.cursor === undefined ? undefined : having(NEXT_NAMES, 'string')
  const echoes = (['limit', 'offset', 'page'] as const).filter((role) => {
    const name = plan[role]
    return name !== undefined && name !== total && having([name], 'integer') !== undefined
  })
  return {
    items,
    total,
    next,
    nextNullable: next !== undefined && allows(typesOf(document, properties.get(next)), 'null'),
    hasMore: having(HAS_MORE_NAMES, 'boolean'),
    echoes,
    required: [...new Set(parts.flatMap((part) => (Array.isArray(part.required) ? part.required : [])))],
  }
}

/** The schema at a JSON pointer, with or without its leading `#`. */
function schemaAt(document: unknown, pointer: string): unknown {
  return nodeAt(document, pointer.startsWith('#') ? pointer.slice(1) : pointer)
}

/** An array schema: `type: array` (alone or among others) or `items`. */
function isArraySchema(part: any): boolean {
  return (Array.isArray(part.type) ? part.type.includes('array') : part.type === 'array') || part.items !== undefined
}

/** The declared properties of every part, the first declaration of a name winning. */
function propertiesOf(parts: any[]): Map<string, unknown> {
  const properties = new Map<string, unknown>()
  for (const part of parts)
    for (const [name, schema] of Object.entries(part.properties ?? {}))
      if (!properties.has(name)) properties.set(name, schema)
  return properties
}

/**
 * The types a schema declares, its parts combined: `integer` stands for `number` too, `null` for
 * `nullable`, `const: null` and an enum with null; `any` where no part declares a type.
 */
function typesOf(document: unknown, schema: unknown): Set<string> {
  const types = new Set<string>()
  let typed = false
  for (const part of flattenSchema(document, schema)) {
    const declared: unknown[] = Array.isArray(part.type) ? part.type : part.type === undefined ? [] : [part.type]
    if (declared.length || part.items !== undefined) typed = true
    for (const type of declared) types.add(type === 'number' ? 'integer' : String(type))
    if (part.items !== undefined) types.add('array')
    if (part.nullable === true || part.const === null || (Array.isArray(part.enum) && part.enum.includes(null)))
      types.add('null')
  }
  return typed ? types : new Set(['any'])
}

/** Whether a value of this type may go where these types are declared (an array only where declared so). */
function allows(types: Set<string>, type: string): boolean {
  return types.has(type) || (types.has('any') && type !== 'array')
}

/** One line for the start-up log (docs/stateful-mode.md shows it): which parameters a list reads. */
export function describeListPlan(plan: ListPlan): string {
  const paging = [
    plan.cursor,
    plan.page,
    plan.limit && (plan.defaultLimit === undefined ? plan.limit : `${plan.limit} (default ${plan.defaultLimit})`),
    plan.offset,
  ].filter((name): name is string => Boolean(name))
  const pages = paging.length ? `pages by ${paging.join(', ')}` : 'lists every record'
  const filters = plan.filters.length ? `filters by ${plan.filters.join(', ')}` : 'no filters'
  return `${pages}; ${filters}; answers ${describeWrapper(plan.wrapper)}`
}

/** `{ items, total }`: the wrapper's properties the mock fills, or `an array`. */
function describeWrapper(wrapper: ListWrapper | undefined): string {
  if (!wrapper) return 'an array'
  const filled = [wrapper.items, wrapper.total, wrapper.next, wrapper.hasMore]
  return `{ ${filled.filter((name): name is string => Boolean(name)).join(', ')} }`
}
