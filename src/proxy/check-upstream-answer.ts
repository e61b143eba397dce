import type { Violation } from '../errors.js'
import type { ResponseDescription } from '../openapi/operations.js'
import { type ResponseSet, findResponse, mediaOf } from '../responses/declared-responses.js'
import { schemaViolations } from '../validation/check-response-body.js'

/** An upstream's answer as the proxy received it, its body read whole (up to the proxy's limit). */
export interface UpstreamAnswer {
  status: number
  headers: Headers
  body: Uint8Array
}

/**
 * How an upstream's answer breaks what the operation declares, with the validators compiled at
 * start-up: a status it does not declare, a required header missing, a media type it does not
 * declare, a JSON body that breaks the schema. Empty when it keeps the contract.
 */
export function upstreamViolations(
  responses: ResponseSet,
  described: readonly ResponseDescription[],
  answer: UpstreamAnswer,
): Violation[] {
  const response = findResponse(responses.declared, answer.status)
  if (!response) {
    const codes = responses.declared.map((r) => r.code).join(', ') || 'none'
    return [
      { path: 'status', message: `is ${answer.status}, which the operation does not declare (declared: ${codes})` },
    ]
  }
  const violations: Violation[] = []
  for (const header of described.find((r) => r.code === response.code)?.headers ?? []) {
    if (header.required && !answer.headers.has(header.name))
      violations.push({
        path: `header.${header.name.toLowerCase()}`,
        message: 'is required by the description, and missing',
      })
  }
  const declared = mediaOf(response)
  if (declared.length === 0 || answer.body.byteLength === 0) return violations
  const contentType = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  const media = declared.find((m) => mediaMatches(m.mediaType, contentType))
  if (!media) {
    const types = declared.map((m) => m.mediaType).join(', ')
    violations.push({
      path: 'header.content-type',
      message: `is "${contentType || 'absent'}", which the response does not declare (declared: ${types})`,
    })
    return violations
  }
  if (media.kind !== 'json' || !media.validate) return violations
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder().decode(answer.body))
  } catch {
    violations.push({ path: 'body', message: 'is not JSON, as its content type says' })
    return violations
  }
  violations.push(...schemaViolations(media, value))
  return violations
}

/** `application/json` matches itself, `application/*` and `*\/*`; parameters are left out. */
function mediaMatches(declared: string, actual: string): boolean {
  const range = declared.split(';')[0]!.trim().toLowerCase()
  if (range === actual || range === '*/*') return true
  return range.endsWith('/*') && actual.startsWith(range.slice(0, -1))
}
