#!/usr/bin/env node
// Generates an OpenAPI 3.1 description with N operations for the scale mode of `npm run bench`.
// Operations come in pairs on N/2 templated paths (half of them nested under /orgs/{orgId}):
//   GET  <path>  path and query parameters, a 200 with a nested schema and an example
//   POST <path>  a required JSON body with a nested schema, a 201 with an example, a 400
// Every operation has its own schemas (ItemK, NewItemK), which nest shared ones (Owner, Address,
// Tag), so that start-up work grows with N as it would in a real description.
//
//   node bench/generate-spec.mjs 100 > spec.json
import { pathToFileURL } from 'node:url'

/** The paths of the GET operations, in declaration order; `pathOf(i)` for the i-th. */
export function pathOf(i) {
  return i % 2 === 0 ? `/resources${i}/{itemId}` : `/orgs/{orgId}/resources${i}/{itemId}`
}

/** A concrete URL for the i-th GET operation. */
export function urlOf(i, itemId = 42) {
  return pathOf(i).replace('{orgId}', 'acme').replace('{itemId}', String(itemId)) + '?limit=10'
}

export function generateSpec(operationCount) {
  if (!Number.isInteger(operationCount) || operationCount < 2 || operationCount % 2)
    throw new Error('operationCount must be an even number ≥ 2')
  const pathCount = operationCount / 2
  const paths = {}
  const schemas = {
    Address: {
      type: 'object',
      required: ['street', 'city'],
      properties: {
        street: { type: 'string' },
        city: { type: 'string' },
        geo: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } } },
      },
    },
    Owner: {
      type: 'object',
      required: ['id', 'name'],
      properties: {
        id: { type: 'integer', format: 'int64' },
        name: { type: 'string', maxLength: 100 },
        address: { $ref: '#/components/schemas/Address' },
      },
    },
    Tag: {
      type: 'object',
      required: ['label'],
      properties: { label: { type: 'string', pattern: '^[a-z-]+$' }, weight: { type: 'integer', minimum: 0 } },
    },
    Error: {
      type: 'object',
      required: ['error', 'message'],
      properties: { error: { type: 'integer', format: 'int32' }, message: { type: 'string' } },
    },
  }
  const example = (i) => ({
    id: 42,
    name: `item ${i}`,
    status: 'active',
    owner: { id: 7, name: 'Ada', address: { street: '1 Main St', city: 'Springfield', geo: { lat: 1.5, lon: 2.5 } } },
    tags: [{ label: 'green', weight: 1 }],
    meta: { created: '2024-01-01T00:00:00Z', revision: { number: 3, author: 'ada' } },
  })
  for (let i = 0; i < pathCount; i++) {
    const itemSchema = `Item${i}`
    schemas[`New${itemSchema}`] = {
      type: 'object',
      required: ['name', 'owner'],
      properties: {
        name: { type: 'string', minLength: 1 },
        status: { type: 'string', enum: ['active', 'archived'] },
        owner: { $ref: '#/components/schemas/Owner' },
        tags: { type: 'array', items: { $ref: '#/components/schemas/Tag' }, maxItems: 20 },
        meta: {
          type: 'object',
          properties: {
            created: { type: 'string', format: 'date-time' },
            revision: { type: 'object', properties: { number: { type: 'integer' }, author: { type: 'string' } } },
          },
        },
      },
    }
    schemas[itemSchema] = {
      allOf: [
        { $ref: `#/components/schemas/New${itemSchema}` },
        { type: 'object', required: ['id'], properties: { id: { type: 'integer', format: 'int64' } } },
      ],
    }
    const parameters = [
      ...(i % 2 === 0
        ? []
        : [{ name: 'orgId', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z]+$' } }]),
      { name: 'itemId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
    ]
    const errorResponse = {
      description: 'bad request',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    }
    paths[pathOf(i)] = {
      parameters,
      get: {
        operationId: `get${itemSchema}`,
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } }],
        responses: {
          200: {
            description: 'ok',
            content: {
              'application/json': { schema: { $ref: `#/components/schemas/${itemSchema}` }, example: example(i) },
            },
          },
          400: errorResponse,
        },
      },
      post: {
        operationId: `update${itemSchema}`,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/New${itemSchema}` } } },
        },
        responses: {
          201: {
            description: 'created',
            content: {
              'application/json': { schema: { $ref: `#/components/schemas/${itemSchema}` }, example: example(i) },
            },
          },
          400: errorResponse,
        },
      },
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: `Generated ${operationCount}`, version: '1.0.0' },
    paths,
    components: { schemas },
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(generateSpec(Number(process.argv[2] ?? 100)), null, 2)}\n`)
}
