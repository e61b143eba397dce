/**
 * Which of a list of scenario rules answers (#16), through `createApp().request()`: the first that
 * applies, a rule without `when` as the fallback, the "*" rules after an operation's own; `times`
 * and `sequence` counted per X-Mock-Session (requests without one share a counter), zeroed by
 * POST /__mock/reset, shown in GET /__mock/scenario `hits`; and Prefer, which beats every rule and
 * counts none.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type MockApp } from '../../src/index.js'
import { createApp } from '../support/store-under-test.js'
import { type Sent, rulesApp, send, statusesOf } from '../support/rule-app.js'
import { removeTempDirs } from '../support/temp-dirs.js'

afterEach(removeTempDirs)

const named = (name: string, extra: Omit<Sent, 'body'> = {}): Sent => ({ body: { name }, ...extra })
const times = <T>(count: number, value: T): T[] => Array.from({ length: count }, () => value)

/** The `hits` of GET /__mock/scenario (of one session when given). */
async function hitsOf(app: MockApp, session?: string): Promise<Array<{ rule: string; hits: number }>> {
  const query = session === undefined ? '' : `?session=${encodeURIComponent(session)}`
  const answer = await app.request(`/__mock/scenario${query}`)
  expect(answer.status).toBe(200)
  return ((await answer.json()) as { hits: Array<{ rule: string; hits: number }> }).hits
}

async function reset(app: MockApp, session?: string): Promise<void> {
  const query = session === undefined ? '' : `?session=${encodeURIComponent(session)}`
  expect((await app.request(`/__mock/reset${query}`, { method: 'POST' })).status).toBe(200)
}

describe('rules in order (#16)', () => {
  it('the first rule whose conditions hold answers, though a later one holds too', async () => {
    const app = await rulesApp(`default:
  rules:
    addItem:
      - when: { body: { $.name: Fern } }
        status: 404
      - when: { body: { $.name: { matches: '^F' } } }
        status: 503
`)
    expect(await statusesOf(app, [named('Fern'), named('Fig'), named('Ivy')])).toEqual([404, 503, 200])
    expect(app.mock.requests().map((entry) => entry.answeredBy)).toEqual([
      'scenario default, addItem rule 1',
      'scenario default, addItem rule 2',
      undefined,
    ])
  })

  it('a rule without when answers every request no rule before it took', async () => {
    const app = await rulesApp(`default:
  rules:
    addItem:
      - when: { body: { $.name: Fern } }
        status: 404
      - status: 503
      - when: { body: { $.name: Ivy } }
        status: 400
`)
    // The fallback stands before the Ivy rule, which therefore never answers.
    expect(await statusesOf(app, [named('Fern'), named('Ivy'), named('Oak')])).toEqual([404, 503, 503])
  })

  it('the "*" rules come after the operation own ones, and answer the operations without any', async () => {
    const app = await rulesApp(`default:
  rules:
    "*":
      - when: { headers: { x-tenant: beta } }
        status: 404
      - status: 503
    addItem:
      - when: { body: { $.name: Fern } }
        status: 400
`)
    const beta = { headers: { 'x-tenant': 'beta' } }
    expect(await statusesOf(app, [named('Fern', beta), named('Ivy', beta), named('Ivy'), beta, {}])).toEqual([
      400, 404, 503, 404, 503,
    ])
    expect(app.mock.requests().map((entry) => entry.answeredBy)).toEqual([
      'scenario default, addItem rule 1',
      'scenario default, * rule 1 for addItem',
      'scenario default, * rule 2 for addItem',
      'scenario default, * rule 1 for getItem',
      'scenario default, * rule 2 for getItem',
    ])
  })

  it('an operation own plain rule and a plain "*" rule merge field by field, as before lists', async () => {
    const app = await rulesApp(`default:
  rules:
    "*": { status: 404, delay: 20 }
    addItem: [ { status: 503 } ]
`)
    const post = await send(app, named('Fern'))
    expect(post.status).toBe(503)
    expect(post.ms).toBeGreaterThanOrEqual(19)
    expect((await send(app, {})).status).toBe(404)
  })
})

