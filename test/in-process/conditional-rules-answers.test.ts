/**
 * What a scenario rule with conditions answers (#16), through `createApp().request()`: an inline
 * `body` (templated) and `headers`, `validate: false` for a request that breaks the description, a
 * fault or a delay in a step of a sequence, a scenario named by X-Mock-Scenario; and what the journal
 * says: the rule that answered (`answeredBy`), or the closest one that did not (`nearMiss`).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type Sent, rulesApp, send, statusesOf } from '../support/rule-app.js'
import { removeTempDirs } from '../support/temp-dirs.js'

afterEach(removeTempDirs)

const named = (name: string, extra: Omit<Sent, 'body'> = {}): Sent => ({ body: { name }, ...extra })

describe('a rule own body and headers (#16)', () => {
  const INLINE = `default:
  rules:
    addItem:
      - when: { body: { $.name: { matches: '^F' } } }
        body: { name: "made for {{request.body.name}}", note: inline }
        headers: { X-Stock: 7, x-rule: inline }
      - when: { body: { $.name: Ivy } }
        status: 503
        body: { error: 503, message: "{{request.body.name}} is out of stock" }
`

  it('answers its inline body, rendered for the request, with its headers over the declared ones', async () => {
    const app = await rulesApp(INLINE)
    const answer = await send(app, named('Fern'))
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({ name: 'made for Fern', note: 'inline' })
    expect(answer.headers.get('x-stock')).toBe('7')
    expect(answer.headers.get('x-rule')).toBe('inline')
    expect(answer.headers.get('x-mock-violations')).toBeNull()
  })

  it('answers an inline body with the rule status', async () => {
    const app = await rulesApp(INLINE)
    const answer = await send(app, named('Ivy'))
    expect(answer.status).toBe(503)
    expect(answer.json).toEqual({ error: 503, message: 'Ivy is out of stock' })
  })

  it('serves the usual answer, without the rule headers, to a request the rule does not hold for', async () => {
    const app = await rulesApp(INLINE)
    const answer = await send(app, named('Oak'))
    expect(answer.json).toEqual({ name: 'Oak' })
    expect(answer.headers.get('x-rule')).toBeNull()
  })

  it('gives way, body and headers, to Prefer: code=', async () => {
    const app = await rulesApp(INLINE)
    const answer = await send(app, named('Fern', { headers: { prefer: 'code=400' } }))
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual({ error: 400, message: 'An item of this name exists.' })
    expect(answer.headers.get('x-rule')).toBeNull()
  })
})

describe('validate: false (#16)', () => {
  const LEGACY = `default:
  rules:
    addItem:
      - when: { body: { $.name: legacy } }
        validate: false
        status: 400
        example: duplicate
      - when: { body: { $.name: other } }
        status: 503
`
  const invalid = (name: string): Sent => ({ body: { name, colour: 'red' } })

  it('a rule with validate: false answers a request that breaks the description, and reports it', async () => {
    const app = await rulesApp(LEGACY)
    const answer = await send(app, invalid('legacy'))
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual({ error: 400, message: 'An item of this name exists.' })
    expect(answer.headers.get('x-mock-violations')).toContain('/colour')
    expect(app.mock.requests()[0]).toMatchObject({
      valid: false,
      answeredBy: 'scenario default, addItem rule 1',
      violations: [{ path: 'body.colour', message: 'is not declared by the schema' }],
    })
  })

  it('a rule without it does not answer an invalid request: the violations are', async () => {
    const app = await rulesApp(LEGACY)
    const answer = await send(app, invalid('other'))
    expect(answer.status).toBe(400)
    expect(answer.json.message).toMatch(/body\.colour is not declared by the schema/)
    expect(app.mock.requests()[0]?.answeredBy).toBeUndefined()
  })

  it('a valid request is answered by the rules as usual', async () => {
    const app = await rulesApp(LEGACY)
    expect(await statusesOf(app, [named('legacy'), named('other'), named('Oak')])).toEqual([400, 503, 200])
    expect(app.mock.requests()[0]?.valid).toBe(true)
  })
})

describe('faults and delays in a sequence (#16)', () => {
  it('a step with fault: reset sends no response, and the next step answers', async () => {
    const app = await rulesApp(`default:
  rules:
    addItem:
      - when: { body: { $.name: Fern } }
        sequence: [ { fault: reset }, { status: 200 } ]
`)
    await expect(send(app, named('Fern'))).rejects.toMatchObject({ name: 'NetworkFault', fault: 'reset' })
    expect((await send(app, named('Fern'))).status).toBe(200)
    expect(app.mock.requests().map((entry) => [entry.status, entry.fault, entry.answeredBy])).toEqual([
      [0, 'reset', 'scenario default, addItem rule 1'],
      [200, undefined, 'scenario default, addItem rule 1'],
    ])
  })

  it('a step with a delay holds only its own answer', async () => {
    const app = await rulesApp(`default:
  rules:
    getItem:
      - sequence: [ { delay: 30, status: 503 }, { status: 404 } ]
`)
    const first = await send(app, {})
    expect(first.status).toBe(503)
    expect(first.ms).toBeGreaterThanOrEqual(29)
    expect((await send(app, {})).status).toBe(404)
    expect(app.mock.requests()[0]?.durationMs).toBeGreaterThanOrEqual(29)
  })
})

describe('the journal: answeredBy and nearMiss (#16)', () => {
  const RULES = `default:
  rules:
    addItem:
      - when: { body: { $.name: Fern, $.count: { gte: 2 } }, headers: { x-tenant: beta } }
        status: 503
      - when: { body: { $.name: Ivy, '$.tags[0]': { exists: true } } }
        status: 404
`

  it('names the closest rule: the one with the fewest failing conditions, and its first failure', async () => {
    const app = await rulesApp(RULES)
    expect(await statusesOf(app, [{ body: { name: 'Fern', count: 5 } }, { body: { name: 'Ivy', count: 1 } }])).toEqual([
      200, 200,
    ])
    const [fern, ivy] = app.mock.requests()
    expect(fern?.nearMiss).toEqual({
      rule: 'scenario default, addItem rule 1',
      condition: 'headers x-tenant equals "beta"',
    })
    expect(ivy?.nearMiss).toEqual({ rule: 'scenario default, addItem rule 2', condition: 'body $.tags[0] exists' })
  })

  it('gives the value the request had where the condition failed', async () => {
    const app = await rulesApp(RULES)
    await send(app, { body: { name: 'Fern', count: 1 }, headers: { 'x-tenant': 'beta' } })
    expect(app.mock.requests()[0]?.nearMiss).toEqual({
      rule: 'scenario default, addItem rule 1',
      condition: 'body $.count gte 2',
      actual: '1',
    })
  })

  it('names the rule that answered, and no near miss then', async () => {
    const app = await rulesApp(RULES)
    await send(app, { body: { name: 'Ivy', tags: ['a'] } })
    expect(app.mock.requests()[0]).toMatchObject({ status: 404, answeredBy: 'scenario default, addItem rule 2' })
    expect(app.mock.requests()[0]?.nearMiss).toBeUndefined()
  })

  it('tells a rule whose times are used up: times N', async () => {
    const app = await rulesApp(`default:
  rules:
    addItem:
      - when: { body: { $.name: Fern } }
        times: 2
        status: 503
`)
    expect(await statusesOf(app, [named('Fern'), named('Fern'), named('Fern')])).toEqual([503, 503, 200])
    expect(app.mock.requests()[2]?.nearMiss).toEqual({
      rule: 'scenario default, addItem rule 1',
      condition: 'times 2',
      actual: 'used up: 2 hit(s)',
    })
  })

  it('GET /__mock/requests lists answeredBy and nearMiss, and filters by answeredBy', async () => {
    const app = await rulesApp(RULES)
    await statusesOf(app, [
      { body: { name: 'Ivy', tags: ['a'] } },
      { body: { name: 'Oak' } },
      { body: { name: 'Ivy', tags: ['b'] } },
    ])
    const listed = async (query: string) => {
      const answer = await app.request(`/__mock/requests${query}`)
      expect(answer.status).toBe(200)
      return ((await answer.json()) as { requests: Array<Record<string, any>> }).requests
    }
    const all = await listed('')
    expect(all.map((entry) => entry.answeredBy)).toEqual([
      'scenario default, addItem rule 2',
      undefined,
      'scenario default, addItem rule 2',
    ])
    expect(all[1]?.nearMiss).toEqual({
      rule: 'scenario default, addItem rule 2',
      condition: 'body $.name equals "Ivy"',
      actual: '"Oak"',
    })
    const byRule = await listed(`?answeredBy=${encodeURIComponent('scenario default, addItem rule 2')}`)
    expect(byRule.map((entry) => entry.body)).toEqual(['{"name":"Ivy","tags":["a"]}', '{"name":"Ivy","tags":["b"]}'])
  })
})

describe('a scenario with conditional rules, chosen by name (#16)', () => {
  const BY_NAME = `by-name:
  description: Fern is out of stock
  rules:
    addItem:
      - when: { body: { $.name: Fern } }
        sequence: [ { status: 503 }, { status: 404 } ]
`

  it('X-Mock-Scenario applies its rules to that request only', async () => {
    const app = await rulesApp(BY_NAME)
    const scenario = { headers: { 'x-mock-scenario': 'by-name' } }
    expect(await statusesOf(app, [named('Fern', scenario), named('Fern'), named('Fern', scenario)])).toEqual([
      503, 200, 404,
    ])
    expect(app.mock.requests().map((entry) => [entry.scenario, entry.answeredBy])).toEqual([
      ['by-name', 'scenario by-name, addItem rule 1'],
      ['default', undefined],
      ['by-name', 'scenario by-name, addItem rule 1'],
    ])
  })

  it('a session switched to it gets its rules, other sessions do not', async () => {
    const app = await rulesApp(BY_NAME)
    app.mock.useScenario('by-name', { session: 'a' })
    expect(await statusesOf(app, [named('Fern', { session: 'a' }), named('Fern', { session: 'b' })])).toEqual([
      503, 200,
    ])
  })
})
