/**
 * POST /plants in process, through `createApp().request()`: the shared case table
 * (`test/support/cases.ts`), then what only the in-process path can show.
 */
import type { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import {
  cases,
  expectCase,
  expectErrorBody,
  expectPlant,
  fixtures,
  optionsKey,
  plantOfSize,
  type RequestCase,
  sendInProcess,
} from '../support/cases.js'

const apps = new Map<string, Promise<Hono<any>>>()

function appFor(testCase: RequestCase): Promise<Hono<any>> {
  const key = optionsKey(testCase.options)
  let app = apps.get(key)
  if (!app) apps.set(key, (app = createApp(testCase.options)))
  return app
}

const auth = { authorization: 'Bearer t', 'content-type': 'application/json' }

/** A valid POST /plants with what the test changes; a header set to `undefined` is left out. */
function postPlant(
  app: Hono<any>,
  init: { headers?: Record<string, string | undefined>; body?: RequestInit['body'] } = {},
) {
  const headers = Object.entries({ ...auth, ...init.headers }).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  )
  return app.request('/plants', {
    method: 'POST',
    headers,
    body: 'body' in init ? init.body : '{"id":1,"name":"Fern"}',
    // A stream body needs this in Node's Request.
    ...(init.body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit)
}

/** The JSON body of a response; every body of this API is a JSON object. */
async function jsonOf(response: Response): Promise<Record<string, any>> {
  return (await response.json()) as Record<string, any>
}

async function generatedSequence(seed: number, length = 5): Promise<unknown[]> {
  const app = await createApp({ seed })
  const bodies: unknown[] = []
  for (let i = 0; i < length; i++)
    bodies.push(await jsonOf(await postPlant(app, { headers: { prefer: 'dynamic=true' } })))
  return bodies
}

/** A body as a stream in pieces, with no Content-Length: the in-process form of a chunked body. */
function streamOf(text: string, pieces: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  const size = Math.ceil(bytes.length / pieces)
  let offset = 0
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close()
      controller.enqueue(bytes.slice(offset, (offset += size)))
    },
  })
}

describe('POST /plants through app.request()', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
    expectCase(testCase, await sendInProcess(await appFor(testCase), testCase.request))
  })
})

describe('POST /plants, in process only', () => {
  it('two apps with seed 42 generate the same sequence of plants', async () => {
    const [first, second] = await Promise.all([generatedSequence(42), generatedSequence(42)])
    expect(first).toEqual(second)
    for (const body of first) expectPlant(body as Record<string, unknown>)
  })

  it('apps with different seeds generate different sequences', async () => {
    const [a, b] = await Promise.all([generatedSequence(42), generatedSequence(43)])
    expect(a).not.toEqual(b)
  })

  it('the dynamic option generates plants in place of the fixture', async () => {
    const app = await createApp({ dynamic: true, seed: 7 })
    const bodies = await Promise.all([1, 2, 3].map(async () => jsonOf(await postPlant(app))))
    for (const body of bodies) expectPlant(body)
    expect(bodies).not.toContainEqual(fixtures.ok)
  })

  it('Prefer: dynamic=false serves the fixture under the dynamic option', async () => {
    const app = await createApp({ dynamic: true, seed: 7 })
    const response = await postPlant(app, { headers: { prefer: 'dynamic=false' } })
    expect(response.status).toBe(200)
    expect(await jsonOf(response)).toEqual({ name: 'Fern' })
  })

  it('a streamed body with no Content-Length over maxBodyBytes gets 413', async () => {
    const app = await createApp({ maxBodyBytes: 1024 })
    const response = await postPlant(app, { body: streamOf(plantOfSize(4096), 8) })
    expect(response.status).toBe(413)
    const body = await jsonOf(response)
    expectErrorBody(body, 413)
    expect(body.message).toContain('1024 bytes')
  })

  it('a streamed body with no Content-Length within maxBodyBytes is read in full', async () => {
    const app = await createApp({ maxBodyBytes: 1024 })
    const response = await postPlant(app, { body: streamOf(plantOfSize(1024), 8) })
    expect(response.status).toBe(200)
    expect(await jsonOf(response)).toEqual(
      JSON.parse(plantOfSize(1024), (key, value) => (key === 'id' ? undefined : value)),
    )
  })

  it('a streamed invalid body gets its violations named', async () => {
    const app = await createApp()
    const response = await postPlant(app, { body: streamOf('{"id":1.5}', 3) })
    expect(response.status).toBe(400)
    const body = await jsonOf(response)
    expectErrorBody(body, 400)
    expect(body.message).toContain('body.id must be an integer')
    expect(body.message).toContain('body.name is required')
  })

  it('an empty body with no Content-Type gets 400, not 415', async () => {
    const app = await createApp()
    const response = await postPlant(app, { headers: { 'content-type': undefined }, body: new Uint8Array(0) })
    expect(response.status).toBe(400)
    expect((await jsonOf(response)).message).toContain('body is required')
  })

  // Nesting is bounded at 256 levels before anything walks the body (#12): the known bug of
  // lossless-json recursing on 100,000 levels beside an exact int64 can no longer be reached.
  it('refuses a body nested deeper than 256 levels, naming the limit, and takes 256', async () => {
    const app = await createApp()
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`
    const refused = await postPlant(app, { body: `{"id":9223372036854775807,"name":"Fern","x":${deep(100_000)}}` })
    expect(refused.status).toBe(400)
    expect((await jsonOf(refused)).message).toContain(
      'body.x[0][0][0]…[0][0][0][0] opens level 257 of nesting at position 299: the limit is 256 levels (--max-depth)',
    )
    const deepest = await postPlant(app, {
      body: `{"id":9223372036854775807,"name":"Fern","tag":"x","x":${deep(255)}}`,
    })
    expect((await jsonOf(deepest)).message ?? '').not.toContain('nested')
  })

  it('fifty concurrent requests each get their own answer', async () => {
    const app = await createApp()
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        postPlant(app, { body: i % 2 ? '{"id":1,"name":"Fern"}' : `{"id":${i}.5,"name":"Fern"}` }),
      ),
    )
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 50 }, (_, i) => (i % 2 ? 200 : 400)))
  })

  it('a failed request leaves the app serving the next one', async () => {
    const app = await createApp()
    expect((await postPlant(app, { body: '['.repeat(100_000) })).status).toBe(400)
    const response = await postPlant(app)
    expect(response.status).toBe(200)
    expect(await jsonOf(response)).toEqual({ name: 'Fern' })
  })
})
