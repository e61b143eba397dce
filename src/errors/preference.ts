import { MockError } from './mock-error.js'

const refuse = (status: number, message: string) => new MockError(status, 'undeclared_preference', message)

/**
 * A `Prefer` header or query control (`?__code=`) the operation cannot follow. `status` is the
 * operation's (see `violationStatus`); `written` is the control as the client wrote it (`Prefer: code=`, `?__code=`).
 */
export const preferenceErrors = {
  badPreferValidate: (status: number) =>
    refuse(status, 'Prefer: validate= must be strict, report or off (or true, false).'),
  badPreferDelay: (status: number) =>
    refuse(status, 'Prefer: delay= must be a whole number of milliseconds, at most 600000.'),
  badPreferStream: (status: number) =>
    refuse(
      status,
      'Prefer: stream-items= must be a whole number from 1 to 1000, and stream-interval= of milliseconds from 0 to 10000.',
    ),
  badPreferCode: (status: number, written: string) => refuse(status, `${written} must be an HTTP status such as 400.`),
  /** 404, as Prism answers it: the status asked for is not in the description (#30). */
  undeclaredPreferredCode: (written: string, code: number, operationId: string, declared: string) =>
    refuse(404, `${written}${code} names a status that ${operationId} does not declare (declared: ${declared}).`),
  /** 404, as Prism answers it: no example of that name is in the description (#30). */
  unknownExample: (written: string, name: string, operationId: string, anyStatus: boolean, known: readonly string[]) =>
    refuse(
      404,
      `${written}${name} matches no fixture or example of ${operationId}${anyStatus ? '' : ` for that status`} (available: ${known.join(', ') || 'none'}).`,
    ),
}

/**
 * `?__dynamic=` neither true nor false, as `readQueryPreferences` keeps it (`Preferences.problem`):
 * told with `errors.undeclaredPreference` once the operation's status is known.
 */
export function queryDynamicProblem(value: string): string {
  return `__dynamic= must be true or false, got "${value.slice(0, 64)}".`
}
