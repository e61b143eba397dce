import { join } from 'pathe'
import { LosslessNumber, parse as parseLosslessJson } from 'lossless-json'
import { StartupError, startupErrors } from '../errors/index.js'
import { RuleProblem } from '../errors/rule.js'
import { readRule } from '../rules/read-rule.js'
import { loadLinearEngine } from '../validation/compile-pattern.js'
import { parseJsonOrYaml } from '../internal/yaml-parser.js'
import type { RuleBook } from '../rules/rule-targets.js'
import { type AnswerRule, isPlain } from '../rules/rule.js'
import type { Scenario } from './scenarios.js'
import { isPlainObject } from '../internal/plain-object.js'
import type { Files } from '../common/files.js'
import { readFirstFile } from '../common/read-first-file.js'
import { isOperationNamed } from '../internal/operation-name.js'

const FILE_NAMES = ['scenarios.yaml', 'scenarios.yml', 'scenarios.json']

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
export async function loadScenarios(fixturesDir: string, files: Files, book: RuleBook): Promise<Scenario[]> {
  const found = fixturesDir
    ? await readFirstFile(
        FILE_NAMES.map((name) => join(fixturesDir, name)),
        files,
        startupErrors.scenarioFileUnreadable,
      )
    : undefined
  if (!found) return []
  const { file, text } = found
  let parsed: unknown
  try {
    parsed = await parseScenarioFile(text)
  } catch (error) {
    throw startupErrors.scenarioFileNotYaml(file, (error as Error).message)
  }
  if (parsed === null || parsed === undefined) return []
  if (!isPlainObject(parsed)) throw startupErrors.scenarioFileNotMap(file)
  // A browser loads RE2 for rules with `matches` only (Node has it from start-up).
  if (mentionsKey(parsed, 'matches')) await loadLinearEngine()
  return Object.entries(parsed).map(([name, definition]) => readScenario(file, name, definition, book))
}

/** Whether a key named `key` is anywhere in `value`. */
function mentionsKey(value: unknown, key: string): boolean {
  const stack = [value]
  // A YAML alias may make the same object appear twice, or inside itself.
  const seen = new Set<object>()
  while (stack.length) {
    const next = stack.pop()
    if (typeof next !== 'object' || next === null || seen.has(next)) continue
    seen.add(next)
    if (!Array.isArray(next) && Object.hasOwn(next, key)) return true
    for (const inner of Object.values(next)) stack.push(inner)
  }
  return false
}

/**
 * The file's value; integers beyond 2^53 keep every digit (a condition may compare an int64 id). JSON
 * (a bundle's scenarios) by lossless-json, which refuses a repeated key as the YAML parser does; else
 * YAML, whose parser also explains what neither reads.
 */
function parseScenarioFile(text: string): Promise<unknown> {
  return parseJsonOrYaml(
    text,
    { uniqueKeys: true, intAsBigInt: true },
    { json: (json) => parseLosslessJson(json, undefined, exactNumber), reviver: exactIntegers },
  )
}

function exactNumber(text: string): number | LosslessNumber {
  const number = Number(text)
  return /^-?\d+$/.test(text) && !Number.isSafeInteger(number) ? new LosslessNumber(text) : number
}

/** Integers as numbers where they are exact, as lossless-json's `LosslessNumber` beyond 2^53. */
function exactIntegers(_key: unknown, value: unknown): unknown {
  if (typeof value !== 'bigint') return value
  const number = Number(value)
  return Number.isSafeInteger(number) ? number : new LosslessNumber(value.toString())
}

function readScenario(file: string, name: string, definition: unknown, book: RuleBook): Scenario {
  const where = `In ${file}, scenario "${name}"`
  if (!/^[A-Za-z0-9][\w.-]*$/.test(name)) throw startupErrors.scenarioBadName(where)
  if (!isPlainObject(definition) || !isPlainObject(definition.rules)) throw startupErrors.scenarioNoRules(where)
  const { targets } = book
  const rules: Array<AnswerRule[] | undefined> = []
  // "*" is read first; an operation's own rules then come before it, whatever the file's order.
  const entries = Object.entries(definition.rules).sort(([a], [b]) => Number(b === '*') - Number(a === '*'))
  for (const [key, raw] of entries) {
    const matched = key === '*' ? targets : targets.filter((o) => isOperationNamed(o, key))
    if (matched.length === 0) {
      throw startupErrors.scenarioUnknownOperation(
        where,
        key,
        targets.map((o) => o.id),
      )
    }
    const written = Array.isArray(raw) ? raw : [raw]
    for (const target of matched) {
      const own = written.map((rule, index) => {
        // A "*" rule is read for each operation: its label names which, so that hits and answers tell them apart.
        const label = `scenario ${name}, ${key === '*' ? `* rule ${index + 1} for ${target.id}` : `${key} rule ${index + 1}`}`
        try {
          return readRule(rule, target, book.reading, label)
        } catch (error) {
          if (!(error instanceof RuleProblem)) throw error
          const at = Array.isArray(raw) ? `${where}, rule "${key}" #${index + 1}` : `${where}, rule "${key}"`
          throw new StartupError(error.code, `${at}: ${error.message}`)
        }
      })
      rules[target.index] = combine(own, rules[target.index])
    }
  }
  const description = typeof definition.description === 'string' ? definition.description : ''
  return { name, description, builtIn: false, rules }
}

/**
 * An operation's own rules come first, those of "*" after them. Where both are one plain rule, they
 * are one rule, the operation's fields over those of "*" (as scenarios were read before lists).
 */
function combine(own: AnswerRule[], forAll: AnswerRule[] | undefined): AnswerRule[] {
  if (!forAll) return own
  if (own.length === 1 && forAll.length === 1 && isPlain(own[0]!) && isPlain(forAll[0]!))
    return [{ label: own[0]!.label, answer: { ...forAll[0]!.answer, ...own[0]!.answer } }]
  return [...own, ...forAll]
}
