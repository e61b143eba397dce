import { type SecurityCheck, compileSecurity } from '../auth/check-security.js'
import type { ResolvedOptions } from '../common/config.js'
import { startupErrors } from '../errors/index.js'
import type { Logger } from '../common/log.js'
import { type ResponseCompileContext, compileResponses } from '../responses/compile-responses.js'
import { type CompiledEvent, compileEvent } from '../events/compile-events.js'
import type { DeclaredResponse, ResponseSet } from '../responses/declared-responses.js'
import type { Fixture, FixtureSet } from '../responses/fixtures.js'
import type { OperationDescription } from '../openapi/operations.js'
import { REQUEST_HASH } from '../proxy/request-hash.js'
import { derefSchema, nodeAt } from '../openapi/resolve-ref.js'
import type { CompiledStateful } from '../state/compile-stateful.js'
import type { Ajv } from '../validation/create-ajv.js'
import { type BodyValidator, compileBody } from '../validation/validate-body.js'
import { type ParameterValidator, compileParameters } from '../validation/validate-params.js'
import type { Platform } from '../common/platform.js'
import { essenceOf, isJsonType } from '../internal/media-type.js'

/** An operation with everything the request path needs compiled in. */
export interface CompiledOperation {
  /** Position in `Engine.operations`; scenario rules are looked up by it. */
  index: number
  id: string
  method: string
  path: string
  /** See `Routable`: set only for paths with a segment that holds several parameters. */
  pathValuePatterns?: Record<string, string>
  /** See `Routable`: set only for path keys with a query or fragment part (`/#X-Amz-Target=...`). */
  parameterLocations?: Record<string, string>
  secured: boolean
  security?: SecurityCheck
  parameters?: ParameterValidator
  body?: BodyValidator
  responses: ResponseSet
  /** What the operation does to its resource's records (`--stateful`); `undefined` when it is answered as without. */
  stateful: CompiledStateful | undefined
  /** The callbacks it declares, sent after a 2xx answer; `undefined` when none. */
  callbacks: CompiledEvent[] | undefined
  /** A 2xx answer sends something: its callbacks, or webhooks bound to it or to its data's events (set by the engine). */
  sendsEvents: boolean
  /**
   * Fixtures named by a request hash (`--record`), hash → declared code: a request whose hash names
   * one is answered with it. `undefined` when there is none, so that no other operation hashes requests.
   */
  recordings?: ReadonlyMap<string, string>
}

interface OperationCompileContext {
  platform: Platform
  /** The response view of the description (writeOnly properties gone). */
  document: any
  /** The request view (readOnly properties gone): what fixture templates read of the request is checked in it. */
  requestDocument: unknown
  ajv: Ajv
  requestAjv: Ajv
  coercingAjv: Ajv
  fixtures: FixtureSet
  options: ResolvedOptions
  logger: Logger
  /** Logs a warning the first time its key is seen: a problem shared by a thousand operations is told once. */
  warnOnce: (key: string, message: string) => void
  deferredExamples?: DeclaredResponse[]
}