describe('times and sequence (#16)', () => {
  it('times: 1 answers once, then the next rule that applies does', async () => {
    const app = await rulesApp(`default:
  rules:
    addItem:
      - when: { body: { $.name: Fern } }
        times: 1
        status: 503
      - when: { body: { $.name: Fern } }
        status: 404
`)
    expect(await statusesOf(app, times(3, named('Fern')))).toEqual([503, 404, 404])
  })

  it('times counts only the requests the rule answered', async () => {
    const app = await rulesApp(`default:
  rules:
    addItem:
      - when: { body: { $.name: Fern } }
        times: 2
        status: 503
`)
    const sent = [named('Fern'), named('Ivy'), named('Fern'), named('Fern')]
    expect(await statusesOf(app, sent)).toEqual([503, 200, 503, 200])
  })

  it('a sequence answers in turn, then repeats its last answer', async () => {
    const app = await rulesApp(`default:
  rules:
    addItem:
      - when: { body: { $.name: Fern } }
        sequence: [ { status: 503 }, { status: 404 }, { status: 200 } ]
`)
    expect(await statusesOf(app, times(5, named('Fern')))).toEqual([503, 404, 200, 200, 200])
  })

  it('a request refused after the choice (406) uses up no step of the sequence', async () => {
    const app = await rulesApp(`default:
  rules:
    getItem:
      - sequence: [ { status: 503 }, { status: 404 } ]
`)
    const refused = { headers: { accept: 'text/plain' } }
    expect(await statusesOf(app, [refused, {}, {}])).toEqual([406, 503, 404])
    expect(app.mock.requests().map((entry) => entry.answeredBy)).toEqual([
      undefined,
      'scenario default, getItem rule 1',
      'scenario default, getItem rule 1',
    ])
  })

  it('a sequence with cycle: true starts again after its last answer', async () => {
    const app = await rulesApp(`default:
  rules:
    getItem:
      - sequence: [ { status: 503 }, { status: 404 } ]
        cycle: true
`)
    expect(await statusesOf(app, times(5, {}))).toEqual([503, 404, 503, 404, 503])
  })

  it('a sequence counts only the requests its conditions hold for', async () => {
    const app = await rulesApp(`default:
  rules:
    addItem:
      - when: { body: { $.name: Fern } }
        sequence: [ { status: 503 }, { status: 404 } ]
`)
    expect(await statusesOf(app, [named('Ivy'), named('Fern'), named('Ivy'), named('Fern')])).toEqual([
      200, 503, 200, 404,
    ])
  })
})

const SEQUENCE = `default:
  rules:
    addItem:
      - when: { body: { $.name: Fern } }
        sequence: [ { status: 503 }, { status: 404 }, { status: 200 } ]
`

