/**
 * Prism's own example description, `examples/petstore.oas3.yaml` (Apache-2.0, LICENSE beside it),
 * as a new user met it (#36): five operationIds shared by /pets and /no_auth/pets, an operation
 * whose only answer is 405, and literal sub-paths of a collection.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'

const spec = fileURLToPath(new URL('../descriptions/wild/prism-petstore/petstore.oas3.yaml', import.meta.url))

async function petstore(options: Record<string, unknown> = {}) {
  const warnings: string[] = []
  const infos: string[] = []
  const logger = { info: (m: string) => void infos.push(m), warn: (m: string) => void warnings.push(m), error() {} }
  const app = await createApp({ spec, logger, ...options })
  return { app, warnings, infos }
}

const json = { 'content-type': 'application/json', authorization: 'Bearer t' }

describe("Prism's petstore (#36)", () => {
  it('starts, warning once of every shared operationId with both its paths; each operation is told apart', async () => {
    const { app, warnings } = await petstore()
    const [warning] = warnings.filter((w) => w.includes('shared by several operations'))
    for (const id of ['addPet', 'findPetsByStatus', 'findPetsByTags', 'getPetById', 'updatePetWithForm'])
      expect(warning).toContain(id)
    expect(warning).toContain('getPetById (GET /no_auth/pets/{petId}, GET /pets/{petId})')
    await app.request('/no_auth/pets/1')
    await app.request('/pets/1', { headers: { api_key: 'k' } })
    expect(app.mock.requests().map((r) => r.operation)).toEqual(['getPetById', 'GET /pets/{petId}'])
  })

  it('--dynamic fills every declared field through $refs at any depth: tags and category are not empty objects (#36 §2)', async () => {
    const { app } = await petstore({ dynamic: true, seed: 1 })
    for (const path of ['/no_auth/pets/1', '/no_auth/pets/findByStatus?status=available']) {
      const answer = await app.request(path)
      expect(answer.status).toBe(200)
      const body = (await answer.json()) as unknown
      const pets = (Array.isArray(body) ? body : [body]) as Array<Record<string, any>>
      expect(pets.length).toBeGreaterThan(0)
      for (const pet of pets) {
        // Pet.category and Pet.tags[] are $refs to Category and Tag, whose fields are all optional.
        expect(Object.keys(pet.category).sort()).toEqual(['id', 'name'])
        expect(pet.tags.length).toBeGreaterThan(0)
        for (const tag of pet.tags) expect(Object.keys(tag).sort()).toEqual(['id', 'name'])
      }
    }
  })

  it('--stateful stores nothing for POST /pets, whose only answer is 405', async () => {
    const { app } = await petstore({ stateful: true })
    const refused = await app.request('/pets', { method: 'POST', headers: json, body: '{"name":"rex","photoUrls":[]}' })
    expect(refused.status).toBe(405)
    const [entry] = app.mock.requests()
    expect(entry!.data).toBeUndefined()
    expect(app.mock.state.get('pets')).toEqual([])
  })

  it('--stateful: /pets/findByStatus is a filtered list of the pets, not a resource of its own', async () => {
    const { app, infos } = await petstore({ stateful: true })
    expect(infos.some((line) => line.startsWith('resource pets/findByStatus'))).toBe(false)
    expect(infos.find((line) => line.startsWith('resource pets:'))).toContain('filters by status')
    await app.mock.state.set('pets', [
      { id: 1, name: 'rex', photoUrls: [], status: 'available' },
      { id: 2, name: 'tom', photoUrls: [], status: 'sold' },
    ])
    const listed = async (status: string) =>
      (
        (await (await app.request(`/pets/findByStatus?status=${status}`, { headers: json })).json()) as Array<{
          name: string
        }>
      ).map((pet) => pet.name)
    expect(await listed('available')).toEqual(['rex'])
    expect(await listed('sold')).toEqual(['tom'])
  })

  it('a mistake in using the mock’s controls gets the mock’s own error body; an invalid request to a bodiless 400 stays bodiless (#36 §5)', async () => {
    const { app } = await petstore()
    const undeclared = await app.request('/no_auth/pets/findByStatus?status=available&__code=500')
    expect(undeclared.status).toBe(404)
    expect(await undeclared.json()).toMatchObject({ error: 404, message: expect.stringContaining('__code=500') })
    const unknown = await app.request('/no_auth/pets/1', { headers: { prefer: 'example=nope' } })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ message: expect.stringContaining('example=nope') })
    const invalid = await app.request('/no_auth/pets/abc')
    expect(invalid.status).toBe(400)
    expect(await invalid.text()).toBe('')
    expect(invalid.headers.get('x-mock-error')).toContain('petId')
  })
})
