import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { createFaker } from '../../src/generation/fake.js'
import { deriveReadWriteViews } from '../../src/openapi/read-write-only.js'
import { compileAt } from '../../src/validation/create-ajv.js'
import { ajvFor, documentWithResponses, jsonResponse, responsesOf } from '../support/builders.js'
import { bodyProblems } from '../../src/validation/check-response-body.js'

// json-schema-faker is loaded on demand (#33); the engine loads it at start-up, and these make fakers of their own.
beforeAll(() => createFaker({}, 0).load())

const spec = fileURLToPath(new URL('../descriptions/read-write-only.yaml', import.meta.url))
const fixtures = fileURLToPath(new URL('../descriptions/read-write-only-fixtures', import.meta.url))

/** A User whose id is readOnly and whose password is writeOnly, both required (3.1: flags beside `$ref`s too). */
function usersDocument(): Record<string, any> {
  return documentWithResponses(
    { '200': jsonResponse({ $ref: '#/components/schemas/User' }) },
    {
      User: {
        type: 'object',
        required: ['id', 'name', 'password', 'secret'],
        properties: {
          id: { type: 'integer', readOnly: true },
          name: { type: 'string' },
          password: { type: 'string', writeOnly: true },
          secret: { $ref: '#/components/schemas/Secret', writeOnly: true },
        },
      },
      Secret: { type: 'string' },
      Admin: {
        allOf: [
          { $ref: '#/components/schemas/Base' },
          { required: ['id'], properties: { level: { type: 'integer' } } },
        ],
      },
      Base: { type: 'object', properties: { id: { type: 'integer', readOnly: true } } },
    },
  )
}

const validatorIn = (view: Record<string, any>, name: string) => compileAt(ajvFor(view), `/components/schemas/${name}`)

describe('deriveReadWriteViews (#7)', () => {
  it('does not require a readOnly property in the request view', () => {
    const { request } = deriveReadWriteViews(usersDocument())
    expect(validatorIn(request, 'User')({ name: 'Ada', password: 'p', secret: 's' })).toBe(true)
  })

  it('accepts a readOnly property that a request carries anyway', () => {
    const { request } = deriveReadWriteViews(usersDocument())
    expect(validatorIn(request, 'User')({ id: 1, name: 'Ada', password: 'p', secret: 's' })).toBe(true)
  })

  it('still requires the writeOnly properties in the request view', () => {
    const { request } = deriveReadWriteViews(usersDocument())
    expect(validatorIn(request, 'User')({ name: 'Ada', secret: 's' })).toBe(false)
  })

  it('does not require a writeOnly property in the response view, a flag beside a $ref included', () => {
    const { response } = deriveReadWriteViews(usersDocument())
    expect(validatorIn(response, 'User')({ id: 1, name: 'Ada' })).toBe(true)
  })

  it('removes writeOnly properties from the response view', () => {
    const { response } = deriveReadWriteViews(usersDocument())
    expect(Object.keys(response.components.schemas.User.properties)).toEqual(['id', 'name'])
  })

  it('still requires the readOnly properties in the response view', () => {
    const { response } = deriveReadWriteViews(usersDocument())
    expect(validatorIn(response, 'User')({ name: 'Ada' })).toBe(false)
  })

  it('drops a readOnly property declared in an allOf part from the required list beside it', () => {
    const { request } = deriveReadWriteViews(usersDocument())
    expect(validatorIn(request, 'Admin')({ level: 1 })).toBe(true)
  })

  it('follows a $ref to find a readOnly flag on its target (OpenAPI 3.0)', async () => {
    const app = await createApp({ spec, fixtures: '' })
    const res = await app.request('/users', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada', password: 'secret-123' }),
    })
    expect(res.status).toBe(201)
  })

  it('leaves the description it was given unchanged', () => {
    const document = usersDocument()
    const before = structuredClone(document)
    deriveReadWriteViews(document)
    expect(document).toEqual(before)
  })
})

describe('readOnly and writeOnly in responses (#7)', () => {
  it('never generates a writeOnly property', () => {
    const { response } = deriveReadWriteViews(usersDocument())
    const fake = createFaker(response, 3)
    const bodies = Array.from({ length: 20 }, () => fake('/components/schemas/User') as Record<string, unknown>)
    expect(bodies.filter((body) => 'password' in body || 'secret' in body)).toEqual([])
    expect(bodies.every((body) => 'id' in body && 'name' in body)).toBe(true)
  })

  it('reports a writeOnly property in a response body like an undeclared field', () => {
    const { response } = deriveReadWriteViews(usersDocument())
    const [declared] = responsesOf(response).declared
    expect(bodyProblems({ document: response }, declared!, { id: 1, name: 'Ada', password: 'p' })).toEqual([
      'body.password is not declared by the schema',
    ])
  })

  it('refuses at start-up a fixture that carries a writeOnly property', async () => {
    const error = await createApp({ spec, fixtures }).then(
      () => undefined,
      (e: unknown) => e as Error,
    )
    expect(error?.message).toContain('createUser/201.json')
    expect(error?.message).toContain('body.password is not declared by the schema')
  })

  it('serves generated bodies without the writeOnly property', async () => {
    const app = await createApp({ spec, fixtures: '', dynamic: true, seed: 5 })
    const res = await app.request('/users', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada', password: 'secret-123' }),
    })
    const body = (await res.json()) as Record<string, unknown>
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'id', 'name'])
  })
})

describe('deriveReadWriteViews without flags (#7)', () => {
  it('returns the description itself as both views when no schema is readOnly or writeOnly', () => {
    const document = documentWithResponses(
      {},
      { Plain: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } } },
    )
    const { request, response } = deriveReadWriteViews(document)
    expect(request).toBe(document)
    expect(response).toBe(document)
  })
})
