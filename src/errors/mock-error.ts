/** One problem found in a request, named by where it is (a JSON path such as `body.id` or `query.limit`). */
export interface Violation {
  path: string
  message: string
}

export type MockErrorKind =
  | 'not_found'
  | 'method_not_allowed'
  | 'unauthorized'
  | 'unsupported_media_type'
  | 'not_acceptable'
  | 'payload_too_large'
  | 'invalid_request'
  | 'undeclared_preference'
  | 'unknown_scenario'
  | 'forced_by_scenario'
  | 'admin_unauthorized'
  | 'invalid_admin_request'
  | 'internal'
  | 'generation_budget'
  | 'generation_failed'
  | 'generator_loading'
  | 'admin_forbidden'
  | 'too_many_held'
  | 'too_many_connections'
  | 'too_many_streams'
  | 'invalid_response'
  | 'record_exists'
  | 'record_missing'
  | 'record_limit'
  | 'upstream_failed'
  | 'store_unavailable'
  | 'upstream_timeout'

/**
 * The one error type of the request pipeline. Stages throw it; `http/app.ts` maps it once to the
 * description's `Error` shape. `status` may be left to the operation (see `violationStatus`).
 */
export class MockError extends Error {
  readonly status: number
  readonly kind: MockErrorKind
  readonly details: readonly Violation[]
  readonly headers: Readonly<Record<string, string>>

  constructor(
    status: number,
    kind: MockErrorKind,
    message: string,
    options: { details?: readonly Violation[]; headers?: Record<string, string> } = {},
  ) {
    // A MockError is an answer, not a fault: capturing a stack for every 4xx cost a tenth of the
    // CPU of the 401 path (issue #4 profile).
    const stackTraceLimit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(message)
    Error.stackTraceLimit = stackTraceLimit
    this.name = 'MockError'
    this.status = status
    this.kind = kind
    this.details = options.details ?? []
    this.headers = options.headers ?? {}
  }
}

export function isMockError(error: unknown): error is MockError {
  return error instanceof MockError
}
