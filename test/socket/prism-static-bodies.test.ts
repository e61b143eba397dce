/**
 * Static bodies (#13), the mock beside Stoplight Prism 5.14 itself: both serve
 * test/descriptions/static-bodies.yaml (schemas, no examples) on loopback without --dynamic. Both answer
 * the same body to the same request every time; where Prism's body meets the schema, the mock's
 * has the same values (both sample with @stoplight/json-schema-sampler); where Prism's breaks it (a pattern it writes as "string", unique
 * items it repeats, a recursion it cuts with `{}`), the mock's differs and meets it. Each such
 * difference is named below with both answers, so that a change on either side shows.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import { addDescriptionSchema, compileAt, createAjv } from '../../src/validation/create-ajv.js'
import { prismBesideMock } from '../support/prism.js'

const spec = fileURLToPath(new URL('../descriptions/static-bodies.yaml', import.meta.url))
const ajv = addDescriptionSchema(createAjv(), parse(readFileSync(spec, 'utf8')))

const servers = prismBesideMock(spec)

async function ask(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(10_000) })
  return { status: response.status, text: await response.text() }
}

function meets(schemaPath: string, value: unknown): boolean {
  return compileAt(ajv, `/paths/${schemaPath}/content/application~1json/schema`)(value) as boolean
}

const plant = '~1plants~1{id}/get/responses/200'

describe('static bodies beside Prism 5.14 (#13)', () => {
  it.each(['/plants/1', '/plants', '/nodes', '/pets', '/codes', '/tasks'])(
    '%s: each answers the same body every time',
    async (path) => {
      for (const base of [servers.prismUrl, servers.mock.url]) {
        const [first, second] = [await ask(base, path), await ask(base, path)]
        expect(first.status).toBe(200)
        expect(second.text).toBe(first.text)
      }
    },
  )

  it('GET /plants/1: the same values where Prism meets the schema; the pattern and unique items only the mock meets', async () => {
    const theirs = JSON.parse((await ask(servers.prismUrl, '/plants/1')).text)
    const ours = JSON.parse((await ask(servers.mock.url, '/plants/1')).text)
    const { code: theirCode, tags: theirTags, ...theirRest } = theirs
    const { code: ourCode, tags: ourTags, ...ourRest } = ours
    expect(ourRest).toEqual(theirRest)
    // Prism: "string" for `^[A-Z]{2}\d{3}$`, and ["green","green"] for uniqueItems; neither meets the schema.
    expect([theirCode, theirTags]).toEqual(['string', ['green', 'green']])
    expect(meets(plant, theirs)).toBe(false)
    expect(ourCode).toMatch(/^[A-Z]{2}\d{3}$/)
    // The mock leaves the optional list out rather than break uniqueItems.
    expect(ourTags).toBeUndefined()
    expect(meets(plant, ours)).toBe(true)
  })

  it('GET /pets: the same body, the discriminated oneOf’s first branch', async () => {
    const [theirs, ours] = await Promise.all([ask(servers.prismUrl, '/pets'), ask(servers.mock.url, '/pets')])
    expect(JSON.parse(ours.text)).toEqual(JSON.parse(theirs.text))
  })

  it('GET /tasks: every declared property, the example first, the same body as Prism (#30)', async () => {
    const [theirs, ours] = await Promise.all([ask(servers.prismUrl, '/tasks'), ask(servers.mock.url, '/tasks')])
    expect(JSON.parse(theirs.text)).toEqual({
      title: 'Work',
      description: 'string',
      priority: 0,
      done: true,
      labels: ['string'],
    })
    expect(ours.text).toBe(theirs.text)
  })

  it('GET /nodes: Prism cuts the recursion with {}, which breaks `required`; the mock mends it', async () => {
    const theirs = JSON.parse((await ask(servers.prismUrl, '/nodes')).text)
    const ours = JSON.parse((await ask(servers.mock.url, '/nodes')).text)
    expect(theirs).toEqual({ name: 'string', children: [{ name: 'string', children: [{}] }] })
    expect(meets('~1nodes/get/responses/200', theirs)).toBe(false)
    expect(ours.name).toBe('string')
    expect(meets('~1nodes/get/responses/200', ours)).toBe(true)
  })

  it('GET /codes (text/plain with a pattern): Prism answers "string", the mock a string the pattern matches', async () => {
    expect((await ask(servers.prismUrl, '/codes')).text).toBe('string')
    expect((await ask(servers.mock.url, '/codes')).text).toMatch(/^[A-Z]{3}-[0-9]{4}$/)
  })

  it('Prefer: code=404 answers the same sampled error body in both', async () => {
    const [theirs, ours] = await Promise.all([
      ask(servers.prismUrl, '/plants/1', { prefer: 'code=404' }),
      ask(servers.mock.url, '/plants/1', { prefer: 'code=404' }),
    ])
    expect([ours.status, JSON.parse(ours.text)]).toEqual([theirs.status, JSON.parse(theirs.text)])
  })
})
