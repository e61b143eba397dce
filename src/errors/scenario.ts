import { StartupError, type StartupErrorCode } from './startup-error.js'

const fail = (code: StartupErrorCode, message: string) => new StartupError(code, message)

/** What is wrong with a scenarios file, or with the scenario to start with. `where` names the file and the scenario. */
export const scenarioErrors = {
  scenarioUnknown: (name: string, known: readonly string[]) =>
    fail('scenario_unknown', `There is no scenario "${name}"; known scenarios: ${known.join(', ')}.`),
  startScenarioUnknown: (name: string, known: readonly string[]) =>
    fail('scenario_unknown', `There is no scenario "${name}" to start with; known scenarios: ${known.join(', ')}.`),
  scenarioFileUnreadable: (file: string, reason: string) =>
    fail('scenario_file_unreadable', `Cannot read the scenarios file ${file}: ${reason}`),
  scenarioFileNotYaml: (file: string, reason: string) =>
    fail('scenario_file_not_yaml', `The scenarios file ${file} is not valid YAML or JSON: ${reason}`),
  scenarioFileNotMap: (file: string) =>
    fail('scenario_file_not_map', `The scenarios file ${file} must map scenario names to { description, rules }.`),
  scenarioBadName: (where: string) =>
    fail('scenario_bad_name', `${where}: a name may hold letters, digits, ".", "_" and "-" only.`),
  scenarioDefinedTwice: (name: string) =>
    fail(
      'scenario_defined_twice',
      `The scenario "${name}" is defined twice (built-in names: default, error, unauthorized, dynamic).`,
    ),
  scenarioNoRules: (where: string) =>
    fail('scenario_no_rules', `${where}: needs "rules", a map from operation to rule.`),
  scenarioUnknownOperation: (where: string, key: string, known: readonly string[]) =>
    fail(
      'scenario_unknown_operation',
      `${where}: "${key}" names no operation; use an operationId, "METHOD /path" or "*" (known: ${known.join(', ')}).`,
    ),
  scenarioBadRule: (where: string) =>
    fail('scenario_bad_rule', `${where}: a rule is a map such as { status: 400, example: duplicate-id }.`),
  scenarioUnknownRuleField: (where: string, unknown: readonly string[], keys: readonly string[]) =>
    fail(
      'scenario_unknown_rule_field',
      `${where}: unknown field(s) ${unknown.join(', ')}; a rule takes ${keys.join(', ')}.`,
    ),
  scenarioBadStatus: (where: string, value: unknown) =>
    fail('scenario_bad_status', `${where}: "status" must be an HTTP status, got ${JSON.stringify(value)}.`),
  scenarioUndeclaredStatus: (where: string, operationId: string, status: number, declared: readonly string[]) =>
    fail(
      'scenario_undeclared_status',
      `${where}: ${operationId} does not declare status ${status} (declared: ${declared.join(', ') || 'none'}).`,
    ),
  scenarioUnknownExample: (
    where: string,
    operationId: string,
    name: string,
    status: number | undefined,
    known: readonly string[],
  ) =>
    fail(
      'scenario_unknown_example',
      `${where}: ${operationId} has no fixture or example named "${name}"${status ? ` for status ${status}` : ''} (known: ${known.join(', ') || 'none'}).`,
    ),
  scenarioBadDynamic: (where: string) => fail('scenario_bad_dynamic', `${where}: "dynamic" is true or false.`),
  /** `reason` is the message of the delay's own error. */
  scenarioBadDelay: (where: string, reason: string) => fail('scenario_bad_delay', `${where}: ${reason}`),
  scenarioBadFault: (where: string, faults: readonly string[]) =>
    fail('scenario_bad_fault', `${where}: "fault" is one of ${faults.join(', ')}.`),
}
