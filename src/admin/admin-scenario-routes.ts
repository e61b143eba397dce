import type { Hono } from 'hono'
import { errors } from '../errors/index.js'
import type { Scenario } from '../scenarios/scenarios.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import { ADMIN_BODY_LIMIT, askedSession, parseJsonObject, sessionOf } from './read-admin-input.js'
import { transportOf } from '../pipeline/request-data.js'
import { readBody } from '../pipeline/read-body.js'

/** `GET` and `PUT /__mock/scenario`: the scenario in force, for every client or one session. */
export function addScenarioRoutes(admin: Hono, state: RuntimeState): void {
  admin.get('/scenario', (c) => {
    const session = askedSession(c)
    return c.json(describeScenarios(state, session))
  })

  admin.put('/scenario', async (c) => {
    const body = parseJsonObject(await readBody(transportOf(c), ADMIN_BODY_LIMIT))
    if (typeof body.name !== 'string') throw errors.adminBodyNotScenario()
    if (body.session !== undefined && typeof body.session !== 'string') throw errors.adminSessionNotString()
    // The body's session first, then the query's and the header's, as GET reads them: `?session=` was ignored here.
    const session = sessionOf(body.session, askedSession(c))
    state.useScenario(body.name, session)
    return c.json(describeScenarios(state, session))
  })
}

/** The scenarios, the one in force, and how often each rule of a scenario has answered (in the session asked). */
export function describeScenarios(state: RuntimeState, session: string | undefined) {
  const describe = ({ name, description, builtIn }: Scenario) => ({ name, description, builtIn })
  const hits = [...state.counters.counted(session)]
    .filter(([rule]) => rule.stub === undefined)
    .map(([rule, count]) => ({ rule: rule.label, hits: count }))
  return {
    active: state.activeScenario(session).name,
    ...(session === undefined ? {} : { session }),
    scenarios: state.listScenarios().map(describe),
    hits,
  }
}
