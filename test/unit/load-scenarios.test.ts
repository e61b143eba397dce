/**
 * The scenarios file (`<fixtures>/scenarios.yaml | .yml | .json`): its format, and every mistake
 * that must stop start-up with a message naming the file, the scenario and the rule (#3 §1).
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { StartupError, StartupErrorCode } from '../../src/errors/index.js'
import type { DeclaredResponse } from '../../src/responses/declared-responses.js'
import { loadScenarios } from '../../src/scenarios/load-scenarios.js'
import { nodePlatform } from '../../src/node/node-platform.js'
import type { Scenario } from '../../src/scenarios/scenarios.js'
import type { ScenarioTarget } from '../../src/rules/rule.js'
import type { RuleBook } from '../../src/rules/rule-targets.js'
import { createAjv } from '../../src/validation/create-ajv.js'
import { silentLogger } from '../../src/common/log.js'
import { removeTempDirs, tempDirSync } from '../support/temp-dirs.js'
import { expectStartupError } from '../support/startup-error.js'

function response(code: string, names: string[] = []): DeclaredResponse {
  return {
    code,
    mediaType: 'application/json',
    bodies: new Map(names.map((name) => [name, { name, origin: 'fixture' as const, json: '{}' }])),
  }
}

/** POST /plants declares 200 (default, monstera) and 400 (default, duplicate-id); GET /plants only 200. */
const operations: ScenarioTarget[] = [
  {
    index: 0,
    id: 'addPlant',
    method: 'POST',
    path: '/plants',
    secured: true,
    responses: {
      declared: [response('200', ['default', 'monstera']), response('400', ['default', 'duplicate-id'])],
      violationStatus: 400,
    },
  },
  {
    index: 1,
    id: 'listPlants',
    method: 'GET',
    path: '/plants',
    secured: false,
    responses: { declared: [response('200', ['default'])], violationStatus: 422 },
  },
]

/** The operations as rules are read against them: no request body, no path parameters, no declared headers. */
const book: RuleBook = {
  targets: operations.map((operation) => ({
    ...operation,
    description: {
      id: operation.id,
      fixtureKey: operation.id,
      method: operation.method,
      path: operation.path,
      parameters: [],
      responses: [],
      security: [],
      securityPointer: '',
    },
    stateful: false,
    conditions: { document: {}, bodySchema: undefined, pathParameters: [] },
  })),
  reading: { headers: { document: {}, ajv: createAjv(), logger: silentLogger }, requestDocument: {} },
}

/** What a scenario's one rule for the operation at `index` answers. */
function answerOf(scenario: Scenario | undefined, index: number) {
  const rules = scenario?.rules[index]
  expect(rules).toHaveLength(1)
  return rules![0]!.answer
}

/** What each operation's one rule answers (`undefined`: the operation has none). */
const answersOf = (scenario: Scenario | undefined) => scenario?.rules.map((rules) => rules?.[0]?.answer)

afterEach(removeTempDirs)

/** A fresh fixtures folder holding the given files. */
const fixturesWith = (files: Record<string, string>): string => tempDirSync('scenarios-', files)

function load(yaml: string) {
  return loadScenarios(fixturesWith({ 'scenarios.yaml': yaml }), nodePlatform.files, book)
}

/** The StartupError loading this scenarios file stops with, having asserted its code. */
function startupError(yaml: string, code: StartupErrorCode): Promise<StartupError> {
  return expectStartupError(load(yaml), code)
}

