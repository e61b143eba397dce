import { type MockError, errors, isMockError } from '../errors/index.js'
import type { CompiledOperation } from '../engine/compile-operation.js'
import { renderError } from '../responses/render-error.js'
import type { RenderedResponse } from '../responses/render-response.js'
import {
  PRISM_VIOLATIONS_HEADER,
  VIOLATIONS_HEADER,
  renderPrismViolations,
  renderViolationsHeader,
} from '../validation/violations-header.js'
import type { Exchange, PipelineDeps } from './exchange.js'
import type { Reply } from './reply.js'

/**
 * The one mapping of a failure to the description's Error shape; unexpected failures are logged once.
 * A declared error body the mock knows to break its schema is refused with `--errors` (the 500 that
 * says so is not judged again), and reported without; reported violations go in `X-Mock-Violations`.
 */
export function renderFailure(error: unknown, exchange: Exchange | undefined, deps: PipelineDeps): Reply {
  const { engine } = deps
  const mockError = isMockError(error) ? error : reportUnexpected(deps, error)
  const { status, headers, body, violations, declared, staticBody } = renderError(
    mockError,
    exchange?.operation?.responses,
    engine.errorContext,
    exchange?.errorExample,
  )
  if (violations && exchange?.operation && mockError.kind !== 'invalid_response') {
    exchange.responseViolations = violations
    // The journal keeps the failure the request met; only the answer changes.
    if (engine.options.errors)
      return renderFailure(errors.invalidResponse(status, exchange.operation.id, violations), exchange, deps)
  }
  // Where the description's body answers a refused request, its violations travel in headers, ours and
  // Prism's (#30). The mock's own body names them already: sent with it too, the two headers cost a
  // refused request 40 % more CPU (autocannon, Plant Store), so they are not.
  const refused = declared && mockError.kind === 'invalid_request' ? mockError.details : undefined
  if (refused) headers[PRISM_VIOLATIONS_HEADER] = renderPrismViolations(refused)
  if (refused || exchange?.violations || exchange?.responseViolations)
    headers[VIOLATIONS_HEADER] = renderViolationsHeader(
      refused ? [...(exchange?.violations ?? []), ...refused] : exchange?.violations,
      exchange?.responseViolations,
    )
  if (exchange) {
    exchange.answer = { status, headers, body, staticBody }
    exchange.reason = mockError.message
  }
  return { status, headers, body }
}

function reportUnexpected({ engine }: PipelineDeps, error: unknown): MockError {
  const detail =
    engine.options.debug && error instanceof Error ? error.stack : String((error as Error)?.message ?? error)
  engine.logger.error(`unexpected failure while answering a request: ${detail}`)
  return errors.internal()
}

/** With `--errors`, a 500 naming the violations instead; without, the answer with `X-Mock-Violations`. */
export function answerWithViolations(
  rendered: RenderedResponse,
  exchange: Exchange,
  operation: CompiledOperation,
  refuse: boolean,
): Reply {
  if (rendered.violations) {
    exchange.responseViolations = rendered.violations
    if (refuse) throw errors.invalidResponse(rendered.status, operation.id, rendered.violations)
  }
  const headers: Record<string, string> = {
    ...rendered.headers,
    [VIOLATIONS_HEADER]: renderViolationsHeader(exchange.violations, exchange.responseViolations),
  }
  if (rendered.contentType) headers['content-type'] = rendered.contentType
  exchange.answer = { status: rendered.status, headers, body: rendered.body, staticBody: rendered.staticBody }
  return { status: rendered.status, headers, body: rendered.body }
}
