import { StartupError, type StartupErrorCode } from './startup-error.js'

const fail = (code: StartupErrorCode, message: string) => new StartupError(code, message)

/** What is wrong with a fixture file, its headers file, or a placeholder in a body. */
export const fixtureErrors = {
  fixtureFolderMissing: (dir: string) =>
    fail('fixture_folder_missing', `The fixtures folder ${dir} does not exist or is not a folder.`),
  fixtureUnknownOperation: (folder: string, known: readonly string[]) =>
    fail(
      'fixture_unknown_operation',
      `The fixtures folder ${folder} names no operation of the description; use an operationId (${known.join(', ')}).`,
    ),
  fixtureBadName: (file: string) =>
    fail(
      'fixture_bad_name',
      `The fixture ${file} is not named <status>[.<name>].json (for example 200.json or 400.duplicate-id.json), <status>[.<name>].stream.jsonl or .stream.sse for a stream, <status>[.<name>].<extension> with an extension that names a media type (200.png, 200.csv), nor <status>[.<name>].headers.json for the headers of one.`,
    ),
  fixtureUnreadable: (file: string, reason: string) =>
    fail('fixture_unreadable', `Cannot read the fixture ${file}: ${reason}`),
  fixtureNotJson: (file: string, reason: string) =>
    fail('fixture_not_json', `The fixture ${file} is not valid JSON: ${reason}`),
  fixtureEmptyStream: (file: string) =>
    fail(
      'fixture_empty_stream',
      `The stream fixture ${file} holds no item: write one JSON item a line (.jsonl) or one event each (.sse).`,
    ),
  fixtureNoMatchingMedia: (
    file: string,
    wanted: string,
    status: string,
    operationId: string,
    declared: readonly string[],
  ) =>
    fail(
      'fixture_no_matching_media',
      `The fixture ${file} is ${wanted}, and the ${status} response of ${operationId} declares none (declared: ${declared.join(', ')}).`,
    ),
  fixtureUnknownStatus: (file: string, status: string, operationId: string, declared: readonly string[]) =>
    fail(
      'fixture_unknown_status',
      `The fixture ${file} is for status ${status}, which ${operationId} does not declare (declared: ${declared.join(', ') || 'none'}).`,
    ),
  fixtureUnknownCallback: (file: string, operationId: string, declared: readonly string[]) =>
    fail(
      'fixture_unknown_callback',
      `The fixture ${file} is the body of a callback ${operationId} does not declare (its callbacks: ${declared.join(', ') || 'none'}).`,
    ),
  fixtureNoContent: (file: string, status: string, operationId: string) =>
    fail(
      'fixture_no_content',
      `The fixture ${file} gives a body to the ${status} response of ${operationId}, which declares no content.`,
    ),
  fixtureNoJsonMedia: (file: string, status: string, operationId: string, declared: readonly string[]) =>
    fail(
      'fixture_no_json_media',
      `The fixture ${file} is JSON, and the ${status} response of ${operationId} declares no JSON media type (declared: ${declared.join(', ')}).`,
    ),
  fixtureMismatch: (file: string, status: string, operationId: string, problems: readonly string[]) =>
    fail(
      'fixture_mismatch',
      `The fixture ${file} does not match the ${status} response of ${operationId}: ${problems.join('; ')}.`,
    ),
  fixtureOrphanHeaders: (file: string, fixtureName: string) =>
    fail(
      'fixture_orphan_headers',
      `The fixture headers ${file} belong to no fixture: put ${fixtureName} beside it (a fixture cannot be named "headers").`,
    ),
  fixtureHeadersNotObject: (file: string) =>
    fail(
      'fixture_bad_headers',
      `The fixture headers ${file} must be a JSON object of header name → value, such as {"ETag": "\\"v2\\""}.`,
    ),
  fixtureBadHeader: (file: string, name: string, problem: string) =>
    fail('fixture_bad_headers', `The fixture headers ${file}: the header "${name}" ${problem}.`),
  fixtureDuplicateHeader: (file: string, name: string) =>
    fail(
      'fixture_duplicate_header',
      `The fixture headers ${file} set the header "${name}" twice (header names are case-insensitive).`,
    ),
  fixtureHeadersMismatch: (file: string, status: string, operationId: string, problems: readonly string[]) =>
    fail(
      'fixture_headers_mismatch',
      `The fixture headers ${file} do not match the headers the ${status} response of ${operationId} declares: ${problems.join('; ')}.`,
    ),
  /** `where` names the file and the place of the placeholder in it. */
  templateBadExpression: (written: string, where: string, problem?: string) =>
    fail(
      'template_bad_expression',
      `${where}: "${written}" is not a template expression${problem ? ` (${problem})` : ''}; use request.body.<field>, request.params.<name>, request.query.<name>, request.headers.<name>, request.method or request.path.`,
    ),
  templateNeverMatches: (written: string, where: string, why: string, meant?: string) =>
    fail(
      'template_never_matches',
      `${where}: "${written}" never matches a valid request: ${why}${meant ? `; did you mean ${meant}?` : '.'}`,
    ),
}