export function compileOperation(
  description: OperationDescription,
  index: number,
  stateful: CompiledStateful | undefined,
  context: OperationCompileContext,
): CompiledOperation {
  const { document, ajv, requestAjv, coercingAjv, fixtures, options, logger } = context
  const own = fixtures.get(description.fixtureKey) ?? []
  for (const fixture of own) {
    if (fixture.callback !== undefined && !description.callbacks?.some((event) => event.name === fixture.callback))
      throw startupErrors.fixtureUnknownCallback(
        fixture.file,
        description.id,
        (description.callbacks ?? []).map((event) => event.name),
      )
  }
  const responseContext: ResponseCompileContext = {
    document,
    requestDocument: context.requestDocument,
    ajv,
    coercingAjv,
    logger,
    ignoreExamples: options.ignoreExamples,
    serveBrokenExamples: options.errors,
    deferredExamples: context.deferredExamples,
  }
  const security = compileSecurity(description.security, document.components?.securitySchemes ?? {}, {
    tokens: options.tokens,
    crypto: context.platform.crypto,
    pointer: description.securityPointer,
    warnUncheckable: context.warnOnce,
  })
  return {
    index,
    secured: security !== undefined,
    security,
    id: description.id,
    method: description.method,
    path: description.path,
    pathValuePatterns: /\}\{|\{[^/]*\}[^/]+\{/.test(description.path)
      ? pathValuePatterns(document, description)
      : undefined,
    parameterLocations: /[?#]/.test(description.path)
      ? Object.fromEntries(description.parameters.map((p) => [p.name, p.in]))
      : undefined,
    parameters: compileParameters(coercingAjv, description.parameters, requestAjv),
    body: description.requestBody
      ? compileBody(requestAjv, description.requestBody, coercingAjv, {
          readMultipart: context.platform.network.readMultipart,
          maxDepth: options.maxDepth,
        })
      : undefined,
    responses: compileResponses(
      responseContext,
      description,
      own.filter((fixture) => fixture.callback === undefined),
    ),
    stateful,
    callbacks: description.callbacks?.map((event) =>
      compileEvent(event, responseContext, {
        operation: description,
        fixture: own.find((fixture) => fixture.callback === event.name),
      }),
    ),
    sendsEvents: description.callbacks !== undefined,
    recordings: recordingsOf(own),
  }
}

/** Fixtures whose names are request hashes, by name; of one recorded under several codes, the first in file order. */
function recordingsOf(fixtures: readonly Fixture[]): ReadonlyMap<string, string> | undefined {
  let recordings: Map<string, string> | undefined
  for (const { name, code, callback } of fixtures)
    if (callback === undefined && REQUEST_HASH.test(name) && !recordings?.has(name))
      (recordings ??= new Map()).set(name, code)
  return recordings
}

/**
 * A parameter arrives as text, and text is ambiguous: with types coerced, `"1"` passes both
 * branches of `oneOf: [integer, string]` (GitHub's `workflow_id`), so every valid request failed
 * "must match exactly one". A parameter's own `oneOf` is read as `anyOf`; shared schemas it
 * refers to are left as they are. A JSON `querystring` is typed, not text: its `oneOf` stays one.
 */
export function readParameterOneOfAsAnyOf(requestView: unknown, descriptions: OperationDescription[]): void {
  for (const parameter of descriptions.flatMap((d) => d.parameters)) {
    if (parameter.in === 'querystring' && isJsonType(essenceOf(parameter.mediaType ?? ''))) continue
    const schema = parameter.schemaPointer ? nodeAt(requestView, parameter.schemaPointer) : undefined
    if (Array.isArray(schema?.oneOf) && schema.anyOf === undefined) {
      schema.anyOf = schema.oneOf
      delete schema.oneOf
      continue
    }
    // A parameter schema that is only a `$ref` to a oneOf (pandascore's id-or-slug): the parameter
    // gets its own anyOf of the same branches; the shared schema is left as it is.
    const target = derefSchema(requestView, schema)
    if (
      schema !== target &&
      typeof schema?.$ref === 'string' &&
      Object.keys(schema).length === 1 &&
      Array.isArray(target?.oneOf) &&
      target.anyOf === undefined
    ) {
      const { oneOf, ...rest } = target
      delete schema.$ref
      Object.assign(schema, rest, { anyOf: oneOf })
    }
  }
}

/** For segments holding several parameters: what each path parameter's value can be, where its schema says. */
function pathValuePatterns(document: unknown, description: OperationDescription): Record<string, string> {
  const patterns: Record<string, string> = {}
  for (const parameter of description.parameters) {
    if (parameter.in !== 'path' || !parameter.schemaPointer) continue
    const schema = derefSchema(document, nodeAt(document, parameter.schemaPointer))
    const values: unknown[] | undefined =
      schema?.const !== undefined ? [schema.const] : Array.isArray(schema?.enum) ? schema.enum : undefined
    if (values?.length)
      patterns[parameter.name] = `(?:${values.map((v) => String(v).replace(/[.*+?^$()|[\]\\{}/]/g, '\\$&')).join('|')})`
    else if (schema?.type === 'integer') patterns[parameter.name] = '-?\\d+'
  }
  return patterns
}
