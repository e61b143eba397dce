/**
 * Conditions and stubs on descriptions no one here wrote (#16): the Swagger Petstore 3 (its facts, in
 * test/descriptions/public/) and the Swagger 2.0 petstore, through conversion. Conditions on a path
 * parameter, a query parameter and JSON paths through `$ref`'d schemas; a path the Pet schema makes
 * impossible refused at start-up and at a stub's creation.
 */
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { expectStartupError } from '../support/startup-error.js'
import { removeTempDirs, tempDirSync } from '../support/temp-dirs.js'

const petstore3 = fileURLToPath(new URL('../descriptions/public/petstore3.yaml', import.meta.url))
const swagger2 = fileURLToPath(new URL('../descriptions/swagger2-petstore.yaml', import.meta.url))
const auth = { authorization: 'Bearer t', api_key: 'k' }
const pet = (name: string, tag: string) =>
  JSON.stringify({
    id: 10,
    name,
    photoUrls: ['https://example.com/d.png'],
    tags: [{ id: 1, name: tag }],
    status: 'available',
  })

afterEach(removeTempDirs)

const withScenarios = (yaml: string) => tempDirSync('rules-public-', { 'scenarios.yaml': yaml })

describe('conditional rules on the Swagger Petstore 3', () => {
  it('answer by path parameter, query parameter and a JSON path through $ref, else as usual', async () => {
    const app = await createApp({
      spec: petstore3,
      fixtures: withScenarios(`default:
  rules:
    getPetById:
      - when: { params: { petId: { gt: 1000 } } }
        status: 404
    findPetsByStatus:
      - when: { query: { status: { in: [sold] } } }
        status: 400
    addPet:
      - when: { body: { '$.tags[0].name': blocked, $.name: { matches: '^Rex' } } }
        status: 422
`),
    })
    const get = (path: string) => app.request(path, { headers: auth })
    const add = (body: string) =>
      app.request('/pet', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body })
    expect((await get('/pet/5000')).status).toBe(404)
    expect((await get('/pet/5')).status).toBe(200)
    expect((await get('/pet/findByStatus?status=sold')).status).toBe(400)
    expect((await get('/pet/findByStatus?status=pending')).status).toBe(200)
    expect((await add(pet('Rex the dog', 'blocked'))).status).toBe(422)
    expect((await add(pet('Rex the dog', 'friendly'))).status).toBe(200)
    expect((await add(pet('Fido', 'blocked'))).status).toBe(200)
    const [, , , , , friendly] = app.mock.requests()
    expect(friendly!.nearMiss).toEqual({
      rule: 'scenario default, addPet rule 1',
      condition: 'body $.tags[0].name equals "blocked"',
      actual: '"friendly"',
    })
  })

  it('refuses at start-up a JSON path the Pet schema makes impossible, naming the rule', async () => {
    const error = await expectStartupError(
      createApp({
        spec: petstore3,
        fixtures: withScenarios(`default:
  rules:
    addPet:
      - when: { body: { '$.photoUrls[0].href': { exists: true } } }
        status: 422
`),
      }),
      'scenario_bad_condition',
    )
    expect(error.message).toContain('rule "addPet" #1')
    expect(error.message).toContain('$.photoUrls[0].href')
  })

  it('takes a stub on a path parameter, and refuses one whose path no Pet has', async () => {
    const app = await createApp({ spec: petstore3 })
    const stub = app.mock.stub({ operation: 'GET /pet/{petId}', when: { params: { petId: 7 } }, status: 404, times: 1 })
    expect((await app.request('/pet/7', { headers: auth })).status).toBe(404)
    expect((await app.request('/pet/7', { headers: auth })).status).toBe(200)
    expect(stub.hits).toBe(1)
    expect(() =>
      app.mock.stub({ operation: 'addPet', when: { body: { '$.name.first': 'Rex' } }, status: 422 }),
    ).toThrow(/addPet: when\.body\["\$\.name\.first"\]/)
  })
})

describe('conditional rules on a Swagger 2.0 description', () => {
  it('read the converted description: a path parameter and the body of addPet', async () => {
    const app = await createApp({
      spec: swagger2,
      fixtures: withScenarios(`default:
  rules:
    getPet:
      - when: { params: { petId: { equals: 13 } } }
        status: 404
    addPet:
      - when: { body: { $.tag: { exists: false } } }
        status: 400
`),
    })
    expect((await app.request('/v2/pets/13')).status).toBe(404)
    expect((await app.request('/v2/pets/12')).status).toBe(200)
    const add = (body: object) =>
      app.request('/v2/pets', {
        method: 'POST',
        headers: { api_key: 'k', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    expect((await add({ name: 'Rex' })).status).toBe(400)
    expect((await add({ name: 'Rex', tag: 'dog' })).status).toBe(201)
  })
})
