import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { parseDelay } from '../resolve-options.js'
import { startupErrors } from '../errors.js'
import { findResponse, settleExamples } from '../responses/declared-responses.js'
import { FAULTS, type Fault, type Scenario, type ScenarioRule, type ScenarioTarget } from './scenarios.js'
import { isPlainObject } from '../internal/plain-object.js'

const FILE_NAMES = ['scenarios.yaml', 'scenarios.yml', 'scenarios.json']
const RULE_KEYS = new Set(['status', 'example', 'fixture', 'dynamic', 'delay', 'fault'])

/**
 * Reads the user's scenarios from `<fixtures>/scenarios.yaml` (or `.yml` / `.json`):
 * ```yaml
 * duplicate-plant:
 *   description: Every new plant is refused as a duplicate
 *   rules:
 *     addPlant: { status: 400, example: duplicate-id }   # operationId, or "POST /plants", or "*"
 * ```
 * Every rule is checked against the description now, so that a typo fails at start-up, not in a test.
 */
export async function loadScenarios(fixturesDir: string, operations: readonly ScenarioTarget[]): Promise<Scenario[]> {
  const found = fixturesDir ? await readFirst(FILE_NAMES.map((name) => join(fixturesDir, name))) : undefined
  if (!found) return []
  const { file, text } = found
  let parsed: unknown
  try {
    parsed = parseYaml(text, { uniqueKeys: true })
  } catch (error) {
    throw startupErrors.scenarioFileNotYaml(file, (error as Error).message)
  }
  if (parsed === null || parsed === undefined) return []
  if (!isPlainObject(parsed)) throw startupErrors.scenarioFileNotMap(file)
  return Object.entries(parsed).map(([name, definition]) => readScenario(file, name, definition, operations))
}

function readScenario(
  file: string,
  name: string,
  definition: unknown,
  operations: readonly ScenarioTarget[],
): Scenario {
  const where = `In ${file}, scenario "${name}"`
  if (!/^[A-Za-z0-9][\w.-]*$/.test(name)) throw startupErrors.scenarioBadName(where)
  if (!isPlainObject(definition) || !isPlainObject(definition.rules)) throw startupErrors.scenarioNoRules(where)
  const rules: Array<ScenarioRule | undefined> = []
  // "*" applies first; a rule naming the operation then overrides it field by field, whatever the file's order.
  const entries = Object.entries(definition.rules).sort(([a], [b]) => Number(b === '*') - Number(a === '*'))
  for (const [key, raw] of entries) {
    const targets = key === '*' ? operations : operations.filter((o) => o.id === key || `${o.method} ${o.path}` === key)
    if (targets.length === 0) {
      throw startupErrors.scenarioUnknownOperation(
        where,
        key,
        operations.map((o) => o.id),
      )
    }
    for (const target of targets)
      rules[target.index] = { ...rules[target.index], ...readRule(`${where}, rule "${key}"`, raw, target) }
  }
  const description = typeof definition.description === 'string' ? definition.description : ''
  return { name, description, builtIn: false, rules }
}

function readRule(where: string, raw: unknown, operation: ScenarioTarget): ScenarioRule {
  if (!isPlainObject(raw)) throw startupErrors.scenarioBadRule(where)
  const unknown = Object.keys(raw).filter((k) => !RULE_KEYS.has(k))
  if (unknown.length) throw startupErrors.scenarioUnknownRuleField(where, unknown, [...RULE_KEYS])
  const rule: ScenarioRule = {}
  if (raw.status !== undefined) rule.status = readStatus(where, raw.status, operation)
  const example = raw.example ?? raw.fixture
  if (example !== undefined) rule.example = readExample(where, String(example), rule.status, operation)
  if (raw.dynamic !== undefined) {
    if (typeof raw.dynamic !== 'boolean') throw startupErrors.scenarioBadDynamic(where)
    rule.dynamic = raw.dynamic
  }
  if (raw.delay !== undefined) rule.delay = withContext(where, () => parseDelay(raw.delay as string))
  if (raw.fault !== undefined) {
    if (!FAULTS.includes(raw.fault as Fault)) throw startupErrors.scenarioBadFault(where, FAULTS)
    rule.fault = raw.fault as Fault
  }
  return rule
}

function readStatus(where: string, value: unknown, operation: ScenarioTarget): number {
  const status = Number(value)
  if (!Number.isInteger(status) || status < 100 || status > 599) throw startupErrors.scenarioBadStatus(where, value)
  if (!findResponse(operation.responses.declared, status)) {
    const declared = operation.responses.declared.map((r) => r.code)
    throw startupErrors.scenarioUndeclaredStatus(where, operation.id, status, declared)
  }
  return status
}

function readExample(where: string, name: string, status: number | undefined, operation: ScenarioTarget): string {
  const responses =
    status === undefined ? operation.responses.declared : [findResponse(operation.responses.declared, status)!]
  responses.forEach(settleExamples)
  if (responses.some((r) => r.bodies.has(name))) return name
  const known = responses.flatMap((r) => [...r.bodies.keys()].map((n) => `${n} (${r.code})`))
  throw startupErrors.scenarioUnknownExample(where, operation.id, name, status, known)
}

function withContext<T>(where: string, read: () => T): T {
  try {
    return read()
  } catch (error) {
    throw startupErrors.scenarioBadDelay(where, (error as Error).message)
  }
}

async function readFirst(files: string[]): Promise<{ file: string; text: string } | undefined> {
  for (const file of files) {
    try {
      return { file, text: await readFile(file, 'utf8') }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw startupErrors.scenarioFileUnreadable(file, (error as Error).message)
    }
  }
  return undefined
}
