/**
 * Conditional rules on real descriptions (#16): the issue's own example on the Plant Store (the
 * `default` scenario given rules by the file), with security and validation still first; and rules
 * beside `--stateful` on the Garden, where a rule's status overrides the records and `from: state`
 * answers from them with the rule's delay and headers.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { plantStoreApp } from '../support/rule-app.js'
import { expectStartupError } from '../support/startup-error.js'
import { gardenSpec } from '../support/stateful.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

afterEach(removeTempDirs)

/** The issue's example, as it gives it. */
const ISSUE_EXAMPLE = `default:
  rules:
    addPlant:
      - when: { body: { $.name: { equals: Poison Ivy } } }
        status: 400
        example: duplicate-id
      - when: { headers: { x-tenant: { equals: beta } } }
        delay: 20
`
const DUPLICATE_ID = { error: 400, message: 'A plant with this id already exists.' }

async function postPlant(app: Awaited<ReturnType<typeof plantStoreApp>>, body: unknown, headers = {}) {
  const started = performance.now()
  const response = await app.request('/plants', {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  return { status: response.status, json: (await response.json()) as any, ms: performance.now() - started }
}

describe("the issue's example on the Plant Store (#16)", () => {
  it('Poison Ivy gets 400 with the duplicate-id fixture', async () => {
    const app = await plantStoreApp(ISSUE_EXAMPLE)
    const answer = await postPlant(app, { id: 1, name: 'Poison Ivy' })
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual(DUPLICATE_ID)
    expect(app.mock.requests()[0]).toMatchObject({ valid: true, answeredBy: 'scenario default, addPlant rule 1' })
  })

  it('Fern gets the usual 200, and the journal names the closest rule', async () => {
    const app = await plantStoreApp(ISSUE_EXAMPLE)
    const answer = await postPlant(app, { id: 2, name: 'Fern' })
    expect(answer).toMatchObject({ status: 200, json: { name: 'Fern' } })
    expect(app.mock.requests()[0]?.nearMiss).toEqual({
      rule: 'scenario default, addPlant rule 1',
      condition: 'body $.name equals "Poison Ivy"',
      actual: '"Fern"',
    })
  })

  it('the beta tenant gets 200 after at least 20 ms', async () => {
    const app = await plantStoreApp(ISSUE_EXAMPLE)
    const answer = await postPlant(app, { id: 3, name: 'Fern' }, { 'x-tenant': 'beta' })
    expect(answer).toMatchObject({ status: 200, json: { name: 'Fern' } })
    expect(answer.ms).toBeGreaterThanOrEqual(19)
    expect(app.mock.requests()[0]?.answeredBy).toBe('scenario default, addPlant rule 2')
  })

  it('Poison Ivy from the beta tenant is refused at once: the first rule that holds answers', async () => {
    const app = await plantStoreApp(ISSUE_EXAMPLE)
    const answer = await postPlant(app, { id: 4, name: 'Poison Ivy' }, { 'x-tenant': 'beta' })
    expect(answer).toMatchObject({ status: 400, json: DUPLICATE_ID })
    expect(app.mock.requests()[0]?.answeredBy).toBe('scenario default, addPlant rule 1')
  })

  it('the default scenario keeps its name and built-in description, and the file scenarios are gone with the file', async () => {
    const app = await plantStoreApp(ISSUE_EXAMPLE)
    expect(app.mock.activeScenario()).toBe('default')
    const listed = (await (await app.request('/__mock/scenario')).json()) as { scenarios: Array<{ name: string }> }
    expect(listed.scenarios.map((s) => s.name)).toEqual(['default', 'error', 'unauthorized', 'dynamic'])
  })

  it('security comes first: Poison Ivy without a token gets 401', async () => {
    const app = await plantStoreApp(ISSUE_EXAMPLE)
    const answer = await postPlant(app, { id: 1, name: 'Poison Ivy' }, { authorization: '' })
    expect(answer.status).toBe(401)
    expect(app.mock.requests()[0]?.answeredBy).toBeUndefined()
  })

  it('validation comes first: Poison Ivy without an id gets the violation, not the fixture', async () => {
    const app = await plantStoreApp(ISSUE_EXAMPLE)
    const answer = await postPlant(app, { name: 'Poison Ivy' })
    expect(answer.status).toBe(400)
    expect(answer.json.message).toMatch(/body\.id is required/)
    expect(app.mock.requests()[0]).toMatchObject({ valid: false })
  })

  it('the error scenario named by X-Mock-Scenario still answers 400 to Fern', async () => {
    const app = await plantStoreApp(ISSUE_EXAMPLE)
    const answer = await postPlant(app, { id: 2, name: 'Fern' }, { 'x-mock-scenario': 'error' })
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual({ error: 400, message: 'The plant could not be added.' })
  })
})

const auth = { authorization: 'Bearer t', 'content-type': 'application/json' }

describe('rules beside --stateful on the Garden (#16)', () => {
  it('a status rule overrides the records and stores nothing; from: state answers from them with its delay and headers', async () => {
    const fixtures = await tempDir('garden-rules-', {
      'scenarios.yaml': `default:
  rules:
    createPlant:
      - when: { body: { $.name: Poison Ivy } }
        status: 400
      - from: state
        delay: 25
        headers: { x-answered: from-state }
`,
    })
    const app = await createApp({ spec: gardenSpec, stateful: true, fixtures })
    const call = (method: string, path: string, body?: unknown) =>
      app.request(path, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) })

    const refused = await call('POST', '/plants', { name: 'Poison Ivy' })
    expect(refused.status).toBe(400)
    const started = performance.now()
    const created = await call('POST', '/plants', { name: 'Fern', tag: 'shade' })
    const ms = performance.now() - started
    expect(created.status).toBe(201)
    expect(await created.json()).toEqual({ id: 1, name: 'Fern', tag: 'shade' })
    expect(created.headers.get('x-answered')).toBe('from-state')
    expect(ms).toBeGreaterThanOrEqual(24)

    const listed = await call('GET', '/plants')
    expect(await listed.json()).toEqual({ items: [{ id: 1, name: 'Fern', tag: 'shade' }], total: 1 })
    expect(app.mock.requests().map((entry) => [entry.status, entry.answeredBy, entry.data])).toEqual([
      [400, 'scenario default, createPlant rule 1', undefined],
      [201, 'scenario default, createPlant rule 2', 'created plants/1'],
      [200, undefined, undefined],
    ])
  })

  it('from: state without stateful stops start-up', async () => {
    const fixtures = await tempDir('garden-rules-', {
      'scenarios.yaml': 'default:\n  rules:\n    createPlant:\n      - from: state\n',
    })
    const error = await expectStartupError(createApp({ spec: gardenSpec, fixtures }), 'scenario_bad_from')
    expect(error.message).toContain('scenario "default", rule "createPlant" #1: createPlant keeps no records')
  })
})
