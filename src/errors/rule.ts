import type { StartupErrorCode } from './startup-error.js'

/**
 * A rule or stub written wrong. The message says what, not where: a scenarios file adds the file,
 * scenario and rule and stops start-up (`code`); `POST /__mock/stubs` answers 400 with it.
 */
export class RuleProblem extends Error {
  constructor(
    readonly code: StartupErrorCode,
    message: string,
  ) {
    super(message)
    this.name = 'RuleProblem'
  }
}

const problem = (code: StartupErrorCode, message: string) => new RuleProblem(code, message)

/** What can be wrong with one rule (a scenario's or a stub's), by the field that is. */
export const ruleProblems = {
  notMap: () => problem('scenario_bad_rule', 'a rule is a map such as { status: 400, example: duplicate-id }.'),
  unknownField: (unknown: readonly string[], keys: readonly string[]) =>
    problem('scenario_unknown_rule_field', `unknown field(s) ${unknown.join(', ')}; a rule takes ${keys.join(', ')}.`),
  badStatus: (value: unknown) =>
    problem('scenario_bad_status', `"status" must be an HTTP status, got ${JSON.stringify(value)}.`),
  undeclaredStatus: (operationId: string, status: number, declared: readonly string[]) =>
    problem(
      'scenario_undeclared_status',
      `${operationId} does not declare status ${status} (declared: ${declared.join(', ') || 'none'}).`,
    ),
  unknownExample: (operationId: string, name: string, status: number | undefined, known: readonly string[]) =>
    problem(
      'scenario_unknown_example',
      `${operationId} has no fixture or example named "${name}"${status ? ` for status ${status}` : ''} (known: ${known.join(', ') || 'none'}).`,
    ),
  badDynamic: () => problem('scenario_bad_dynamic', '"dynamic" is true or false.'),
  /** `reason` is the message of the delay's own error. */
  badDelay: (reason: string) => problem('scenario_bad_delay', reason),
  badFault: (faults: readonly string[]) => problem('scenario_bad_fault', `"fault" is one of ${faults.join(', ')}.`),
  badStream: (reason: string) =>
    problem(
      'scenario_bad_stream',
      `"stream" is an object of items (1 to 1000), interval (0 to 10000 ms), and at most one of cut, stall or malformed (an item number), or end (complete, cut or stall after its items): ${reason}.`,
    ),
  badCondition: (message: string) => problem('scenario_bad_condition', `${message}.`),
  badTimes: (value: unknown) =>
    problem('scenario_bad_times', `"times" is a whole number from 1 up, got ${JSON.stringify(value)}.`),
  badSequence: (message: string) => problem('scenario_bad_sequence', message),
  bodyAndExample: () =>
    problem(
      'scenario_bad_body',
      'a rule answers either a named "example" (or "fixture") or an inline "body", not both.',
    ),
  badBody: (message: string) => problem('scenario_bad_body', message),
  bodyWithoutContent: (operationId: string, status: number) =>
    problem(
      'scenario_bad_body',
      `${operationId} declares no JSON content for status ${status}: "body" has nowhere to go.`,
    ),
  bodyBreaksSchema: (operationId: string, status: number, problems: readonly string[]) =>
    problem(
      'scenario_bad_body',
      `"body" breaks the schema of ${operationId}'s ${status} response: ${problems.join('; ')} (send "force": true to answer it anyway).`,
    ),
  badHeaders: (message: string) => problem('scenario_bad_headers', message),
  badFrom: (message: string) => problem('scenario_bad_from', message),
  badValidate: () => problem('scenario_bad_validate', '"validate" is true or false.'),
}
