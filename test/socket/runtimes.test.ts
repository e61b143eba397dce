/**
 * One behaviour suite, run against every place the mock runs (#33: `test/support/runtimes.ts`): the
 * seed rules of the Plant Store, the Prefer controls, a scenario and a stub set through the handle,
 * stateful create and read, and the journal through the handle and the admin API. The handle is
 * reached by `steer`, which runs its function where the mock runs (in a browser, in the page).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningMock, runtimes } from '../support/runtimes.js'

const TOKEN = { authorization: 'Bearer t' }
const JSON_BODY = { 'content-type': 'application/json' }
/** A browser, its page and its service worker take some seconds to start. */
const START_TIMEOUT = 60_000

function addPlant(mock: RunningMock, body: unknown, headers: Record<string, string> = TOKEN): Promise<Response> {
  return mock.request('/plants', { method: 'POST', headers: { ...JSON_BODY, ...headers }, body: JSON.stringify(body) })
}

describe.each(runtimes)('the Plant Store on $name', (runtime) => {
  let running: RunningMock
  beforeAll(async () => {
    running = await runtime.start({ tokens: ['t'] })
  }, START_TIMEOUT)
  afterAll(() => running.close())

  it('answers a valid new plant 200 with the fixture', async () => {
    const res = await addPlant(running, { id: 1, name: 'Fern' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ name: 'Fern' })
  })

  it('answers a body that breaks NewPlant 400 with an Error naming each problem', async () => {
    const res = await addPlant(running, { id: 'one' })
    expect(res.status).toBe(400)
    const body = (await res.json()) as { error: number; message: string }
    expect(body.error).toBe(400)
    expect(body.message).toMatch(/body\.name is required.*body\.id must be an integer/)
  })

  it('answers a request without a bearer token, or with one it was not given, 401', async () => {
    const res = await addPlant(running, { id: 1, name: 'Fern' }, {})
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ error: 401, message: expect.stringMatching(/bearer/i) })
    expect((await addPlant(running, { id: 1, name: 'Fern' }, { authorization: 'Bearer other' })).status).toBe(401)
  })

  it('answers Prefer code=400 with the declared 400, and Prefer example with the named fixture', async () => {
    const forced = await addPlant(running, { id: 1, name: 'Fern' }, { ...TOKEN, prefer: 'code=400' })
    expect(forced.status).toBe(400)
    expect(await forced.json()).toEqual({ error: 400, message: 'The plant could not be added.' })
    const named = await addPlant(running, { id: 1, name: 'Fern' }, { ...TOKEN, prefer: 'example=monstera' })
    expect(await named.json()).toEqual({ name: 'Monstera deliciosa', tag: 'houseplant' })
  })

  it('generates a body for Prefer: dynamic=true, and for every request under the dynamic scenario', async () => {
    const asked = await addPlant(running, { id: 1, name: 'Fern' }, { ...TOKEN, prefer: 'dynamic=true' })
    expect(asked.status).toBe(200)
    expect(await asked.json()).toEqual({ name: expect.any(String), tag: expect.any(String) })
    await running.steer((mock) => mock.useScenario('dynamic'))
    const generated = await addPlant(running, { id: 1, name: 'Fern' })
    expect(await generated.json()).toEqual({ name: expect.any(String), tag: expect.any(String) })
    await running.steer((mock) => mock.reset())
  })

  it('switches to the error scenario through the handle, and back with reset', async () => {
    await running.steer((mock) => mock.useScenario('error'))
    const failed = await addPlant(running, { id: 1, name: 'Fern' })
    expect(failed.status).toBe(400)
    expect(await failed.json()).toEqual({ error: 400, message: 'The plant could not be added.' })
    await running.steer((mock) => mock.reset())
    expect((await addPlant(running, { id: 1, name: 'Fern' })).status).toBe(200)
  })

  it('answers through a stub the handle adds, for the requests it matches only', async () => {
    await running.steer((mock) => mock.reset())
    const stub = await running.steer((mock) => {
      const { id } = mock.stub({
        operation: 'addPlant',
        when: { body: { '$.name': 'Poison Ivy' } },
        status: 400,
        body: { error: 400, message: 'Not that one.' },
      })
      return id
    })
    const refused = await addPlant(running, { id: 2, name: 'Poison Ivy' })
    expect(refused.status).toBe(400)
    expect(await refused.json()).toEqual({ error: 400, message: 'Not that one.' })
    expect((await addPlant(running, { id: 3, name: 'Fern' })).status).toBe(200)
    const hits = await running.steer((mock, id) => mock.stubs().find((listed) => listed.id === id)?.hits, stub)
    expect(hits).toBe(1)
    await running.steer((mock) => mock.removeStubs())
    expect(await running.steer((mock) => mock.stubs())).toEqual([])
  })

  it('keeps a journal read through the handle and through the admin API alike', async () => {
    await running.steer((mock) => mock.reset())
    await addPlant(running, { id: 1, name: 'Fern' })
    await addPlant(running, { id: 'one' })
    await addPlant(running, { id: 1, name: 'Fern' }, {})
    const seen = await running.steer((mock) =>
      mock.requests().map((entry) => `${entry.method} ${entry.path} ${entry.status}`),
    )
    expect(seen).toEqual(['POST /plants 200', 'POST /plants 400', 'POST /plants 401'])
    const listed = await running.request('/__mock/requests?status=4xx')
    expect(listed.status).toBe(200)
    const { requests } = (await listed.json()) as { requests: Array<{ status: number; valid: boolean }> }
    expect(requests).toMatchObject([{ status: 400, valid: false }, { status: 401 }])
    await running.steer((mock) =>
      mock.verify({ operation: 'addPlant', status: 200, times: 1, body: { '$.name': 'Fern' } }),
    )
  })
})

describe.each(runtimes)('the stateful Garden on $name', (runtime) => {
  let running: RunningMock
  beforeAll(async () => {
    running = await runtime.start({ spec: 'test/descriptions/stateful/garden.yaml', stateful: true })
  }, START_TIMEOUT)
  afterAll(() => running.close())

  it('reads back a plant it created, and lists it', async () => {
    const created = await running.request('/plants', {
      method: 'POST',
      headers: { ...JSON_BODY, ...TOKEN },
      body: JSON.stringify({ name: 'Fern', tag: 'shade' }),
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: number }
    const read = await running.request(`/plants/${id}`, { headers: TOKEN })
    expect(await read.json()).toMatchObject({ id, name: 'Fern', tag: 'shade' })
    const listed = await running.request('/plants?tag=shade', { headers: TOKEN })
    expect(await listed.json()).toMatchObject({ items: [{ id, name: 'Fern' }], total: 1 })
    expect(await running.steer((mock) => mock.state.get('plants'))).toMatchObject([{ id, name: 'Fern' }])
  })
})
