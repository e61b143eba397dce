import { MockError } from './mock-error.js'
import { StartupError } from './startup-error.js'

const fail = (code: ConstructorParameters<typeof StartupError>[0], message: string) => new StartupError(code, message)

/** Stateful mode (`--stateful`): what the data makes of a request, and admin calls on the data. */
export const stateErrors = {
  /** A create whose key is taken: the operation's declared 409, else its violation status. */
  recordExists: (status: number, resource: string, id: string) =>
    new MockError(status, 'record_exists', `A ${singular(resource)} with id ${id} already exists.`),
  /** A read, update or delete of a key that is not there: the declared 404, else 404. */
  recordMissing: (resource: string, id: string) =>
    new MockError(404, 'record_missing', `There is no ${singular(resource)} with id ${id}.`),
  /** A create beyond `--state-limit`: the operation's violation status. */
  recordLimit: (status: number, resource: string, limit: number) =>
    new MockError(
      status,
      'record_limit',
      `The mock keeps at most ${limit} ${resource} per session (--state-limit); delete some or reset the state.`,
    ),
  /** A list cursor the mock did not hand out. */
  badListCursor: (status: number, parameter: string, text: string) =>
    new MockError(
      status,
      'invalid_request',
      `query.${parameter} must be a cursor from a previous page, got "${text}".`,
      {
        details: [{ path: `query.${parameter}`, message: 'is not a cursor from a previous page' }],
      },
    ),
  unknownResource: (name: string, known: readonly string[]) =>
    new MockError(
      404,
      'invalid_admin_request',
      `There is no resource "${name}"; resources: ${known.join(', ') || 'none (is --stateful on?)'}.`,
    ),
  /** `PUT /__mock/state/{resource}` or `mock.state.set` with records that break the resource's schema. */
  badRecords: (where: string, problems: readonly string[]) =>
    new MockError(400, 'invalid_admin_request', `${where}: ${problems.slice(0, 5).join('; ')}.`),
  /** The shared store (`--store`) did not answer: the request needs it, so it is not done (#32). */
  storeUnavailable: (where: string, reason: string) =>
    new MockError(
      503,
      'store_unavailable',
      `The mock's store at ${where} does not answer (${reason}), so this request, which needs it, was not done; try again once it is back.`,
    ),
  /** A replace or merge whose record other replicas kept changing between its read and its write. */
  storeBusy: (resource: string, id: string) =>
    new MockError(
      503,
      'store_unavailable',
      `The ${singular(resource)} ${id} kept changing through other replicas while this request wrote it; try again.`,
    ),
  notStateful: () =>
    new MockError(
      409,
      'invalid_admin_request',
      'The mock runs without --stateful: it keeps no data. Start it with --stateful (MOCK_STATEFUL=true).',
    ),
}

/** What start-up refuses of seed data (`fixtures/data/<resource>.json`), the state file and `--state-limit`. */
export const stateStartupErrors = {
  seedUnreadable: (file: string, reason: string) => fail('state_seed_unreadable', `Cannot read ${file}: ${reason}`),
  seedInvalid: (file: string, problem: string) => fail('state_seed_invalid', `${file}: ${problem}`),
  seedUnknownResource: (file: string, resource: string, known: readonly string[]) =>
    fail(
      'state_seed_unknown_resource',
      `${file}: there is no resource "${resource}" in the description; resources: ${known.join(', ') || 'none'}.`,
    ),
  stateFileUnreadable: (file: string, reason: string) =>
    fail('state_file_unreadable', `Cannot read the state file ${file}: ${reason}. It is left as it is.`),
  stateFileInvalid: (file: string, problem: string) =>
    fail(
      'state_file_invalid',
      `The state file ${file} is not the mock's: ${problem}. It is left as it is; move it away or fix it.`,
    ),
  optionBadStateLimit: (value: unknown) =>
    fail('option_bad_state_limit', `stateLimit must be a whole number from 1 up, got ${String(value)}.`),
}

/** `plants` → `plant`, for messages only: `A plant with id 1 already exists.` */
function singular(resource: string): string {
  const last = resource.slice(resource.lastIndexOf('/') + 1)
  if (/ies$/.test(last)) return `${last.slice(0, -3)}y`
  if (/(ss|x|ch|sh)es$/.test(last)) return last.slice(0, -2)
  if (/[^s]s$/.test(last)) return last.slice(0, -1)
  return last
}
