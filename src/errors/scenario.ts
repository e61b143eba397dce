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
      `The scenario "${name}" is defined twice (built-in names: default, error, unauthorized, dynamic). Of the built-in ones, a scenarios file may define only default, to give it rules.`,
    ),
  scenarioNoRules: (where: string) =>
    fail('scenario_no_rules', `${where}: needs "rules", a map from operation to rule.`),
  scenarioUnknownOperation: (where: string, key: string, known: readonly string[]) =>
    fail(
      'scenario_unknown_operation',
      `${where}: "${key}" names no operation; use an operationId, "METHOD /path" or "*" (known: ${known.join(', ')}).`,
    ),
}
