import type { Routable } from './create-router.js'

/**
 * One requirement written in a path key after `?` or `#`: a query parameter or a header, present
 * (`#tagKeys`) or equal to a value (`#X-Amz-Target=AWSGlue.CreateJob`, `?Action=DescribeInstances`).
 */
export interface Condition {
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

const NO_CONDITIONS: Condition[] = []

/**
 * `/tags/{arn}#tagKeys` → the route `/tags/{arn}` and its conditions. Descriptions converted from
 * AWS's models write in the path key what tells operations of one path apart: after `?`, query
 * parameters (`?acl`, `?Action=DescribeInstances&Version=2016-11-15`); after `#`, the parameters
 * the request must carry, placed where the operation declares them, else a `Name=Value` as a header
 * (AWS's JSON protocol: `#X-Amz-Target=AWSGlue.CreateJob`) and a bare name as a query parameter.
 */
export function splitPathKey(operation: Routable): { route: string; conditions: Condition[] } {
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
