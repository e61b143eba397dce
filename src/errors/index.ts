import { adminErrors } from './admin.js'
import { authErrors } from './auth.js'
import { bundleErrors } from './bundle.js'
import { descriptionErrors } from './description.js'
import { fixtureErrors } from './fixture.js'
import { MockError, type Violation } from './mock-error.js'
import { optionErrors } from './option.js'
import { preferenceErrors } from './preference.js'
import { scenarioErrors } from './scenario.js'
import { proxyErrors } from './proxy.js'
import { webhookErrors } from './webhook.js'
import { stateErrors, stateStartupErrors } from './state.js'

/** The violation of a body sent to an operation that declares none (#30). */
export const BODY_NOT_DECLARED = { path: 'body', message: 'is sent, but the operation declares no request body' }

export { MockError, type MockErrorKind, type Violation, isMockError } from './mock-error.js'
export { queryDynamicProblem } from './preference.js'

/**
 * Templates: every client-facing error message is written here or, by area, in `errors/`; nowhere
 * else. The builders that take a message (`unauthorized`, `undeclaredPreference`, `invalidAdminRequest`,
 * `adminForbidden`) are for these templates.
 */
export const errors = {
  ...authErrors,
  ...adminErrors,
  ...preferenceErrors,
  ...stateErrors,
  ...proxyErrors,
  notFound: (
    method: string,
    path: string,
    prefixes: readonly string[] = [],
    near: readonly string[] = [],
    pathCount = 0,
  ) =>
    new MockError(
      404,
      'not_found',
      `No operation in the description matches ${method} ${path}${prefixes.length ? `; paths are served at the root and under ${prefixes.join(', ')}` : ''}${near.length ? `; ${pathCount === 1 ? 'the one path declared is' : `of the ${pathCount} paths declared, the closest are`} ${near.join(', ')}` : ''}.`,
    ),

  methodNotAllowed: (method: string, path: string, allow: readonly string[]) =>
    new MockError(
      405,
      'method_not_allowed',
      `${method} is not declared for ${path}; declared methods: ${allow.join(', ')}.`,
      {
        headers: { allow: allow.join(', ') },
      },
    ),

  unauthorized: (message: string, challenge: string) =>
    new MockError(401, 'unauthorized', message, { headers: { 'www-authenticate': challenge } }),

  unsupportedMediaType: (received: string | undefined, accepted: readonly string[]) =>
    new MockError(
      415,
      'unsupported_media_type',
      `${received ? `Content-Type "${received}" is not accepted` : 'The request has no Content-Type'}; send ${accepted.join(' or ')}.`,
    ),

  /** A body sent to an operation that declares none (#30): 415, as Prism answers. */
  bodyNotDeclared: (operationId: string) =>
    new MockError(
      415,
      'unsupported_media_type',
      `${operationId} declares no request body; send the request without one.`,
      {
        details: [BODY_NOT_DECLARED],
      },
    ),

  notAcceptable: (accept: string, available: readonly string[]) =>
    new MockError(
      406,
      'not_acceptable',
      `Accept "${accept}" accepts none of the media types this response declares: ${available.join(', ')}.`,
    ),

  /** `Connection: close`: the rest of an over-large body is never read, so the connection cannot be reused (#5). */
  payloadTooLarge: (limit: number) =>
    new MockError(413, 'payload_too_large', `The request body is larger than the limit of ${limit} bytes.`, {
      headers: { connection: 'close' },
    }),

  /** A request that breaks the description. The status is the operation's (see `violationStatus`). */
  invalidRequest: (status: number, violations: readonly Violation[]) =>
    new MockError(status, 'invalid_request', describeViolations(violations), { details: violations }),

  undeclaredPreference: (status: number, message: string) => new MockError(status, 'undeclared_preference', message),

  unknownScenario: (status: number, name: string, known: readonly string[]) =>
    new MockError(status, 'unknown_scenario', `There is no scenario "${name}"; known scenarios: ${known.join(', ')}.`),

  forcedByScenario: (status: number, scenario: string, operationId: string) =>
    new MockError(status, 'forced_by_scenario', `The "${scenario}" scenario answers ${operationId} with ${status}.`),

  adminUnauthorized: () =>
    new MockError(401, 'admin_unauthorized', 'The admin API needs "Authorization: Bearer <admin token>".', {
      headers: { 'www-authenticate': 'Bearer realm="plant-store-mock admin"' },
    }),

  invalidAdminRequest: (message: string) => new MockError(400, 'invalid_admin_request', message),

  /** A path under `/__mock` that is no admin route: the admin API's own words, not the description's. */
  adminNotFound: (method: string, path: string, routes: readonly string[]) =>
    new MockError(404, 'not_found', `The admin API has no route ${method} ${path}; its routes: ${routes.join(', ')}.`),

  adminMethodNotAllowed: (method: string, path: string, allow: readonly string[]) =>
    new MockError(
      405,
      'method_not_allowed',
      `The admin route ${path} does not answer ${method}; it answers ${allow.join(', ')}.`,
      {
        headers: { allow: allow.join(', ') },
      },
    ),

  /** More answers held (delayed or hanging) than the server keeps at once (#12): the client may retry. */
  tooManyHeld: (limit: number) =>
    new MockError(
      503,
      'too_many_held',
      `The mock already holds ${limit} delayed or hanging answers; try again in a second.`,
      { headers: { 'retry-after': '1' } },
    ),

  /**
   * More connections open than the described API is answered on (#34): they would take the descriptors
   * the process needs. The connection is closed after this answer; the client may retry.
   */
  tooManyConnections: (cap: number, descriptorLimit: number | undefined) =>
    new MockError(
      503,
      'too_many_connections',
      `The mock has ${cap} connections open already, as many as ${descriptorLimit === undefined ? 'it takes' : `its limit of ${descriptorLimit} file descriptors leaves room for`}; this connection is closed: try again in a second.`,
      { headers: { 'retry-after': '1' } },
    ),

  /** A request to the admin API that a web page or a rebinding attack could have made (#12). */
  adminForbidden: (message: string) => new MockError(403, 'admin_forbidden', message),

  /** 404 naming what the operations of the path and method expect of the request (`expected`: the first few). */
  unmetConditions: (method: string, path: string, expected: readonly string[], more: number) =>
    new MockError(
      404,
      'not_found',
      `No operation in the description matches ${method} ${path}: the operations there expect ${expected.join(', or ')}${more > 0 ? `, or one of ${more} more` : ''}.`,
    ),

  internal: () => new MockError(500, 'internal', 'The mock server failed unexpectedly; see its log.'),

  /**
   * With `errors` (Prism's `--errors`): the answer the mock was about to send breaks the operation's
   * declared response, so it is not sent. `violations` are the response's, named from its root (`body.id`, `status`).
   */
  invalidResponse: (status: number, operationId: string, violations: readonly Violation[]) =>
    new MockError(500, 'invalid_response', describeResponseViolations(status, operationId, violations), {
      details: violations,
    }),

  /**
   * A response whose schema asks for more than the app's generation budget allows (bytes, or
   * milliseconds of generation): named, never a crash (#12). `problems` say which.
   */
  generationBudget: (code: string, schemaPointer: string, problems: readonly string[]) =>
    new MockError(
      500,
      'generation_budget',
      `No body within the generation budget meets the ${code} response's schema (#${schemaPointer}): ${problems.slice(0, 3).join('; ')}. Serve this response from a fixture or an example.`,
    ),
  /**
   * A body to generate before json-schema-faker has loaded: in a browser it is loaded on demand (#33),
   * ahead of every request that asks for generated bodies, but a static body whose sample breaks its
   * schema needs it too, unannounced; it is loading now.
   */
  generatorLoading: () =>
    new MockError(
      500,
      'generator_loading',
      'This body is made by json-schema-faker, which the mock loads on demand in a browser and was still loading; send the request again. Start the mock with dynamic: true to load it at start-up.',
    ),
  /** json-schema-faker refused a schema (one no value meets, such as `required: [id]` beside `additionalProperties: false` and no properties): named, not an unexpected failure. */
  generationFailed: (code: string, schemaPointer: string, reason: string) =>
    new MockError(
      500,
      'generation_failed',
      `No body can be generated for the ${code} response's schema (#${schemaPointer}): ${reason}. Serve this response from a fixture or an example.`,
    ),
}

function describeViolations(violations: readonly Violation[]): string {
  const list = violations.map((v) => `${v.path} ${v.message}`).join('; ')
  const noun = violations.length === 1 ? 'problem' : 'problems'
  return `The request does not match the description (${violations.length} ${noun}): ${list}.`
}

function describeResponseViolations(status: number, operationId: string, violations: readonly Violation[]): string {
  const list = violations.map((v) => `${v.path} ${v.message}`).join('; ')
  const noun = violations.length === 1 ? 'problem' : 'problems'
  return `The ${status} response of ${operationId} the mock was about to send does not match the description (${violations.length} ${noun}): ${list}. It is not sent, since --errors is on; without it, the mock sends it with X-Mock-Violations, or a valid body in place of an example that breaks its schema.`
}

export { StartupError, type StartupErrorCode, startupErrorCodes } from './startup-error.js'

/**
 * Templates of start-up errors, one per problem, each with its code (`startupErrorCodes`); written
 * by area in `errors/`, read from here.
 */
export const startupErrors = {
  ...descriptionErrors,
  ...fixtureErrors,
  ...scenarioErrors,
  ...optionErrors,
  ...stateStartupErrors,
  ...webhookErrors,
  ...bundleErrors,
}
