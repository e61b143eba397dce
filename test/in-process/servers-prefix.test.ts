import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockServer, createApp, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'

/**
 * Paths under the `servers` URL (#13 §2): test/descriptions/servers-prefix.yaml declares
 * `https://api.example.com/api/v3` and `https://{region}.example.com/{basePath}` (basePath `v1`), and
 * is served at the root, under `/api/v3` and under `/v1`. Prism 5.14 (`prism mock -p 0`) serves the
 * same description at the root only: `GET /api/v3/pets` and `GET /v1/pets` are 404 there.
 */
const spec = fileURLToPath(new URL('../descriptions/servers-prefix.yaml', import.meta.url))
const plantStore = fileURLToPath(new URL('../../openapi.yaml', import.meta.url))
const swagger2 = fileURLToPath(new URL('../descriptions/swagger2-petstore.yaml', import.meta.url))

type App = Awaited<ReturnType<typeof createApp>>

const jsonOf = (res: Response): Promise<any> => res.json()

describe('paths under the servers URL, in process', () => {
  let app: App
  beforeAll(async () => {
    app = await createApp({ spec })
  })

  it('serves an operation at the root, under the servers URL path and under the variables’ defaults', async () => {
    for (const path of ['/pets', '/api/v3/pets', '/v1/pets']) {
      const res = await app.request(path)
      expect(res.status, path).toBe(200)
      expect(await jsonOf(res)).toEqual([{ id: 1, name: 'Rex' }])
    }
  })

  it('gives the operation its own path: path parameters, query and validation work the same', async () => {
    expect((await app.request('/api/v3/pets/7')).status).toBe(200)
    const badId = await app.request('/api/v3/pets/seven')
    expect(badId.status).toBe(422)
    expect((await jsonOf(badId)).message).toContain('path.petId must be an integer')
    const badLimit = await app.request('/v1/pets?limit=50')
    expect(badLimit.status).toBe(422)
    expect((await jsonOf(badLimit)).message).toContain('query.limit must be <= 10')
  })

  it('journals the path as sent, with the operation it reached', async () => {
    app.mock.clearRequests()
    await app.request('/api/v3/pets/3')
    const [entry] = app.mock.requests()
    expect(entry?.path).toBe('/api/v3/pets/3')
    expect(entry?.operation).toBe('showPet')
  })

  it('matches a described path that starts with a prefix before taking the prefix off', async () => {
    expect(await (await app.request('/v1/status')).json()).toEqual({ own: true })
    expect(await (await app.request('/status')).json()).toEqual({ own: false })
    expect(await (await app.request('/api/v3/status')).json()).toEqual({ own: false })
  })

  it('takes a prefix off only at a segment boundary', async () => {
    expect((await app.request('/api/v3pets')).status).toBe(404)
  })

  it('answers 404 naming where paths are served, and 405 under a prefix with the path as sent', async () => {
    const missing = await app.request('/api/v3/owners')
    expect(missing.status).toBe(404)
    expect((await jsonOf(missing)).message).toBe(
      'No operation in the description matches GET /api/v3/owners; paths are served at the root and under /api/v3, /v1; of the 4 paths declared, the closest are /pets, /status, /v1/status.',
    )
    const method = await app.request('/api/v3/pets', { method: 'DELETE' })
    expect(method.status).toBe(405)
    expect(method.headers.get('allow')).toBe('GET')
    expect((await jsonOf(method)).message).toContain('DELETE is not declared for /api/v3/pets')
  })
})

describe('paths under the servers URL, over a socket', () => {
  let server: MockServer
  beforeAll(async () => {
    server = await startMockServer({ spec, port: 0, logger: silentLogger })
  })
  afterAll(async () => {
    await server?.close()
  })

  it('serves the prefixed path and the root alike', async () => {
    for (const path of ['/pets/1', '/api/v3/pets/1', '/v1/pets/1']) {
      const res = await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(5000) })
      expect(res.status, path).toBe(200)
      expect(await jsonOf(res)).toEqual({ id: 1, name: 'Rex' })
    }
  })
})

describe('servers URLs without a path', () => {
  it('keeps the Plant Store (servers: http://127.0.0.1:4010) at the root, with the 404 as before', async () => {
    const app = await createApp({ spec: plantStore })
    expect((await app.request('/plants')).status).not.toBe(404)
    const missing = await app.request('/nowhere')
    expect((await jsonOf(missing)).message).toBe(
      'No operation in the description matches GET /nowhere; the one path declared is /plants.',
    )
  })
})

describe('a Swagger 2.0 basePath', () => {
  it('serves the operations under basePath (/v2) and at the root', async () => {
    const app = await createApp({ spec: swagger2, seed: 11 })
    expect((await app.request('/pets/7')).status).toBe(200)
    expect((await app.request('/v2/pets/7')).status).toBe(200)
    expect((await app.request('/v2/pets/seven')).status).toBe(422)
  })
})
