import { queryDynamicProblem } from '../errors/index.js'
import type { RequestData } from '../common/request.js'
import type { Preferences } from './prefer.js'

/**
 * Prism's query controls: `?__code=404`, `?__example=NAME`, `?__dynamic=true`, for clients that
 * cannot set a `Prefer` header (a browser address bar, an `<img src>`, a webhook URL).
 */
export interface QueryPreferences {
  preferences: Preferences
  /** The query string without the controls: what parameter validation, routing and templates read. */
  rest: string
}

const CONTROLS = new Set(['__code', '__example', '__dynamic'])

/**
 * Reads the query controls out of a raw query string; `undefined` when it holds none. The caller
 * looks for `__` first (one `indexOf`): a query without it is never parsed here.
 * Names are matched as written (`%5F%5Fcode` is not `__code`); of a repeated control the first counts,
 * as of a repeated preference (RFC 7240 §2); every copy is taken out of the query.
 */
export function readQueryPreferences(rawQuery: string): QueryPreferences | undefined {
  const kept: string[] = []
  const preferences: Preferences = { from: 'query' }
  let found = false
  for (const pair of rawQuery.split('&')) {
    const equals = pair.indexOf('=')
    const name = equals === -1 ? pair : pair.slice(0, equals)
    if (!CONTROLS.has(name)) {
      kept.push(pair)
      continue
    }
    found = true
    const value = equals === -1 ? '' : decodeQueryValue(pair.slice(equals + 1))
    if (name === '__code') preferences.code ??= /^[1-5]\d\d$/.test(value) ? Number(value) : Number.NaN
    else if (name === '__example') preferences.example ??= value
    else if (!('dynamic' in preferences) && !preferences.problem) readDynamic(preferences, value)
  }
  return found ? { preferences, rest: kept.join('&') } : undefined
}

/** Unlike `Prefer: dynamic=`, which reads anything but `true` as false, a query value that is neither word is refused, as Prism refuses it. */
function readDynamic(preferences: Preferences, value: string): void {
  const word = value.toLowerCase()
  if (word === 'true' || word === 'false') preferences.dynamic = word === 'true'
  else preferences.problem = queryDynamicProblem(value)
}

/** As `URLSearchParams` reads a value: `+` is a space, and bad percent-encoding is kept as written. */
function decodeQueryValue(text: string): string {
  const spaced = text.replace(/\+/g, ' ')
  try {
    return decodeURIComponent(spaced)
  } catch {
    return spaced
  }
}

/**
 * The query controls refine the answer as `Prefer` does; a `Prefer` header that names any of code,
 * example or dynamic wins over all three, as Prism reads the query only without one. A header that
 * asks only for a delay or a validation mode leaves the query's controls in force.
 */
export function withQueryPreferences(prefer: Preferences, query: QueryPreferences | undefined): Preferences {
  if (!query || prefer.code !== undefined || prefer.example !== undefined || prefer.dynamic !== undefined) return prefer
  return { ...prefer, ...query.preferences }
}

/** The request as the operation sees it: the same, but for a query without the controls. */
export function withoutQueryControls(request: RequestData, query: QueryPreferences): RequestData {
  return new RequestWithoutControls(request, query.rest)
}

class RequestWithoutControls implements RequestData {
  readonly method: string
  readonly path: string
  readonly header: (name: string) => string | undefined
  readonly headerSource: RequestData['headerSource']
  #query: URLSearchParams | undefined

  constructor(
    private readonly request: RequestData,
    readonly rawQuery: string,
  ) {
    this.method = request.method
    this.path = request.path
    this.header = request.header
    this.headerSource = request.headerSource
  }

  query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.rawQuery))
  }

  cookie(name: string): string | undefined {
    return this.request.cookie(name)
  }
}