describe('loadScenarios: the file', () => {
  it('finds no scenarios when the fixtures folder has no scenarios file', async () => {
    expect(await loadScenarios(fixturesWith({}), nodePlatform.files, book)).toEqual([])
  })

  it('finds no scenarios when there is no fixtures folder', async () => {
    expect(await loadScenarios('', nodePlatform.files, book)).toEqual([])
  })

  it('finds no scenarios in an empty scenarios file', async () => {
    expect(await load('')).toEqual([])
  })

  it('reads scenarios.yaml', async () => {
    const [scenario] = await load(
      'refuse:\n  description: No plant is welcome\n  rules:\n    addPlant: { status: 400 }\n',
    )
    expect(scenario).toEqual({
      name: 'refuse',
      description: 'No plant is welcome',
      builtIn: false,
      rules: [[{ label: 'scenario refuse, addPlant rule 1', answer: { status: 400 } }]],
    })
  })

  it('reads scenarios.yml', async () => {
    const scenarios = await loadScenarios(
      fixturesWith({ 'scenarios.yml': 'refuse:\n  rules:\n    addPlant: { status: 400 }\n' }),
      nodePlatform.files,
      book,
    )
    expect(scenarios.map((s) => s.name)).toEqual(['refuse'])
  })

  it('reads scenarios.json', async () => {
    const json = JSON.stringify({ refuse: { rules: { addPlant: { status: 400 } } } })
    const [scenario] = await loadScenarios(fixturesWith({ 'scenarios.json': json }), nodePlatform.files, book)
    expect(answerOf(scenario, 0)).toEqual({ status: 400 })
  })

  it('prefers scenarios.yaml to scenarios.yml and scenarios.json', async () => {
    const dir = fixturesWith({
      'scenarios.yaml': 'from-yaml:\n  rules: {}\n',
      'scenarios.yml': 'from-yml:\n  rules: {}\n',
      'scenarios.json': '{"from-json":{"rules":{}}}',
    })
    expect((await loadScenarios(dir, nodePlatform.files, book)).map((s) => s.name)).toEqual(['from-yaml'])
  })

  it('gives a scenario without a description an empty one', async () => {
    const [scenario] = await load('quiet:\n  rules: {}\n')
    expect(scenario?.description).toBe('')
  })

  it('keeps the scenarios in file order', async () => {
    const scenarios = await load('b:\n  rules: {}\na:\n  rules: {}\nc:\n  rules: {}\n')
    expect(scenarios.map((s) => s.name)).toEqual(['b', 'a', 'c'])
  })

  it('leaves operations without a rule unchanged', async () => {
    const [scenario] = await load('refuse:\n  rules:\n    addPlant: { status: 400 }\n')
    expect(scenario?.rules[1]).toBeUndefined()
  })
})

