import { errors } from '../errors.js'
import { type DeclaredResponse, type ResponseSet, type StaticBody, defaultBodyOf, findResponse, statusOf } from './compile-responses.js'
import type { Preferences } from './prefer.js'

export type BodySource =
  | { kind: 'static'; body: StaticBody }
  | { kind: 'generated' }
  | { kind: 'empty' }

/** The decision, before any body is rendered. Scenarios change only this. */
export interface ResponsePlan {
  status: number
  response?: DeclaredResponse
  source: BodySource
}

export interface SelectOptions {
  /** Generate bodies even where a fixture or example exists (`--dynamic`). */
  dynamic: boolean
}

/**
 * Chooses status and body source: `Prefer: code=` picks the status, `example=` a named fixture or
 * example, `dynamic=` generation; otherwise the success response with its first fixture or example.
 */
export function selectResponse(operation: { id: string; responses: ResponseSet }, prefer: Preferences, options: SelectOptions): ResponsePlan {
  const { responses } = operation
  let response = prefer.code === undefined ? responses.success : declaredFor(operation, prefer.code)
  // `code=404` served by a 4XX (or default) response is a 404, not the first status of the range.
  let status = prefer.code ?? (response ? statusOf(response, 200) : 200)
  if (prefer.example !== undefined) {
    const found = findExample(operation, response, prefer.example, prefer.code === undefined)
    return { status: prefer.code ?? statusOf(found.response, status), response: found.response, source: { kind: 'static', body: found.body } }
  }
  if (!response?.mediaType) return { status, response, source: { kind: 'empty' } }
  const generate = prefer.dynamic ?? options.dynamic
  const body = defaultBodyOf(response)
  if (body && !generate) return { status, response, source: { kind: 'static', body } }
  if (response.validate) return { status, response, source: { kind: 'generated' } }
  return { status, response, source: body ? { kind: 'static', body } : { kind: 'empty' } }
}

function declaredFor(operation: { id: string; responses: ResponseSet }, code: number): DeclaredResponse {
  const response = Number.isNaN(code) ? undefined : findResponse(operation.responses.declared, code)
  if (response) return response
  const declared = operation.responses.declared.map((r) => r.code).join(', ')
  throw errors.undeclaredPreference(
    operation.responses.violationStatus,
    Number.isNaN(code)
      ? 'Prefer: code= must be an HTTP status such as 400.'
      : `Prefer: code=${code} names a status that ${operation.id} does not declare (declared: ${declared}).`,
  )
}

/** A named body of the chosen response; without `code=`, any response's body of that name will do. */
function findExample(operation: { id: string; responses: ResponseSet }, chosen: DeclaredResponse | undefined, name: string, anyStatus: boolean) {
  const candidates = anyStatus ? [chosen, ...operation.responses.declared.filter((r) => r !== chosen)] : [chosen]
  for (const response of candidates) {
    const body = response?.bodies.get(name)
    if (response && body) return { response, body }
  }
  const known = candidates.flatMap((r) => [...(r?.bodies.keys() ?? [])].map((n) => `${n} (${r!.code})`))
  throw errors.undeclaredPreference(
    operation.responses.violationStatus,
    `Prefer: example=${name} matches no fixture or example of ${operation.id}${anyStatus ? '' : ` for that status`} (available: ${known.join(', ') || 'none'}).`,
  )
}
