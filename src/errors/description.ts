import { StartupError, type StartupErrorCode } from './startup-error.js'

const fail = (code: StartupErrorCode, message: string) => new StartupError(code, message)

/** What is wrong with the description. */
export const descriptionErrors = {
  descriptionUnreadable: (path: string, reason: string) =>
    fail('description_unreadable', `Cannot read the description ${path}: ${reason}.`),
  descriptionNotYaml: (path: string, reason: string) =>
    fail('description_not_yaml', `The description ${path} is not valid YAML or JSON: ${reason}.`),
  descriptionNotObject: (path: string) =>
    fail(
      'description_not_object',
      `The description ${path} is not an OpenAPI document: its top level is not an object.`,
    ),
  descriptionUnsupportedSwagger: (path: string, swagger: unknown) =>
    fail(
      'description_unsupported_swagger',
      `The description ${path} is Swagger ${JSON.stringify(swagger)}; the mock reads Swagger "2.0", OpenAPI 3.0.x, 3.1.x and 3.2.x.`,
    ),
  descriptionUnsupportedVersion: (path: string, openapi: unknown) =>
    fail(
      'description_unsupported_version',
      `The description ${path} has no supported "openapi" version (found ${JSON.stringify(openapi)}); use 3.0.x, 3.1.x or 3.2.x.`,
    ),
  descriptionBadPaths: (path: string) =>
    fail('description_bad_paths', `The description ${path} has a "paths" that is not an object.`),
  descriptionSwaggerConversion: (path: string, reason: string) =>
    fail(
      'description_swagger_conversion',
      `The Swagger 2.0 description ${path} cannot be converted to OpenAPI 3.0: ${reason}`,
    ),
  descriptionSelfContaining: (path: string, pointer: string) =>
    fail(
      'description_self_containing',
      `The description ${path} contains itself at #${pointer} (a YAML anchor used inside its own value); the mock reads only descriptions that end.`,
    ),
  descriptionTooDeep: (path: string, maxDepth: number, pointer: string) =>
    fail(
      'description_too_deep',
      `The description ${path} is nested more than ${maxDepth} levels deep (at #${pointer}...); the mock reads descriptions up to that depth.`,
    ),
  /** `reason` says which `$ref`, or why the bundler could not follow it. */
  unresolvedRef: (path: string, reason: string) =>
    fail('description_unresolved_ref', `The description ${path} has a $ref that cannot be resolved: ${reason}.`),
  refPointsAtNothing: (ref: string) => fail('description_unresolved_ref', `The $ref "${ref}" points at nothing.`),
  refCannotBeFollowed: (ref: string, pointer: string) =>
    fail('description_bad_ref', `The $ref "${ref}" at ${pointer} cannot be followed.`),
  pathWithoutSlash: (path: string) => fail('description_bad_path', `The path "${path}" must start with "/".`),
  parameterWithoutNameOrIn: (pointer: string) =>
    fail(
      'description_bad_parameter',
      `The parameter at ${pointer} needs a "name" and an "in" of path, query, header or cookie (or querystring, in OpenAPI 3.2).`,
    ),
  pathParameterWithoutName: (pointer: string) =>
    fail('description_bad_parameter', `The path parameter at ${pointer} needs a "name".`),
  parameterStyle: (pointer: string, style: string, location: string, styles: readonly string[]) =>
    fail(
      'description_bad_parameter_style',
      `The parameter at ${pointer} has style "${style}", which a ${location} parameter cannot have (${styles.join(', ')}).`,
    ),
  responseCode: (code: string, pointer: string) =>
    fail(
      'description_bad_response_code',
      `The response code "${code}" at ${pointer} is not a status, a range such as 2XX, or "default".`,
    ),
  schemaAt: (pointer: string, reason: string) =>
    fail('description_bad_schema', `The schema at ${pointer} cannot be compiled: ${reason}`),
  schemasOf: (path: string, reason: string) =>
    fail('description_bad_schema', `The schemas of ${path} cannot be compiled: ${reason}`),
  /** `problem` is also the start of the warning told when such a scheme is let through. */
  uncheckableSecurity: (problem: string) => fail('description_uncheckable_security', `${problem}.`),
  adminPath: (path: string, operationPath: string, prefix: string) =>
    fail(
      'description_admin_path',
      `In ${path}, the path ${operationPath} lies under ${prefix}, which the admin API reserves; run with --no-admin to serve it.`,
    ),
  /** The same error, told which file (and operation) it is in; the code is the original's. */
  inDescription: (path: string, where: string, error: StartupError) =>
    new StartupError(error.code, `In ${path}${where ? `, ${where}` : ''}: ${error.message}`),
}
