import { essenceOf, isJsonType } from '../internal/media-type.js'
import type { HeaderDescription, ResponseDescription } from '../openapi/operations.js'
import {
  type DeclaredMedia,
  type DeclaredResponse,
  type ResponseSet,
  findResponse,
  mediaOf,
  statusOf,
} from '../responses/declared-responses.js'
import { fixtureHeaderProblems } from '../responses/fixture-header-problems.js'
import { RESERVED_HEADER, sidecarHeaderProblem } from '../responses/fixtures.js'
import type { HeaderContext } from '../responses/header-context.js'
import { compileTemplate } from '../responses/templates.js'
import { bodyViolations } from '../validation/check-response-body.js'
import type { UpstreamAnswer } from './check-upstream-answer.js'

/** What recording reads of a compiled operation: its place, its name and what it declares. */
export interface RecordedOperation {
  index: number
  id: string
  responses: ResponseSet
}

/** An upstream answer as a fixture: what its files hold. */
export interface RecordedFixture {
  /** The declared code it answers, which names its files: `200`, `2XX` or `default`. */
  code: string
  /** The body file's text: the answer's JSON, indented for a reader of the fixtures folder. */
  json: string
  /** The sidecar's headers, lower-case names; `undefined` when none is kept. */
  headers?: Record<string, string>
  /** Why declared headers were left out though the answer carried some: start-up would refuse the sidecar. */
  headersProblem?: string
}

/** Why an answer cannot be a fixture, as the end of a sentence; `code` as above, or the status when undeclared. */
export interface NotRecordable {
  code: string
  problem: string
}

/**
 * The fixture an upstream answer makes, checked as start-up checks fixtures so that the recording
 * replays: a JSON body of a declared JSON media type, conforming to its schema with no field the schema
 * does not declare (`bodyViolations`, as `attachFixture`), and no string a fixture reads as a
 * placeholder. Templates have no escape for `{{`, so such a body is refused rather than changed.
 * Only headers the response declares are kept, less the reserved ones and `credentials`.
 */
export function fixtureOfAnswer(
  operation: RecordedOperation,
  described: readonly ResponseDescription[],
  answer: UpstreamAnswer,
  checking: HeaderContext,
  credentials: ReadonlySet<string>,
): RecordedFixture | NotRecordable {
  const recorded = recordedResponseOf(operation.responses, answer.status)
  if ('problem' in recorded) return recorded
  const { code } = recorded.response
  const media = mediaOf(recorded.response).find((m) => m.kind === 'json')
  if (!media)
    return {
      code,
      problem: recorded.response.mediaType
        ? 'the response declares no JSON media type'
        : 'the response declares no body',
    }
  const contentType = essenceOf(answer.headers.get('content-type') ?? '')
  if (!isJsonType(contentType)) return { code, problem: `its content type is ${contentType || 'absent'}, not JSON` }
  if (answer.body.byteLength === 0) return { code, problem: 'it has no body' }
  let value: unknown
  try {
    value = JSON.parse(utf8.decode(answer.body))
  } catch {
    return { code, problem: 'its body is not JSON, or not UTF-8' }
  }
  const violations = bodyViolations(checking, media, value)
  if (violations.length)
    return {
      code,
      problem: `its body would not pass start-up as a fixture: ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}`,
    }
  if (readsAsTemplate(value)) return { code, problem: `a string in its body ${READ_AS_TEMPLATE}` }
  const json = `${JSON.stringify(value, null, 2)}\n`
  const declared = described.find((r) => r.code === code)?.headers ?? []
  const headers = declaredHeaders(answer.headers, declared, credentials)
  if (!headers) return { code, json }
  const problems = Object.entries(headers).flatMap(([name, value]) => {
    const problem = sidecarHeaderProblem(name, value)
    return problem ? [`${name} ${problem}`] : []
  })
  if (problems.length === 0) problems.push(...fixtureHeaderProblems(checking, declared, headers))
  return problems.length ? { code, json, headersProblem: problems.join('; ') } : { code, json, headers }
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

const READ_AS_TEMPLATE = 'holds a {{…}} a fixture reads as a placeholder'

/**
 * The declared response an answer of `status` is recorded under, which names its files (`200`, or
 * `2XX` or `default` for the status a fixture of it replays as), or why there is none.
 */
export function recordedResponseOf(
  responses: ResponseSet,
  status: number,
): { response: DeclaredResponse } | NotRecordable {
  const response = findResponse(responses.declared, status)
  if (!response) return { code: String(status), problem: 'the operation declares no response for it' }
  // `2XX` replays as 200, `default` as the success status: a fixture keeps no status of its own.
  if (statusOf(response, 200) !== status)
    return {
      code: response.code,
      problem: `its status is declared only as ${response.code}, which a fixture replays as ${statusOf(response, 200)}`,
    }
  return { response }
}

/**
 * Why one item of a streamed answer could not be in a stream fixture (#31 §2), checked as a body
 * fixture is (`fixtureOfAnswer`): a field the item schema does not declare, or a `{{`; `undefined` when it can.
 */
export function streamItemProblem(checking: HeaderContext, item: DeclaredMedia, value: unknown): string | undefined {
  const violations = bodyViolations(checking, item, value)
  if (violations.length)
    return `an item would not pass start-up in a fixture: ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}`
  return readsAsTemplate(value) ? `a string in an item ${READ_AS_TEMPLATE}` : undefined
}

/** The answer's values of the headers the response declares, but reserved ones and credentials; `undefined` when none is left. */
function declaredHeaders(
  received: Headers,
  declared: readonly HeaderDescription[],
  credentials: ReadonlySet<string>,
): Record<string, string> | undefined {
  const headers: Record<string, string> = {}
  for (const { name } of declared) {
    const key = name.toLowerCase()
    const value = received.get(key)
    if (value !== null && !credentials.has(key) && !RESERVED_HEADER.test(key)) headers[key] = value
  }
  return Object.keys(headers).length ? headers : undefined
}

/** Whether replay would read the body as a template: the same compile start-up runs, a bad placeholder included. */
function readsAsTemplate(value: unknown): boolean {
  try {
    return compileTemplate(value, 'A recorded answer') !== undefined
  } catch {
    return true
  }
}
