/** The built-in scenarios and the scenario index (#3 §1). */
import { describe, expect, it } from 'vitest'
import { expectStartupErrorThrown } from '../support/startup-error.js'
import type { DeclaredResponse } from '../../src/responses/declared-responses.js'
import type { ScenarioTarget } from '../../src/rules/rule.js'
import { DEFAULT_SCENARIO, type Scenario, builtInScenarios, indexScenarios } from '../../src/scenarios/scenarios.js'

function response(code: string): DeclaredResponse {
  return { code, mediaType: 'application/json', bodies: new Map() }
}

function target(index: number, id: string, codes: string[], secured: boolean): ScenarioTarget {
  return {
    index,
    id,
    method: 'POST',
    path: `/${id}`,
    secured,
    responses: { declared: codes.map(response), violationStatus: 400 },
  }
}

const operations: ScenarioTarget[] = [
  target(0, 'with400', ['200', '400'], true),
  target(1, 'with4XX', ['200', '4XX'], false),
  target(2, 'withDefault', ['200', 'default'], true),
  target(3, 'with422Only', ['201', '422'], false),
  target(4, 'noErrors', ['204'], true),
]

function builtIn(name: string): Scenario {
  const scenario = builtInScenarios(operations).find((s) => s.name === name)
  if (!scenario) throw new Error(`no built-in scenario ${name}`)
  return scenario
}

/** What each operation's one rule answers (`undefined`: the operation has none). */
const answersOf = (scenario: Scenario) => scenario.rules.map((rules) => rules?.[0]?.answer)

function user(name: string): Scenario {
  return { name, description: '', builtIn: false, rules: [] }
}

describe('builtInScenarios', () => {
  it('are default, error, unauthorized and dynamic, in that order', () => {
    expect(builtInScenarios(operations).map((s) => s.name)).toEqual([
      DEFAULT_SCENARIO,
      'error',
      'unauthorized',
      'dynamic',
    ])
  })

  it('are all marked built in and described', () => {
    for (const scenario of builtInScenarios(operations)) {
      expect(scenario.builtIn).toBe(true)
      expect(scenario.description).not.toBe('')
    }
  })

  it('default changes no operation', () => {
    expect(builtIn('default').rules.filter(Boolean)).toEqual([])
  })

  it('error answers the declared 400 of an operation that declares it', () => {
    expect(builtIn('error').rules[0]?.[0]?.answer).toEqual({ status: 400 })
  })

  it('error answers 400 through a declared 4XX range', () => {
    expect(builtIn('error').rules[1]?.[0]?.answer).toEqual({ status: 400 })
  })

  it('error answers 400 through a declared default response', () => {
    expect(builtIn('error').rules[2]?.[0]?.answer).toEqual({ status: 400 })
  })

  it('error forces a 400 on an operation that declares only 422', () => {
    expect(builtIn('error').rules[3]?.[0]?.answer).toEqual({ forcedError: 400 })
  })

  it('error forces a 400 on an operation that declares no error at all', () => {
    expect(builtIn('error').rules[4]?.[0]?.answer).toEqual({ forcedError: 400 })
  })

  it('unauthorized refuses secured operations only', () => {
    expect(answersOf(builtIn('unauthorized'))).toEqual([
      { unauthorized: true },
      undefined,
      { unauthorized: true },
      undefined,
      { unauthorized: true },
    ])
  })

  it('dynamic generates the body of every operation', () => {
    expect(answersOf(builtIn('dynamic'))).toEqual(operations.map(() => ({ dynamic: true })))
  })

  it('have a rule slot for every operation of a description', () => {
    for (const name of ['error', 'unauthorized', 'dynamic']) expect(builtIn(name).rules).toHaveLength(operations.length)
  })

  it('have no rules for a description without operations', () => {
    expect(builtInScenarios([]).map((s) => s.rules.length)).toEqual([0, 0, 0, 0])
  })
})

describe('indexScenarios', () => {
  it('indexes scenarios by name, built-in ones first', () => {
    const index = indexScenarios([...builtInScenarios(operations), user('slow')])
    expect([...index.keys()]).toEqual(['default', 'error', 'unauthorized', 'dynamic', 'slow'])
    expect(index.get('slow')?.builtIn).toBe(false)
  })

  it('stops start-up on a user scenario named like a built-in one', () => {
    const error = expectStartupErrorThrown(
      () => indexScenarios([...builtInScenarios(operations), user('error')]),
      'scenario_defined_twice',
    )
    expect(error.message).toContain('"error"')
    expect(error.message).toContain('(built-in names: default, error, unauthorized, dynamic)')
  })

  it('stops start-up on two user scenarios of the same name', () => {
    const error = expectStartupErrorThrown(() => indexScenarios([user('slow'), user('slow')]), 'scenario_defined_twice')
    expect(error.message).toContain('"slow"')
  })

  it('tells names apart by case', () => {
    expect([...indexScenarios([user('Error'), user('error')]).keys()]).toEqual(['Error', 'error'])
  })
})
