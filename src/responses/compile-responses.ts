import type { ValidateFunction } from 'ajv'
import { StartupError } from '../errors.js'
import type { Logger } from '../log.js'
import type { MediaTypeDescription, OperationDescription, ResponseDescription } from '../spec/operations.js'
import { derefSchema, nodeAt } from '../spec/resolve-ref.js'
import { type Ajv, compileAt, toViolations } from '../validation/create-ajv.js'
import type { Fixture } from './fixtures.js'
import { type BodyTemplate, compileTemplate } from './templates.js'
import { findUndeclaredFields } from './undeclared-fields.js'

/** A body known at start-up, already serialised: the request path only writes it. */
export interface StaticBody {
  name: string
  origin: 'fixture' | 'example'
  json: string
  /** A fixture with `{{request...}}` placeholders is rendered per request instead of served as `json`. */
  template?: BodyTemplate
}

/** One declared response of an operation, ready to serve. */
export interface DeclaredResponse {
  /** As declared: `200`, `2XX` or `default`. */
  code: string
  /** `undefined` when the response declares no content (no body is sent). */
  mediaType?: string
  schemaPointer?: string
  validate?: ValidateFunction
  /** Fixtures first (in file order), then the description's examples. */
  bodies: Map<string, StaticBody>
}

export interface ResponseSet {
  declared: DeclaredResponse[]
  /** What a valid request gets: the lowest 2xx, else 2XX, else default. */
  success?: DeclaredResponse
  /** Status for a request that breaks the description: the first declared of 422, 400, 4XX, default; else 422. */
  violationStatus: number
}

interface CompileContext {
  document: unknown
  ajv: Ajv
  logger: Logger
}

export function compileResponses(context: CompileContext, operation: OperationDescription, fixtures: readonly Fixture[] = []): ResponseSet {
  const declared = operation.responses.map((response) => compileResponse(context, operation, response))
  for (const fixture of fixtures) attachFixture(context, operation, declared, fixture)
  return { declared, success: pickSuccess(declared), violationStatus: pickViolationStatus(declared) }
}

function compileResponse(context: CompileContext, operation: OperationDescription, response: ResponseDescription): DeclaredResponse {
  const media = preferJson(response.content)
  const compiled: DeclaredResponse = {
    code: response.code,
    mediaType: media?.mediaType,
    schemaPointer: media?.schemaPointer,
    validate: media?.schemaPointer ? compileAt(context.ajv, media.schemaPointer) : undefined,
    bodies: new Map(),
  }
  for (const { name, value } of examplesOf(context.document, media)) {
    const problems = bodyProblems(context, compiled, value)
    if (problems.length) {
      context.logger.warn(`${operation.id} ${response.code}: the example "${name}" is not served, since it breaks its schema: ${problems.join('; ')}.`)
      continue
    }
    compiled.bodies.set(name, { name, origin: 'example', json: JSON.stringify(value) })
  }
  return compiled
}

/** Media-type examples, else an `example` on the schema itself. */
function examplesOf(document: unknown, media: MediaTypeDescription | undefined) {
  if (!media) return []
  if (media.examples.length || !media.schemaPointer) return media.examples
  const schema = derefSchema(document, nodeAt(document, media.schemaPointer))
  return schema?.example === undefined ? [] : [{ name: 'default', value: schema.example }]
}

function attachFixture(context: CompileContext, operation: OperationDescription, declared: DeclaredResponse[], fixture: Fixture): void {
  const response = declared.find((r) => r.code === fixture.code)
  if (!response) {
    throw new StartupError(`The fixture ${fixture.file} is for status ${fixture.code}, which ${operation.id} does not declare (declared: ${declared.map((r) => r.code).join(', ') || 'none'}).`)
  }
  if (!response.mediaType) throw new StartupError(`The fixture ${fixture.file} gives a body to the ${fixture.code} response of ${operation.id}, which declares no content.`)
  const template = compileTemplate(fixture.value, `The fixture ${fixture.file}`)
  const problems = bodyProblems(context, response, fixture.value, template?.slots)
  if (problems.length) {
    throw new StartupError(`The fixture ${fixture.file} does not match the ${fixture.code} response of ${operation.id}: ${problems.join('; ')}.`)
  }
  // Fixtures come before the description's examples of the same name.
  const others = [...response.bodies.values()].filter((b) => b.name !== fixture.name)
  const fixtures = others.filter((b) => b.origin === 'fixture')
  const examples = others.filter((b) => b.origin === 'example')
  const body: StaticBody = { name: fixture.name, origin: 'fixture', json: JSON.stringify(fixture.value), template }
  response.bodies = new Map([...fixtures, body, ...examples].map((b) => [b.name, b]))
}

/** The body served when none is asked for by name: the one named `default` (`200.json`), else the first. */
export function defaultBodyOf(response: DeclaredResponse): StaticBody | undefined {
  return response.bodies.get('default') ?? response.bodies.values().next().value
}

/** How a body breaks its response schema, without the undeclared-field walk (see `bodyProblems`). */
export function schemaProblems(response: DeclaredResponse, value: unknown): string[] {
  if (!response.validate || response.validate(value)) return []
  return toViolations('body', response.validate.errors).map((v) => `${v.path} ${v.message}`)
}

/** Every way a body breaks its response schema, including fields the schema does not declare. */
export function bodyProblems(
  context: { document: unknown },
  response: DeclaredResponse,
  value: unknown,
  /** JSON pointers whose values are only known per request (template slots): not judged now. */
  unknownAt: readonly string[] = [],
): string[] {
  if (!response.validate) return []
  const errors = response.validate(value) ? [] : (response.validate.errors ?? []).filter((e) => !unknownAt.some((slot) => isAtOrUnder(e.instancePath, slot)))
  const violations = toViolations('body', errors)
  const undeclared = findUndeclaredFields(context.document, nodeAt(context.document, response.schemaPointer!), value)
  return [
    ...violations.map((v) => `${v.path} ${v.message}`),
    ...undeclared.map((path) => `body${path} is not declared by the schema`),
  ]
}

function isAtOrUnder(pointer: string, slot: string): boolean {
  return pointer === slot || pointer.startsWith(`${slot}/`)
}

function preferJson(content: MediaTypeDescription[]): MediaTypeDescription | undefined {
  return content.find((c) => /^application\/(.+\+)?json\b/i.test(c.mediaType)) ?? content[0]
}

function pickSuccess(declared: DeclaredResponse[]): DeclaredResponse | undefined {
  const exact = declared.filter((r) => /^2\d\d$/.test(r.code)).sort((a, b) => Number(a.code) - Number(b.code))
  return exact[0] ?? declared.find((r) => r.code === '2XX') ?? declared.find((r) => r.code === 'default')
}

function pickViolationStatus(declared: DeclaredResponse[]): number {
  const codes = new Set(declared.map((r) => r.code))
  if (codes.has('422')) return 422
  if (codes.has('400') || codes.has('4XX')) return 400
  return 422
}

/** The declared response that covers a status: exact code, then its range, then `default`. */
export function findResponse(declared: readonly DeclaredResponse[], status: number): DeclaredResponse | undefined {
  const code = String(status)
  return (
    declared.find((r) => r.code === code) ??
    declared.find((r) => r.code === `${code[0]}XX`) ??
    declared.find((r) => r.code === 'default')
  )
}

/** The concrete status a declared response is served with. */
export function statusOf(response: DeclaredResponse, fallback: number): number {
  if (/^\d{3}$/.test(response.code)) return Number(response.code)
  if (response.code.endsWith('XX')) return Number(response.code[0]) * 100
  return fallback
}
