import type { RequestData } from '../common/request.js'
import { NO_PARAMS } from '../routing/match-operation.js'
import type { TemplateRequest } from './templates.js'

/** What a templated fixture reads of a request: made only when one is served. */
export function templateRequestOf(
  request: RequestData,
  params: Record<string, string>,
  body: unknown,
): TemplateRequest {
  return new LazyTemplateRequest(request, decodeParams(params), body)
}

/** Most templates read only the body: the query is parsed only if one reads it. */
class LazyTemplateRequest implements TemplateRequest {
  readonly method: string
  readonly path: string
  readonly header: (name: string) => string | undefined

  constructor(
    private readonly request: RequestData,
    readonly params: Record<string, string>,
    readonly body: unknown,
  ) {
    this.method = request.method
    this.path = request.path
    this.header = request.header
  }

  get query(): URLSearchParams {
    return this.request.query()
  }
}

function decodeParams(params: Record<string, string>): Record<string, string> {
  if (params === NO_PARAMS) return params
  const decoded: Record<string, string> = {}
  for (const [name, value] of Object.entries(params)) {
    try {
      decoded[name] = decodeURIComponent(value)
    } catch {
      decoded[name] = value
    }
  }
  return decoded
}