describe('counters per session (#16)', () => {
  it('two sessions in parallel each go through the sequence on their own counter', async () => {
    const app = await rulesApp(SEQUENCE)
    const run = async (session: string) => statusesOf(app, times(3, named('Fern', { session })))
    expect(await Promise.all([run('a'), run('b'), run('c')])).toEqual(times(3, [503, 404, 200]))
  })

  it('requests without X-Mock-Session share one counter, apart from the sessions', async () => {
    const app = await rulesApp(SEQUENCE)
    expect(await statusesOf(app, [named('Fern'), named('Fern', { session: 'a' }), named('Fern')])).toEqual([
      503, 503, 404,
    ])
  })

  it('POST /__mock/reset zeroes every counter', async () => {
    const app = await rulesApp(SEQUENCE)
    await statusesOf(app, [named('Fern'), named('Fern'), named('Fern', { session: 'a' })])
    await reset(app)
    expect(await statusesOf(app, [named('Fern'), named('Fern', { session: 'a' })])).toEqual([503, 503])
  })

  it('POST /__mock/reset?session= zeroes that session counters only', async () => {
    const app = await rulesApp(SEQUENCE)
    await statusesOf(app, [named('Fern', { session: 'a' }), named('Fern', { session: 'b' }), named('Fern')])
    await reset(app, 'a')
    const after = [named('Fern', { session: 'a' }), named('Fern', { session: 'b' }), named('Fern')]
    expect(await statusesOf(app, after)).toEqual([503, 404, 404])
  })

  it('mock.reset() zeroes the counters too', async () => {
    const app = await rulesApp(SEQUENCE)
    await send(app, named('Fern'))
    app.mock.reset()
    expect((await send(app, named('Fern'))).status).toBe(503)
  })

  it('GET /__mock/scenario lists the hits of each rule, of the session asked', async () => {
    const app = await rulesApp(`default:
  rules:
    addItem:
      - when: { body: { $.name: Fern } }
        sequence: [ { status: 503 }, { status: 404 } ]
      - when: { body: { $.name: Ivy } }
        status: 404
`)
    expect(await hitsOf(app)).toEqual([])
    await statusesOf(app, [named('Fern'), named('Fern'), named('Ivy'), named('Oak'), named('Ivy', { session: 's' })])
    expect(await hitsOf(app)).toEqual([
      { rule: 'scenario default, addItem rule 1', hits: 2 },
      { rule: 'scenario default, addItem rule 2', hits: 1 },
    ])
    expect(await hitsOf(app, 's')).toEqual([{ rule: 'scenario default, addItem rule 2', hits: 1 }])
    await reset(app)
    expect(await hitsOf(app)).toEqual([])
  })
})

describe('Prefer and the query controls beat every rule (#16)', () => {
  const ONCE = `default:
  rules:
    addItem:
      - when: { body: { $.name: Fern } }
        times: 1
        status: 503
`

  it('Prefer: code=400 beats a rule that holds, and does not use up its times', async () => {
    const app = await rulesApp(ONCE)
    const preferred = await send(app, named('Fern', { headers: { prefer: 'code=400' } }))
    expect(preferred.status).toBe(400)
    expect(await hitsOf(app)).toEqual([])
    expect(await statusesOf(app, [named('Fern'), named('Fern')])).toEqual([503, 200])
    expect(app.mock.requests()[0]).toMatchObject({ status: 400, reason: 'forced by Prefer: code=400' })
    expect(app.mock.requests()[0]?.answeredBy).toBeUndefined()
  })

  it('?__code=404 beats a rule that holds, and does not use up its times', async () => {
    const app = await rulesApp(ONCE)
    expect((await send(app, { ...named('Fern'), path: '/items?__code=404' })).status).toBe(404)
    expect(await statusesOf(app, [named('Fern'), named('Fern')])).toEqual([503, 200])
  })

  it('Prefer: example= beats a rule that holds', async () => {
    const app = await rulesApp(ONCE)
    const answer = await send(app, named('Fern', { headers: { prefer: 'example=duplicate' } }))
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual({ error: 400, message: 'An item of this name exists.' })
  })
})

describe('the journal names the built-in scenarios that answer (#16)', () => {
  it('error and unauthorized, their refusal included; not the default answer', async () => {
    const app = await createApp({ tokens: ['t'] })
    const post = (scenario?: string) =>
      app.request('/plants', {
        method: 'POST',
        headers: {
          authorization: 'Bearer t',
          'content-type': 'application/json',
          ...(scenario ? { 'x-mock-scenario': scenario } : {}),
        },
        body: JSON.stringify({ id: 1, name: 'Fern' }),
      })
    expect([(await post('error')).status, (await post('unauthorized')).status, (await post()).status]).toEqual([
      400, 401, 200,
    ])
    expect(app.mock.requests().map((entry) => entry.answeredBy)).toEqual([
      'scenario error',
      'scenario unauthorized',
      undefined,
    ])
  })
})
