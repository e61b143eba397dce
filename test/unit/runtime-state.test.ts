/** Runtime state (`src/engine/runtime-state.ts`, issue #3 §1, §3): the scenario switch, sessions, reset. */
import { describe, expect, it } from 'vitest'
import { createRuntimeState } from '../../src/engine/runtime-state.js'
import { MockError, StartupError } from '../../src/errors/index.js'
import type { RequestRecord } from '../../src/journal/journal.js'
import { journaledPost } from '../support/builders.js'
import type { Scenario } from '../../src/scenarios/scenarios.js'

function scenario(name: string, builtIn = true): Scenario {
  return { name, description: `the ${name} scenario`, builtIn, rules: [] }
}

const NAMES = ['default', 'error', 'unauthorized', 'dynamic', 'duplicate-plant']

function controls(start = 'default', journalSize = 100) {
  const scenarios = new Map(NAMES.map((name, i) => [name, scenario(name, i < 4)]))
  return createRuntimeState(scenarios, start, journalSize)
}

function record(session?: string): RequestRecord {
  return journaledPost({ time: Date.now(), session })
}

/** The error `run` throws, to inspect it. */
function thrownBy(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('createRuntimeState: the start scenario', () => {
  it('every client starts with the start scenario', () => {
    const mock = controls('error')
    expect(mock.activeScenario().name).toBe('error')
    expect(mock.activeScenario('any-session').name).toBe('error')
  })

  it('an unknown start scenario is a StartupError naming the known ones', () => {
    const error = thrownBy(() => controls('nope'))
    expect((error as StartupError | undefined)?.code).toBe('scenario_unknown')
    expect(error).toBeInstanceOf(StartupError)
    expect((error as Error).message).toContain('"nope"')
    for (const name of NAMES) expect((error as Error).message).toContain(name)
  })

  it('lists every scenario in order', () => {
    expect(
      controls()
        .listScenarios()
        .map((s) => s.name),
    ).toEqual(NAMES)
  })
})

describe('createRuntimeState: useScenario', () => {
  it('without a session switches every client that has no scenario of its own', () => {
    const mock = controls()
    mock.useScenario('error')
    expect(mock.activeScenario().name).toBe('error')
    expect(mock.activeScenario('fresh').name).toBe('error')
  })

  it('with a session switches only that session', () => {
    const mock = controls()
    mock.useScenario('error', 'a')
    expect(mock.activeScenario('a').name).toBe('error')
    expect(mock.activeScenario('b').name).toBe('default')
    expect(mock.activeScenario().name).toBe('default')
  })

  it('a session keeps its own scenario when the global one changes', () => {
    const mock = controls()
    mock.useScenario('dynamic', 'a')
    mock.useScenario('error')
    expect(mock.activeScenario('a').name).toBe('dynamic')
  })

  it('an unknown name throws a 400 MockError naming the known scenarios, and changes nothing', () => {
    const mock = controls()
    const error = thrownBy(() => mock.useScenario('nope'))
    expect(error).toBeInstanceOf(MockError)
    expect(error).toMatchObject({ status: 400, kind: 'unknown_scenario' })
    expect((error as Error).message).toBe(
      'There is no scenario "nope"; known scenarios: default, error, unauthorized, dynamic, duplicate-plant.',
    )
    expect(() => mock.useScenario('nope', 'a')).toThrow(MockError)
    expect(mock.activeScenario().name).toBe('default')
    expect(mock.activeScenario('a').name).toBe('default')
  })

  it('findScenario returns a known scenario and throws the same 400 for an unknown one', () => {
    const mock = controls()
    expect(mock.findScenario('duplicate-plant').name).toBe('duplicate-plant')
    expect(thrownBy(() => mock.findScenario('nope'))).toMatchObject({ status: 400, kind: 'unknown_scenario' })
  })
})

describe('createRuntimeState: reset', () => {
  it('without a session restores the start scenario, forgets every session and empties the journal', async () => {
    const mock = controls('duplicate-plant')
    mock.useScenario('error')
    mock.useScenario('dynamic', 'a')
    mock.journal.recordRequest(record())
    mock.journal.recordRequest(record('a'))
    await mock.reset()
    expect(mock.activeScenario().name).toBe('duplicate-plant')
    expect(mock.activeScenario('a').name).toBe('duplicate-plant')
    expect(mock.journal.listRequests()).toEqual([])
  })

  it('with a session forgets only that session and its journal entries', async () => {
    const mock = controls()
    mock.useScenario('error')
    mock.useScenario('dynamic', 'a')
    mock.useScenario('unauthorized', 'b')
    mock.journal.recordRequest(record('a'))
    mock.journal.recordRequest(record('b'))
    mock.journal.recordRequest(record())
    await mock.reset('a')
    expect(mock.activeScenario('a').name).toBe('error')
    expect(mock.activeScenario('b').name).toBe('unauthorized')
    expect(mock.activeScenario().name).toBe('error')
    expect(mock.journal.listRequests().map((e) => e.session ?? null)).toEqual(['b', null])
  })
})

describe('createRuntimeState: sessions and the journal are bounded', () => {
  const MAX_SESSIONS = 10_000

  it('the session map keeps at most 10 000 sessions, forgetting the least recently switched first', () => {
    const mock = controls()
    for (let i = 0; i <= MAX_SESSIONS; i++) mock.useScenario('error', `s${i}`)
    expect(mock.activeScenario('s0').name).toBe('default')
    expect(mock.activeScenario('s1').name).toBe('error')
    expect(mock.activeScenario(`s${MAX_SESSIONS}`).name).toBe('error')
  })

  it('refuses a session name over 256 bytes with a 400, so 10 000 sessions stay a few megabytes (#12)', () => {
    const mock = controls()
    mock.useScenario('error', 's'.repeat(256))
    const error = (() => {
      try {
        mock.useScenario('error', 'é'.repeat(129))
      } catch (caught) {
        return caught
      }
    })()
    expect(error).toBeInstanceOf(MockError)
    expect((error as MockError).status).toBe(400)
    expect((error as MockError).message).toContain('at most 256 bytes')
    expect([...mock.sessions()].map(([name]) => name.length)).toEqual([256])
  })

  it('switching a session again makes it the most recent, so it outlives older ones', () => {
    const mock = controls()
    for (let i = 0; i < MAX_SESSIONS; i++) mock.useScenario('error', `s${i}`)
    mock.useScenario('dynamic', 's0')
    mock.useScenario('error', 'newest')
    expect(mock.activeScenario('s0').name).toBe('dynamic')
    expect(mock.activeScenario('s1').name).toBe('default')
  })

  it('the journal holds at most the journal size given', () => {
    const mock = controls('default', 2)
    for (let i = 0; i < 5; i++) mock.journal.recordRequest(record())
    expect(mock.journal.listRequests()).toHaveLength(2)
  })
})
