import type { Hono } from 'hono'
import { stringify as stringifyLossless } from 'lossless-json'
import { errors } from '../errors/index.js'
import type { StatefulSetup } from '../state/compile-stateful.js'
import type { RecordSets } from '../state/record-store.js'
import type { RuntimeState } from '../engine/runtime-state.js'
import { checkResource, checkedRecords, storeOf } from '../state/steer-records.js'
import { askedSession } from './read-admin-input.js'
import { transportOf } from '../pipeline/request-data.js'
import { readBody } from '../pipeline/read-body.js'

/**
 * `GET /__mock/state`, `PUT /__mock/state/{resource}` and `POST /__mock/state/{resource}/reset`
 * (back to its seed, `fixtures/data/<resource>.json`, the others left as they are): the data of
 * stateful mode, of the data without a session or of one (`X-Mock-Session`, `?session=` wins).
 * Records are shown as stored, key included (`$scope` names a nested record's parents); integers
 * beyond 2^53 as written.
 */
export function addStateRoutes(
  admin: Hono,
  state: RuntimeState,
  stateful: StatefulSetup | undefined,
  maxBodyBytes: number,
): void {
  admin.get('/state', async (c) => {
    const session = askedSession(c)
    const resource = c.req.query('resource')
    if (resource !== undefined) checkResource(stateful, resource)
    return stateAnswer(session, await storeOf(state.records).get(session, resource))
  })

  admin.put('/state/:resource', async (c) => {
    const resource = c.req.param('resource')
    const session = askedSession(c)
    const caller = `PUT /__mock/state/${resource}`
    const store = storeOf(state.records)
    checkResource(stateful, resource)
    const text = new TextDecoder().decode(await readBody(transportOf(c), maxBodyBytes))
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      throw errors.badRecords(caller, ['the body is not JSON: send an array of records'])
    }
    await store.set(session, resource, checkedRecords(stateful, resource, caller, value, text))
    return stateAnswer(session, await store.get(session, resource))
  })

  admin.post('/state/:resource/reset', async (c) => {
    const resource = c.req.param('resource')
    const session = askedSession(c)
    const store = storeOf(state.records)
    checkResource(stateful, resource)
    // The seed was checked at start-up; a resource without a seed file starts empty.
    await store.set(session, resource, stateful!.seed[resource] ?? [])
    return stateAnswer(session, await store.get(session, resource))
  })
}

function stateAnswer(session: string | undefined, resources: RecordSets): Response {
  const body = stringifyLossless(session === undefined ? { resources } : { session, resources })!
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } })
}
