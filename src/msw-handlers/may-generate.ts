import type { RuntimeState } from '../engine/runtime-state.js'
import { generates } from '../rules/rule.js'
import type { Scenario } from '../scenarios/scenarios.js'

/**
 * Whether answering this request may generate bodies with json-schema-faker, which a browser loads
 * on demand (#33): it asks for them (`Prefer: dynamic=true`, `?__dynamic=true`), or the scenario it
 * gets (`X-Mock-Scenario`, else its session's, else the active one) or a stub has a rule that does.
 * Generous: a rule whose conditions this request would miss counts too.
 */
export function mayGenerate(state: RuntimeState, request: Request): boolean {
  if (/dynamic/i.test(request.headers.get('prefer') ?? '') || request.url.includes('__dynamic')) return true
  const named = request.headers.get('x-mock-scenario')
  const scenario = named
    ? state.listScenarios().find((listed) => listed.name === named)
    : state.activeScenario(request.headers.get('x-mock-session') || undefined)
  return (
    (scenario !== undefined && scenarioGenerates(scenario)) || state.stubs.list().some((stub) => generates(stub.rule))
  )
}

function scenarioGenerates(scenario: Scenario): boolean {
  let answer = generating.get(scenario)
  if (answer === undefined) {
    answer = scenario.rules.some((rules) => rules?.some(generates) === true)
    generating.set(scenario, answer)
  }
  return answer
}

/** Per scenario, read once: its rules do not change (a reload makes new scenarios). */
const generating = new WeakMap<Scenario, boolean>()
