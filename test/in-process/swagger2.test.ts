import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'

/** A Swagger 2.0 description (test/descriptions/swagger2-petstore.yaml) served like any other (#7). */
const spec = fileURLToPath(new URL('../descriptions/swagger2-petstore.yaml', import.meta.url))

type App = Awaited<ReturnType<typeof createApp>>

const jsonOf = (res: Response): Promise<any> => res.json()

describe('a Swagger 2.0 description (#7)', () => {
  let app: App
  beforeAll(async () => {
    app = await createApp({ spec, seed: 11 })
  })

  it('serves a generated array of pets that the bundled definition describes', async () => {
    const res = await app.request('/pets?tags=a|b&limit=5')
    expect(res.status).toBe(200)
    const pets = await jsonOf(res)
    expect(Array.isArray(pets)).toBe(true)
    for (const pet of pets) {
      expect(Object.keys(pet).sort()).toEqual(['id', 'name'])
      expect(Number.isInteger(pet.id)).toBe(true)
    }
  })

  it('validates a query parameter against the bounds of the Swagger parameter', async () => {
    const res = await app.request('/pets?limit=500')
    expect(res.status).toBe(422)
    expect((await jsonOf(res)).message).toContain('query.limit must be <= 100')
  })

  it('coerces a Swagger path parameter to its integer type', async () => {
    expect((await app.request('/pets/7')).status).toBe(200)
    const res = await app.request('/pets/seven')
    expect(res.status).toBe(422)
    expect((await jsonOf(res)).message).toContain('path.petId must be an integer')
  })

  it('enforces the Swagger security definition of an operation', async () => {
    const res = await app.request('/pets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"Rex"}',
    })
    expect(res.status).toBe(401)
  })

  it('validates the body parameter as a request body and answers the declared 201', async () => {
    const headers = { 'content-type': 'application/json', api_key: 'k' }
    expect((await app.request('/pets', { method: 'POST', headers, body: '{"name":"Rex","tag":null}' })).status).toBe(
      201,
    )
    const res = await app.request('/pets', { method: 'POST', headers, body: '{"tag":"x"}' })
    // The operation's `default` response has its own Error shape, so the message travels in a header.
    expect(res.status).toBe(422)
    expect(res.headers.get('x-mock-error')).toContain('body.name is required')
  })
})