describe('loadScenarios: rules', () => {
  it('names an operation by its operationId', async () => {
    const [scenario] = await load('s:\n  rules:\n    listPlants: { dynamic: true }\n')
    expect(answersOf(scenario)).toEqual([undefined, { dynamic: true }])
  })

  it('names an operation as "METHOD /path"', async () => {
    const [scenario] = await load('s:\n  rules:\n    "GET /plants": { dynamic: true }\n')
    expect(answersOf(scenario)).toEqual([undefined, { dynamic: true }])
  })

  it('applies a "*" rule to every operation', async () => {
    const [scenario] = await load('s:\n  rules:\n    "*": { delay: 100 }\n')
    expect(answersOf(scenario)).toEqual([{ delay: { min: 100, max: 100 } }, { delay: { min: 100, max: 100 } }])
  })

  it('merges an operation rule over the "*" rule field by field', async () => {
    const [scenario] = await load(
      's:\n  rules:\n    "*": { delay: 100, fault: hang }\n    addPlant: { status: 400, fault: reset }\n',
    )
    expect(answerOf(scenario, 0)).toEqual({ delay: { min: 100, max: 100 }, status: 400, fault: 'reset' })
    expect(answerOf(scenario, 1)).toEqual({ delay: { min: 100, max: 100 }, fault: 'hang' })
  })

  it('lets an operation rule win over "*" even when "*" comes later in the file', async () => {
    const [scenario] = await load('s:\n  rules:\n    addPlant: { fault: reset }\n    "*": { fault: hang }\n')
    expect(scenario?.rules.map((rules) => rules?.[0]?.answer.fault)).toEqual(['reset', 'hang'])
  })

  it('reads a status with a named fixture of that status', async () => {
    const [scenario] = await load('s:\n  rules:\n    addPlant: { status: 400, example: duplicate-id }\n')
    expect(answerOf(scenario, 0)).toEqual({ status: 400, example: 'duplicate-id' })
  })

  it('reads "fixture" as another spelling of "example"', async () => {
    const [scenario] = await load('s:\n  rules:\n    addPlant: { status: 400, fixture: duplicate-id }\n')
    expect(answerOf(scenario, 0)).toEqual({ status: 400, example: 'duplicate-id' })
  })

  it('finds a named fixture of any status when the rule gives none', async () => {
    const [scenario] = await load('s:\n  rules:\n    addPlant: { example: monstera }\n')
    expect(answerOf(scenario, 0)).toEqual({ example: 'monstera' })
  })

  it('reads a status given as a string', async () => {
    const [scenario] = await load('s:\n  rules:\n    addPlant: { status: "400" }\n')
    expect(answerOf(scenario, 0)).toEqual({ status: 400 })
  })

  it('reads a delay range', async () => {
    const [scenario] = await load('s:\n  rules:\n    addPlant: { delay: 100-250 }\n')
    expect(answerOf(scenario, 0)).toEqual({ delay: { min: 100, max: 250 } })
  })

  it.each(['reset', 'empty', 'malformed', 'hang'])('reads the fault %s', async (fault) => {
    const [scenario] = await load(`s:\n  rules:\n    addPlant: { fault: ${fault} }\n`)
    expect(answerOf(scenario, 0)).toEqual({ fault })
  })

  it('reads dynamic: false', async () => {
    const [scenario] = await load('s:\n  rules:\n    addPlant: { dynamic: false }\n')
    expect(answerOf(scenario, 0)).toEqual({ dynamic: false })
  })
})

