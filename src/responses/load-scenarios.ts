import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { parseDelay } from '../config.js'
import { StartupError } from '../errors.js'
import { findResponse, settleExamples } from './declared-responses.js'
import { FAULTS, type Fault, type Scenario, type ScenarioRule, type ScenarioTarget } from './scenarios.js'
import { isPlainObject } from '../plain-object.js'

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
    throw new StartupError(`The scenarios file ${file} is not valid YAML or JSON: ${(error as Error).message}`)
  }
  if (parsed === null || parsed === undefined) return []
  if (!isPlainObject(parsed))
    throw new StartupError(`The scenarios file ${file} must map scenario names to { description, rules }.`)
  return Object.entries(parsed).map(([name, definition]) => readScenario(file, name, definition, operations))
}

function readScenario(
  file: string,
  name: string,
  definition: unknown,
  operations: readonly ScenarioTarget[],
): Scenario {
  const where = `In ${file}, scenario "${name}"`
  if (!/^[A-Za-z0-9][\w.-]*$/.test(name))
    throw new StartupError(`${where}: a name may hold letters, digits, ".", "_" and "-" only.`)
  if (!isPlainObject(definition) || !isPlainObject(definition.rules))
    throw new StartupError(`${where}: needs "rules", a map from operation to rule.`)
  const rules: Array<ScenarioRule | undefined> = []
  // "*" applies first; a rule naming the operation then overrides it field by field, whatever the file's order.
  const entries = Object.entries(definition.rules).sort(([a], [b]) => Number(b === '*') - Number(a === '*'))
  for (const [key, raw] of entries) {
    const targets = key === '*' ? operations : operations.filter((o) => o.id === key || `${o.method} ${o.path}` === key)
    if (targets.length === 0) {
      throw new StartupError(
        `${where}: "${key}" names no operation; use an operationId, "METHOD /path" or "*" (known: ${operations.map((o) => o.id).join(', ')}).`,
      )
    }
    for (const target of targets)
      rules[target.index] = { ...rules[target.index], ...readRule(`${where}, rule "${key}"`, raw, target) }
  }
  const description = typeof definition.description === 'string' ? definition.description : ''
  return { name, description, builtIn: false, rules }
}

function readRule(where: string, raw: unknown, operation: ScenarioTarget): ScenarioRule {
  if (!isPlainObject(raw))
    throw new StartupError(`${where}: a rule is a map such as { status: 400, example: duplicate-id }.`)
  const unknown = Object.keys(raw).filter((k) => !RULE_KEYS.has(k))
  if (unknown.length)
    throw new StartupError(
      `${where}: unknown field(s) ${unknown.join(', ')}; a rule takes ${[...RULE_KEYS].join(', ')}.`,
    )
  const rule: ScenarioRule = {}
  if (raw.status !== undefined) rule.status = readStatus(where, raw.status, operation)
  const example = raw.example ?? raw.fixture
  if (example !== undefined) rule.example = readExample(where, String(example), rule.status, operation)
  if (raw.dynamic !== undefined) {
    if (typeof raw.dynamic !== 'boolean') throw new StartupError(`${where}: "dynamic" is true or false.`)
    rule.dynamic = raw.dynamic
  }
  if (raw.delay !== undefined) rule.delay = withContext(where, () => parseDelay(raw.delay as string))
  if (raw.fault !== undefined) {
    if (!FAULTS.includes(raw.fault as Fault))
      throw new StartupError(`${where}: "fault" is one of ${FAULTS.join(', ')}.`)
    rule.fault = raw.fault as Fault
  }
  return rule
}

function readStatus(where: string, value: unknown, operation: ScenarioTarget): number {
  const status = Number(value)
  if (!Number.isInteger(status) || status < 100 || status > 599)
    throw new StartupError(`${where}: "status" must be an HTTP status, got ${JSON.stringify(value)}.`)
  if (!findResponse(operation.responses.declared, status)) {
    const declared = operation.responses.declared.map((r) => r.code).join(', ')
    throw new StartupError(
      `${where}: ${operation.id} does not declare status ${status} (declared: ${declared || 'none'}).`,
    )
  }
  return status
}

function readExample(where: string, name: string, status: number | undefined, operation: ScenarioTarget): string {
  const responses =
    status === undefined ? operation.responses.declared : [findResponse(operation.responses.declared, status)!]
  responses.forEach(settleExamples)
  if (responses.some((r) => r.bodies.has(name))) return name
  const known = responses.flatMap((r) => [...r.bodies.keys()].map((n) => `${n} (${r.code})`))
  throw new StartupError(
    `${where}: ${operation.id} has no fixture or example named "${name}"${status ? ` for status ${status}` : ''} (known: ${known.join(', ') || 'none'}).`,
  )
}

function withContext<T>(where: string, read: () => T): T {
  try {
    return read()
  } catch (error) {
    throw new StartupError(`${where}: ${(error as Error).message}`)
  }
}

async function readFirst(files: string[]): Promise<{ file: string; text: string } | undefined> {
  for (const file of files) {
    try {
      return { file, text: await readFile(file, 'utf8') }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new StartupError(`Cannot read the scenarios file ${file}: ${(error as Error).message}`)
    }
  }
  return undefined
}
