/**
 * Stateful mode (#15) on the Plant Store as embedded (`openapi.yaml`: only POST /plants, whose
 * `Plant` answer has no id), through `createApp().request()`: the first test, then what the
 * data must leave alone (no --stateful, security, validation, forced answers), the journal, the
 * limit, exact int64 keys and a fault that breaks the answer after the record is stored.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { MockError } from '../../src/errors/index.js'
import { type AppOptions, type MockApp, NetworkFault } from '../../src/index.js'
import { createApp } from '../support/store-under-test.js'
import { type AdminOracle, createAdminOracle } from '../support/admin-oracle.js'
import { auth, expectError, sendInProcess, type StatefulClient, statefulClient } from '../support/stateful.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

let oracle: AdminOracle

beforeAll(async () => {
  oracle = await createAdminOracle()
})

afterEach(removeTempDirs)

async function plantStore(options: AppOptions = {}): Promise<{ app: MockApp; client: StatefulClient }> {
  const app = await createApp(options)
  return { app, client: statefulClient(sendInProcess(app), oracle) }
}

const addPlant = (client: StatefulClient, body: unknown, headers: Record<string, string> = {}, path = '/plants') =>
  client.call('POST', path, body, headers)

describe('stateful mode on the Plant Store (POST /plants only)', () => {
  it('two creates with the same id answer 200 then 400 naming the id; another id answers 200; the state shows both with their ids; reset empties them', async () => {
    const { client } = await plantStore({ stateful: true })

    const first = await addPlant(client, { id: 1, name: 'Fern', tag: 'fern' })
    expect(first.status).toBe(200)
    expect(first.json).toEqual({ name: 'Fern', tag: 'fern' })

    const again = await addPlant(client, { id: 1, name: 'Fern again' })
    expectError(again, 400, 'A plant with id 1 already exists.')
    expect(again.json.message).toBe('A plant with id 1 already exists.')

    const third = await addPlant(client, { id: 2, name: 'Aloe' })
    expect(third.status).toBe(200)
    // The Plant answer declares no id: the record keeps it, the answer leaves it out.
    expect(third.json).toEqual({ name: 'Aloe' })

    const state = await client.admin('GET', '/state')
    expect(state.status).toBe(200)
    expect(state.json).toEqual({
      resources: {
        plants: [
          { id: 1, name: 'Fern', tag: 'fern' },
          { id: 2, name: 'Aloe' },
        ],
      },
    })

    expect((await client.admin('POST', '/reset')).status).toBe(200)
    expect((await client.admin('GET', '/state')).json).toEqual({ resources: { plants: [] } })
    expect((await addPlant(client, { id: 1, name: 'Fern' })).status).toBe(200)
  })

  it('without stateful nothing changes: two identical creates both answer 200 and GET /__mock/state answers 409', async () => {
    const { app, client } = await plantStore()
    for (let n = 0; n < 2; n++) expect((await addPlant(client, { id: 1, name: 'Fern' })).json).toEqual({ name: 'Fern' })
    expectError(await client.admin('GET', '/state'), 409, '--stateful')
    expectError(
      await client.admin('PUT', '/state/plants', { headers: { 'content-type': 'application/json' }, body: '[]' }),
      409,
      '--stateful',
    )
    expect((await client.admin('GET', '/health')).json).not.toHaveProperty('state')
    expect(() => app.mock.state.get()).toThrow(MockError)
    expect(app.mock.requests().map((entry) => entry.data)).toEqual([undefined, undefined])
  })

  it('a create without a token answers 401 and stores nothing', async () => {
    const { client } = await plantStore({ stateful: true })
    const answer = await addPlant(client, { id: 1, name: 'Fern' }, { authorization: '' })
    expect(answer.status).toBe(401)
    expect(await client.records('plants')).toEqual([])
  })

  it('a create with an invalid body answers 400 with its violations and stores nothing', async () => {
    const { client } = await plantStore({ stateful: true })
    const answer = await addPlant(client, { id: 1, name: 5 })
    expectError(answer, 400, 'body.name')
    expect(await client.records('plants')).toEqual([])
  })

  it.each([
    ['Prefer: code=400', { prefer: 'code=400' }, '/plants', 400],
    ['?__code=400', {}, '/plants?__code=400', 400],
    ['Prefer: code=200', { prefer: 'code=200' }, '/plants', 200],
    ['Prefer: example=monstera', { prefer: 'example=monstera' }, '/plants', 200],
  ])('a create with %s answers as forced without touching the data', async (_how, headers, path, status) => {
    const { app, client } = await plantStore({ stateful: true })
    expect((await addPlant(client, { id: 1, name: 'Fern' })).status).toBe(200)
    // Neither the taken id 1 nor the free id 2 is looked at, and nothing is stored.
    for (const id of [1, 2]) expect((await addPlant(client, { id, name: 'Forced' }, headers, path)).status).toBe(status)
    expect(await client.records('plants')).toEqual([{ id: 1, name: 'Fern' }])
    expect(app.mock.requests().map((entry) => entry.data)).toEqual(['created plants/1', undefined, undefined])
  })

  it('a create the error scenario forces to 400 answers without touching the data', async () => {
    const { app, client } = await plantStore({ stateful: true })
    expect((await addPlant(client, { id: 1, name: 'Fern' })).status).toBe(200)
    app.mock.useScenario('error')
    expect((await addPlant(client, { id: 2, name: 'Aloe' })).status).toBe(400)
    expect((await addPlant(client, { id: 1, name: 'Fern' })).status).toBe(400)
    expect(await client.records('plants')).toEqual([{ id: 1, name: 'Fern' }])
    app.mock.useScenario('default')
    expect((await addPlant(client, { id: 2, name: 'Aloe' })).status).toBe(200)
  })

  it('the journal says what each request did to the data, and nothing for a refused one', async () => {
    const { app, client } = await plantStore({ stateful: true })
    await addPlant(client, { id: 1, name: 'Fern' })
    await addPlant(client, { id: 1, name: 'Fern' })
    await addPlant(client, { id: 2, name: 'Aloe' }, { 'x-mock-session': 'a' })
    expect(app.mock.requests().map(({ status, data, session }) => ({ status, data, session }))).toEqual([
      { status: 200, data: 'created plants/1', session: undefined },
      { status: 400, data: undefined, session: undefined },
      { status: 200, data: 'created plants/2', session: 'a' },
    ])
    const listed = await client.admin('GET', '/requests')
    expect(listed.json.requests.map((entry: { data?: string }) => entry.data)).toEqual([
      'created plants/1',
      undefined,
      'created plants/2',
    ])
  })

  it('the health route counts the records and the sessions with data of their own', async () => {
    const { client } = await plantStore({ stateful: true })
    await addPlant(client, { id: 1, name: 'Fern' })
    await addPlant(client, { id: 1, name: 'Fern' }, { 'x-mock-session': 'a' })
    await addPlant(client, { id: 2, name: 'Aloe' }, { 'x-mock-session': 'a' })
    expect((await client.admin('GET', '/health')).json.state).toEqual({ sessions: 1, records: 3 })
    await client.admin('POST', '/reset')
    expect((await client.admin('GET', '/health')).json.state).toEqual({ sessions: 0, records: 0 })
  })

  it('stateLimit 2: the third create is refused with 400 naming the limit, and a session has a limit of its own', async () => {
    const { client } = await plantStore({ stateful: true, stateLimit: 2 })
    expect((await addPlant(client, { id: 1, name: 'Fern' })).status).toBe(200)
    expect((await addPlant(client, { id: 2, name: 'Aloe' })).status).toBe(200)
    const refused = await addPlant(client, { id: 3, name: 'Ivy' })
    expectError(refused, 400, 'at most 2 plants', '--state-limit')
    expect((await client.records('plants')).map((plant) => plant.id)).toEqual([1, 2])
    expect((await addPlant(client, { id: 3, name: 'Ivy' }, { 'x-mock-session': 'a' })).status).toBe(200)
  })

  it('an int64 id beyond 2^53 is stored as written, and only the same literal conflicts', async () => {
    const { app, client } = await plantStore({ stateful: true })
    const big = '{"id":9223372036854775807,"name":"Big"}'
    const created = await addPlant(client, big)
    expect(created.status).toBe(200)
    expect(created.json).toEqual({ name: 'Big' })

    const state = await client.admin('GET', '/state')
    expect(state.text).toContain('"id":9223372036854775807')

    // 9223372036854775807 and 9223372036854775806 are the same double: only an exact key tells them apart.
    expectError(await addPlant(client, big), 400, 'A plant with id 9223372036854775807 already exists.')
    expect((await addPlant(client, '{"id":9223372036854775806,"name":"Big minus one"}')).status).toBe(200)
    const after = await client.admin('GET', '/state')
    expect(after.text).toContain('"id":9223372036854775807')
    expect(after.text).toContain('"id":9223372036854775806')
    expect(app.mock.requests().map((entry) => entry.data)).toEqual([
      'created plants/9223372036854775807',
      undefined,
      'created plants/9223372036854775806',
    ])
  })

  it.each(['reset', 'empty'])(
    'a %s fault on the create breaks the answer after the record is stored',
    async (fault) => {
      const fixtures = await tempDir('stateful-faults-', {
        'scenarios.yaml': `broken:\n  description: POST /plants breaks its answer.\n  rules:\n    addPlant: { fault: ${fault} }\n`,
      })
      const { app, client } = await plantStore({ stateful: true, fixtures, scenario: 'broken' })
      const sent = app.request('/plants', { method: 'POST', headers: auth, body: '{"id":1,"name":"Fern"}' })
      await expect(sent).rejects.toBeInstanceOf(NetworkFault)
      expect(await client.records('plants')).toEqual([{ id: 1, name: 'Fern' }])
      expect(app.mock.requests()).toMatchObject([{ status: 0, fault, data: 'created plants/1' }])
      // The client's retry meets the stored record, as it would on a real server.
      app.mock.useScenario('default')
      expectError(await addPlant(client, { id: 1, name: 'Fern' }), 400, 'A plant with id 1 already exists.')
    },
  )
})