describe('loadScenarios: start-up errors', () => {
  it('stops on a file that is not YAML, naming the file', async () => {
    const error = await startupError('s: [unclosed\n', 'scenario_file_not_yaml')
    expect(error.message).toMatch(/scenarios\.yaml/)
  })

  it('stops on a scenario defined twice in one file', async () => {
    const error = await startupError('s:\n  rules: {}\ns:\n  rules: {}\n', 'scenario_file_not_yaml')
    expect(error.message).toMatch(/scenarios\.yaml/)
  })

  it('stops on a file that is a list, not a map of scenarios', async () => {
    const error = await startupError('- s\n', 'scenario_file_not_map')
    expect(error.message).toMatch(/scenarios\.yaml/)
  })

  it('stops on a scenario without rules', async () => {
    const error = await startupError('s:\n  description: nothing\n', 'scenario_no_rules')
    expect(error.message).toContain('scenario "s"')
  })

  it('stops on a scenario name with a space', async () => {
    const error = await startupError('"bad name":\n  rules: {}\n', 'scenario_bad_name')
    expect(error.message).toContain('scenario "bad name"')
  })

  it('stops on a scenario name starting with a dash', async () => {
    const error = await startupError('"-dash":\n  rules: {}\n', 'scenario_bad_name')
    expect(error.message).toMatch(/scenario "-dash"/)
  })

  it('stops on a scenario named __proto__ instead of dropping it', async () => {
    const error = await startupError('__proto__:\n  rules: {}\n', 'scenario_bad_name')
    expect(error.message).toContain('scenario "__proto__"')
  })

  it('stops on a rule keyed __proto__ instead of dropping it', async () => {
    const error = await startupError('s:\n  rules:\n    __proto__: { status: 400 }\n', 'scenario_unknown_operation')
    expect(error.message).toContain('"__proto__"')
  })

  it('stops on a rule for no operation, listing the known operationIds', async () => {
    const error = await startupError('s:\n  rules:\n    addPlants: { status: 400 }\n', 'scenario_unknown_operation')
    expect(error.message).toMatch(/scenario "s": "addPlants" .*known: addPlant, listPlants/)
  })

  it('stops on a "METHOD /path" rule whose method the path does not declare', async () => {
    const error = await startupError(
      's:\n  rules:\n    "DELETE /plants": { status: 400 }\n',
      'scenario_unknown_operation',
    )
    expect(error.message).toContain('"DELETE /plants"')
  })

  it('stops on a rule that is not a map', async () => {
    const error = await startupError('s:\n  rules:\n    addPlant: 400\n', 'scenario_bad_rule')
    expect(error.message).toContain('rule "addPlant"')
  })

  it('stops on an unknown rule field, listing the fields a rule takes', async () => {
    const error = await startupError('s:\n  rules:\n    addPlant: { code: 400 }\n', 'scenario_unknown_rule_field')
    expect(error.message).toMatch(
      /rule "addPlant": unknown field\(s\) code; a rule takes status, example, fixture, body, headers, dynamic, delay, fault, stream, from, when, times, sequence, cycle, validate/,
    )
  })

  it('stops on a status the operation does not declare, listing the declared ones', async () => {
    const error = await startupError('s:\n  rules:\n    addPlant: { status: 404 }\n', 'scenario_undeclared_status')
    expect(error.message).toMatch(/addPlant does not declare status 404 \(declared: 200, 400\)/)
  })

  it('stops on a "*" status that one operation does not declare', async () => {
    const error = await startupError('s:\n  rules:\n    "*": { status: 400 }\n', 'scenario_undeclared_status')
    expect(error.message).toMatch(/rule "\*": listPlants does not declare status 400/)
  })

  it('stops on a status that is not an HTTP status', async () => {
    const error = await startupError('s:\n  rules:\n    addPlant: { status: 4000 }\n', 'scenario_bad_status')
    expect(error.message).toContain('got 4000')
  })

  it('stops on a missing fixture name, listing the known ones', async () => {
    const error = await startupError('s:\n  rules:\n    addPlant: { example: duplicate }\n', 'scenario_unknown_example')
    expect(error.message).toMatch(/addPlant has no fixture or example named "duplicate".*duplicate-id \(400\)/)
  })

  it('stops on a fixture name that exists only under another status', async () => {
    const error = await startupError(
      's:\n  rules:\n    addPlant: { status: 200, example: duplicate-id }\n',
      'scenario_unknown_example',
    )
    expect(error.message).toMatch(/no fixture or example named "duplicate-id" for status 200/)
  })

  it('stops on a delay that is not milliseconds', async () => {
    const error = await startupError('s:\n  rules:\n    addPlant: { delay: soon }\n', 'scenario_bad_delay')
    expect(error.message).toMatch(/rule "addPlant": .*got "soon"/)
  })

  it('stops on a delay range that runs backwards', async () => {
    const error = await startupError('s:\n  rules:\n    addPlant: { delay: 500-100 }\n', 'scenario_bad_delay')
    expect(error.message).toContain('got "500-100"')
  })

  it('stops on a delay above ten minutes', async () => {
    const error = await startupError('s:\n  rules:\n    addPlant: { delay: 600001 }\n', 'scenario_bad_delay')
    expect(error.message).toMatch(/at most 600000/)
  })

  it('stops on an unknown fault, listing the faults', async () => {
    const error = await startupError('s:\n  rules:\n    addPlant: { fault: timeout }\n', 'scenario_bad_fault')
    expect(error.message).toMatch(/one of reset, empty, malformed, hang/)
  })

  it('stops on dynamic that is not a boolean', async () => {
    const error = await startupError('s:\n  rules:\n    addPlant: { dynamic: "yes" }\n', 'scenario_bad_dynamic')
    expect(error.message).toContain('rule "addPlant"')
  })

  it('names the scenarios file in every rule error', async () => {
    const error = await startupError('s:\n  rules:\n    addPlant: { fault: timeout }\n', 'scenario_bad_fault')
    expect(error.message).toMatch(/^In .*scenarios\.yaml, scenario "s", rule "addPlant"/)
  })
})
