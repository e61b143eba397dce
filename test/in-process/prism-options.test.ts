import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { createApp } from '../../src/index.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

afterEach(removeTempDirs)

/**
 * Options behind Prism's generation flags (#13): `ignoreExamples` (`--ignoreExamples`) and
 * `fillProperties` (`--json-schema-faker-fillProperties`), in process, on library.yaml.
 */
const librarySpec = fileURLToPath(new URL('../descriptions/library.yaml', import.meta.url))
const key = { 'x-library-key': 'any-key' }
/** The example library.yaml writes for GET /books. */
const booksExample = [
  { id: 7, title: 'The Left Hand of Darkness', subtitle: null, rating: 4.5 },
  { id: 8, title: 'Piranesi', subtitle: 'A Novel' },
]

async function getJson(app: Awaited<ReturnType<typeof createApp>>, path: string, headers: Record<string, string> = {}) {
  const res = await app.request(path, { headers: { ...key, ...headers } })
  return { status: res.status, body: (await res.json()) as any }
}

describe('ignoreExamples (Prism --ignoreExamples) #13', () => {
  it('serves the description’s example without it', async () => {
    const app = await createApp({ spec: librarySpec, seed: 7 })
    expect(await getJson(app, '/books')).toEqual({ status: 200, body: booksExample })
  })

  it('generates the body of a response that has an example, the same for the same seed', async () => {
    const [first, second] = await Promise.all(
      [1, 2].map(() => createApp({ spec: librarySpec, seed: 7, ignoreExamples: true })),
    )
    const body = (await getJson(first!, '/books')).body
    expect(body).not.toEqual(booksExample)
    expect(Array.isArray(body)).toBe(true)
    for (const book of body) expect(Object.keys(book)).toEqual(expect.arrayContaining(['id', 'title', 'subtitle']))
    expect((await getJson(second!, '/books')).body).toEqual(body)
  })

  it('knows no example by name: Prefer: example= names only fixtures', async () => {
    const app = await createApp({ spec: librarySpec, seed: 7, ignoreExamples: true })
    const { status, body } = await getJson(app, '/books', { prefer: 'example=default' })
    expect(status).toBeGreaterThanOrEqual(400)
    expect(body.message).toContain('matches no fixture or example')
  })

  it('still serves fixtures: the Plant Store answers its fixture', async () => {
    const app = await createApp({ ignoreExamples: true, seed: 7 })
    const res = await app.request('/plants', {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, name: 'Fern' }),
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ name: 'Fern' })
  })
})

describe('fillProperties (Prism --json-schema-faker-fillProperties) #13', () => {
  it('generates every optional property by default', async () => {
    const app = await createApp({ spec: librarySpec, seed: 7 })
    expect(Object.keys((await getJson(app, '/books/42')).body).sort()).toEqual(['id', 'rating', 'subtitle', 'title'])
  })

  it('generates only the required properties with fillProperties false', async () => {
    const app = await createApp({ spec: librarySpec, seed: 7, fillProperties: false })
    for (let i = 0; i < 5; i++) {
      const { status, body } = await getJson(app, '/books/42')
      expect(status).toBe(200)
      expect(Object.keys(body).sort()).toEqual(['id', 'subtitle', 'title'])
    }
  })
})

describe('x-json-schema-faker (Prism reads it from the description) #13', () => {
  it('is not read, and start-up says so and what to use instead', async () => {
    const warnings: string[] = []
    const dir = await tempDir('mock-jsf-', {
      'api.yaml': 'openapi: 3.0.3\ninfo: {title: t, version: "1"}\nx-json-schema-faker: {min-items: 2}\npaths: {}\n',
    })
    await createApp({
      spec: join(dir, 'api.yaml'),
      logger: { info() {}, warn: (m: string) => warnings.push(m), error() {} },
    })
    expect(warnings).toEqual([
      expect.stringContaining(
        'x-json-schema-faker is not read: bodies are static unless --dynamic, and generation is set with --json-schema-faker-fillProperties and --seed.',
      ),
    ])
  })
})
