/**
 * Deterministic bodies by default (#13): without `--dynamic`, a response with a schema and no
 * fixture or example answers one body made from its schema (@stoplight/json-schema-sampler, then checked
 * and mended), the same on every request and on every run, whatever the seed and whatever was asked
 * before. `--dynamic`, `Prefer: dynamic=true` and `?__dynamic=true` keep generated bodies.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createApp, type MockApp } from '../../src/index.js'
import { addDescriptionSchema, compileAt, createAjv } from '../../src/validation/create-ajv.js'
import { parse } from 'yaml'
import { readFileSync } from 'node:fs'
import { silentLogger } from '../../src/common/log.js'

const spec = fileURLToPath(new URL('../descriptions/static-bodies.yaml', import.meta.url))
const document = parse(readFileSync(spec, 'utf8'))
const ajv = addDescriptionSchema(createAjv(), document)
const paths = ['/plants/1', '/plants', '/nodes', '/pets', '/tasks']

async function body(app: MockApp, path: string, headers: Record<string, string> = {}) {
  const res = await app.request(path, { headers })
  expect(res.status, path).toBe(200)
  expect(res.headers.get('x-mock-violations'), path).toBeNull()
  return res.text()
}

function schemaOf(path: string): string {
  const template = path === '/plants/1' ? '/plants/{id}' : path
  return `/paths/${template.replaceAll('/', '~1')}/get/responses/200/content/application~1json/schema`
}

describe('static bodies (#13)', () => {
  it('answers the same body to every request, and the same after a restart with another seed', async () => {
    const first = await createApp({ spec, seed: 1, logger: silentLogger })
    const second = await createApp({ spec, seed: 999, logger: silentLogger })
    // The second app is asked in another order, so that no body depends on what came before.
    const answers = new Map<string, string>()
    for (const path of paths) answers.set(path, await body(first, path))
    for (const path of paths) expect(await body(first, path), path).toBe(answers.get(path))
    for (const path of [...paths].reverse()) expect(await body(second, path), path).toBe(answers.get(path))
  })

  it('answers bodies that meet their schemas, with the schema’s own values where it has some', async () => {
    const app = await createApp({ spec, logger: silentLogger, errors: true })
    for (const path of paths) {
      const value = JSON.parse(await body(app, path))
      const validate = compileAt(ajv, schemaOf(path))
      expect(validate(value), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true)
    }
    const plant = JSON.parse(await body(app, '/plants/1'))
    // The default, the first enum value, the minimum: what the schema says first.
    expect(plant).toMatchObject({ id: 1, name: 'Fern', status: 'growing', height: 0.5 })
    expect(plant.code).toMatch(/^[A-Z]{2}\d{3}$/)
    // The sampler repeats the first enum value, which uniqueItems forbids: what cannot be mended is left out, being optional.
    if (plant.tags !== undefined) expect(new Set(plant.tags).size).toBe(plant.tags.length)
  })

  it('answers every declared property where one has an example, as Prism does (#30)', async () => {
    const app = await createApp({ spec, logger: silentLogger })
    expect(JSON.parse(await body(app, '/tasks'))).toEqual({
      title: 'Work',
      description: 'string',
      priority: 0,
      done: true,
      labels: ['string'],
    })
  })

  it('answers the required properties only with fillProperties false (#30)', async () => {
    const app = await createApp({ spec, logger: silentLogger, fillProperties: false })
    expect(await body(app, '/tasks')).toBe('{"title":"Work"}')
  })

  it('makes text and XML bodies the same way', async () => {
    const app = await createApp({ spec, logger: silentLogger })
    const code = await body(app, '/codes')
    expect(code).toMatch(/^[A-Z]{3}-[0-9]{4}$/)
    expect(await body(app, '/codes')).toBe(code)
    const xml = await body(app, '/plants/1', { accept: 'application/xml' })
    expect(xml).toContain('<name>Fern</name>')
    expect(await body(app, '/plants/1', { accept: 'application/xml' })).toBe(xml)
  })

  it('samples error bodies too: a forced 404 answers the same body each time', async () => {
    const app = await createApp({ spec, logger: silentLogger })
    const answers = await Promise.all(
      [1, 2].map(async () => (await app.request('/plants/1', { headers: { prefer: 'code=404' } })).text()),
    )
    expect(answers[0]).toBe(answers[1])
    expect(JSON.parse(answers[0]!)).toMatchObject({ title: expect.any(String), status: 400 })
  })

  it('samples only required properties when fillProperties is false', async () => {
    const app = await createApp({ spec, logger: silentLogger, fillProperties: false })
    const plant = JSON.parse(await body(app, '/plants/1'))
    expect(Object.keys(plant).sort()).toEqual(['added', 'code', 'id', 'name', 'status'])
  })

  it('generates per request with --dynamic, Prefer: dynamic=true or ?__dynamic=true', async () => {
    const fixed = await createApp({ spec, logger: silentLogger })
    const sampled = await body(fixed, '/plants/1')
    const dynamic = await createApp({ spec, logger: silentLogger, dynamic: true, seed: 3 })
    const generated = [await body(dynamic, '/plants/1'), await body(dynamic, '/plants/1')]
    expect(generated[0]).not.toBe(generated[1])
    expect(generated).not.toContain(sampled)
    const perRequest = [
      await body(fixed, '/plants/1', { prefer: 'dynamic=true' }),
      await body(fixed, '/plants/1?__dynamic=true'),
    ]
    expect(perRequest).not.toContain(sampled)
    expect(perRequest[0]).not.toBe(perRequest[1])
    // And `dynamic=false` asks a dynamic mock for the static body.
    expect(await body(dynamic, '/plants/1', { prefer: 'dynamic=false' })).toBe(sampled)
  })
})
