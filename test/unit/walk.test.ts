import { describe, expect, it } from 'vitest'
import { walkSchemas } from '../../src/openapi/walk.js'

const pointersOf = (document: Record<string, any>) => {
  const pointers: string[] = []
  walkSchemas(document, (_schema, pointer) => pointers.push(pointer))
  return pointers
}

describe('walkSchemas', () => {
  it('visits the schemas of components, parameters, bodies, responses and headers, parents first, in document order', () => {
    const document = {
      components: { schemas: { Plant: { type: 'object', properties: { name: { type: 'string' } } } } },
      paths: {
        '/plants/{id}': {
          parameters: [{ name: 'id', in: 'path', schema: { type: 'string' } }],
          post: {
            requestBody: { content: { 'application/json': { schema: { items: { type: 'integer' } } } } },
            responses: {
              '200': {
                headers: { 'X-Rate': { schema: { type: 'integer' } } },
                content: { 'application/json': { schema: { allOf: [{ type: 'object' }] } } },
              },
            },
          },
        },
      },
    }
    expect(pointersOf(document)).toEqual([
      '/components/schemas/Plant',
      '/components/schemas/Plant/properties/name',
      '/paths/~1plants~1{id}/parameters/0/schema',
      '/paths/~1plants~1{id}/post/requestBody/content/application~1json/schema',
      '/paths/~1plants~1{id}/post/requestBody/content/application~1json/schema/items',
      '/paths/~1plants~1{id}/post/responses/200/content/application~1json/schema',
      '/paths/~1plants~1{id}/post/responses/200/content/application~1json/schema/allOf/0',
      '/paths/~1plants~1{id}/post/responses/200/headers/X-Rate/schema',
    ])
  })

  it('never enters examples: they are data, even when they look like schemas', () => {
    const document = {
      components: {
        schemas: { Plant: { type: 'object', example: { type: 'string' }, examples: [{ properties: {} }] } },
        examples: { plant: { value: { type: 'object' } } },
      },
      paths: {
        '/plants': {
          get: {
            responses: {
              '200': { content: { 'application/json': { schema: {}, examples: { one: { value: { items: {} } } } } } },
            },
          },
        },
      },
    }
    expect(pointersOf(document)).toEqual([
      '/components/schemas/Plant',
      '/paths/~1plants/get/responses/200/content/application~1json/schema',
    ])
  })

  it('visits properties named after keywords or extensions, and skips extensions elsewhere', () => {
    const document = {
      components: {
        schemas: {
          Odd: {
            properties: { example: { type: 'string' }, 'x-ratelimit': { type: 'integer' } },
            'x-meta': { type: 'object' },
          },
          'x-internal': { type: 'object' },
        },
      },
    }
    expect(pointersOf(document)).toEqual([
      '/components/schemas/Odd',
      '/components/schemas/Odd/properties/example',
      '/components/schemas/Odd/properties/x-ratelimit',
    ])
  })

  it('visits a node reached twice (a YAML alias) once', () => {
    const shared = { type: 'string' }
    const document = { components: { schemas: { A: { properties: { a: shared, b: shared } } } } }
    expect(pointersOf(document)).toEqual(['/components/schemas/A', '/components/schemas/A/properties/a'])
  })

  it('walks a schema nested 20,000 levels deep without overflowing the stack', () => {
    let schema: Record<string, unknown> = { type: 'string' }
    for (let level = 0; level < 20_000; level++) schema = { items: schema }
    expect(pointersOf({ components: { schemas: { Deep: schema } } })).toHaveLength(20_001)
  })
})
