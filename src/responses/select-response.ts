import { errors } from '../errors/index.js'
import {
  type DeclaredMedia,
  type DeclaredResponse,
  type ResponseSet,
  type StaticBody,
  defaultBodyOf,
  findResponse,
  mediaOf,
  statusOf,
} from './declared-responses.js'
import { negotiateMediaType, rankMediaTypes } from './negotiate.js'
import { type PreferenceSource, type Preferences, written } from './prefer.js'

export type BodySource =
  | { kind: 'static'; body: StaticBody }
  /** Made from the schema per request (`--dynamic`). */
  | { kind: 'generated' }
  /** Made from the schema once, the same every time and every run (Prism's static mode). */
  | { kind: 'sampled' }
  | { kind: 'empty' }
  /**
   * A stored record, or a page of them, as the response declares it (`--stateful`): checked as it is
   * served; `nested` when a value holds an object or array, whose fields only a walk finds undeclared
   * (the record's own undeclared fields are left out already).
   */
  | { kind: 'record'; value: unknown; nested: boolean }

/** The decision, before any body is rendered. Scenarios change only this. */
export interface ResponsePlan {
  status: number
  response?: DeclaredResponse
  /** The media type served, chosen by `Accept`; `undefined` when there is no body. */
  media?: DeclaredMedia
  source: BodySource
}

export interface SelectOptions {
  /** Generate bodies per request, even where a fixture or example exists (`--dynamic`); else a body without one is sampled once. */
  dynamic: boolean
}

/**
 * Chooses status, media type and body source: `Prefer: code=` (or `?__code=`) picks the status, `example=` a named
 * fixture or example, `dynamic=` generation; otherwise the success response with its first fixture
 * or example, else its schema's static sample. `Accept` picks among the response's declared media types (406 when it accepts none);
 * a response without content has no body, whatever `Accept` says.
 */
export function selectResponse(
  operation: { id: string; responses: ResponseSet },
  prefer: Preferences,
  options: SelectOptions,
  accept?: string,
): ResponsePlan {
  const { responses } = operation
  const response = prefer.code === undefined ? responses.success : declaredFor(operation, prefer.code, prefer.from)
  // `code=404` served by a 4XX (or default) response is a 404, not the first status of the range.
  // An operation that declares no response at all (OpenAPI 3.1 allows it) answers 204, with no body.
  const status = prefer.code ?? (response ? statusOf(response, 200) : 204)
  // HTTP forbids a body with these, whatever content the description declares for them.
  if (BODILESS_STATUSES.has(status)) return { status, response, source: { kind: 'empty' } }
  if (prefer.example !== undefined) {
    const found = findExample(operation, response, prefer.example, prefer.code === undefined, accept, prefer.from)
    return {
      status: prefer.code ?? statusOf(found.response, status),
      response: found.response,
      media: found.media,
      source: { kind: 'static', body: found.body },
    }
  }
  if (!response?.mediaType) return { status, response, source: { kind: 'empty' } }
  const declared = mediaOf(response)
  const media = negotiateMediaType(declared, accept)
  if (!media)
    throw errors.notAcceptable(
      accept!,
      declared.map((m) => m.contentType),
    )
  const generate = prefer.dynamic ?? options.dynamic
  const body = defaultBodyOf(media)
  if (body && !generate) return { status, response, media, source: { kind: 'static', body } }
  if (media.generatable) return { status, response, media, source: generate ? GENERATED : SAMPLED }
  return { status, response, media, source: body ? { kind: 'static', body } : { kind: 'empty' } }
}

const GENERATED: BodySource = Object.freeze({ kind: 'generated' })
const SAMPLED: BodySource = Object.freeze({ kind: 'sampled' })

/** 204 No Content, 205 Reset Content and 304 Not Modified never carry a body (RFC 9110). */
const BODILESS_STATUSES = new Set([204, 205, 304])

function declaredFor(
  operation: { id: string; responses: ResponseSet },
  code: number,
  from: PreferenceSource | undefined,
): DeclaredResponse {
  const response = Number.isNaN(code) ? undefined : findResponse(operation.responses.declared, code)
  if (response) return response
  const declared = operation.responses.declared.map((r) => r.code).join(', ')
  throw Number.isNaN(code)
    ? errors.badPreferCode(operation.responses.violationStatus, written('code', from))
    : errors.undeclaredPreferredCode(written('code', from), code, operation.id, declared)
}

/**
 * A named body of the chosen response, in the media type `Accept` ranks best among those that have
 * it; without `code=`, any response's body of that name will do.
 */
function findExample(
  operation: { id: string; responses: ResponseSet },
  chosen: DeclaredResponse | undefined,
  name: string,
  anyStatus: boolean,
  accept: string | undefined,
  from: PreferenceSource | undefined,
) {
  const candidates = (
    anyStatus ? [chosen, ...operation.responses.declared.filter((r) => r !== chosen)] : [chosen]
  ).filter((r) => r !== undefined)
  let refused: DeclaredMedia[] | undefined
  for (const response of candidates) {
    const named = mediaOf(response).filter((m) => m.bodies.has(name))
    const media = rankMediaTypes(named, accept)[0]
    if (media) return { response, media, body: media.bodies.get(name)! }
    if (named.length) refused ??= named
  }
  if (refused)
    throw errors.notAcceptable(
      accept!,
      refused.map((m) => m.contentType),
    )
  const known = candidates.flatMap((r) =>
    mediaOf(r).flatMap((m) =>
      [...m.bodies.keys()].map((n) => `${n} (${r.code}${m.kind === 'json' ? '' : `, ${m.mediaType}`})`),
    ),
  )
  throw errors.unknownExample(written('example', from), name, operation.id, anyStatus, known)
}
