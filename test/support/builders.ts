/**
 * Small builders for the unit tests: an in-memory description compiled with the same steps as
 * `src/engine/engine.ts`, a plain `RequestData` without any HTTP framework, and a journaled request.
 */
import type { RequestRecord } from '../../src/journal/journal.js'
import type { RequestData } from '../../src/common/request.js'
import { silentLogger } from '../../src/common/log.js'
import { compileResponses } from '../../src/responses/compile-responses.js'
import type { ResponseSet } from '../../src/responses/declared-responses.js'
import type { Fixture } from '../../src/responses/fixtures.js'
import { type OperationDescription, describeOperations } from '../../src/openapi/operations.js'
import { type Ajv, addDescriptionSchema, createAjv, markExactIntegers } from '../../src/validation/create-ajv.js'

/** Adds a description to a fresh Ajv as `mock:spec`, int64 schemas marked, as the engine does. */
export function ajvFor(document: Record<string, any>, { coerceTypes = false }: { coerceTypes?: boolean } = {}): Ajv {
  markExactIntegers(document)
  return addDescriptionSchema(createAjv({ coerceTypes }), document)
}

/** The operations of an in-memory description. */
export function operationsOf(document: Record<string, any>): OperationDescription[] {
  return describeOperations({ path: 'test.yaml', version: '3.1', document })
}

/** A one-operation description (`POST /things`, operationId `addThing`) with the given responses. */
export function documentWithResponses(
  responses: Record<string, unknown>,
  schemas: Record<string, unknown> = {},
): Record<string, any> {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: { '/things': { post: { operationId: 'addThing', responses } } },
    components: { schemas },
  }
}

/** The compiled responses of the first operation of a description. */
export function responsesOf(document: Record<string, any>, fixtures: Fixture[] = []): ResponseSet {
  const ajv = ajvFor(document)
  const [operation] = operationsOf(document)
  return compileResponses({ document, ajv, logger: silentLogger }, operation!, fixtures)
}

/** A JSON response with a schema, for `documentWithResponses`. */
export function jsonResponse(schema: unknown, extra: Record<string, unknown> = {}) {
  return { description: 'd', content: { 'application/json': { schema, ...extra } } }
}

/** The Plant Store description (`openapi.yaml`), in memory and fresh on every call. */
export function plantStore(): Record<string, any> {
  return {
    openapi: '3.1.0',
    info: { title: 'Plant Store', version: '1.0.0' },
    security: [{ bearerAuth: [] }],
    paths: {
      '/plants': {
        post: {
          operationId: 'addPlant',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } } },
          },
          responses: {
            '200': {
              description: 'plant response',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Plant' } } },
            },
            '400': {
              description: 'unexpected error',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
            },
          },
        },
      },
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Plant: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, tag: { type: 'string' } },
        },
        NewPlant: {
          allOf: [
            { $ref: '#/components/schemas/Plant' },
            { required: ['id'], properties: { id: { type: 'integer', format: 'int64' } } },
          ],
        },
        Error: {
          type: 'object',
          required: ['error', 'message'],
          properties: { error: { type: 'integer', format: 'int32' }, message: { type: 'string' } },
        },
      },
    },
  }
}

export interface FakeRequest {
  method?: string
  path?: string
  /** By any case; looked up lower-cased, as `RequestData.header` is. `undefined` leaves a header out. */
  headers?: Record<string, string | undefined>
  /** The query string without `?`. */
  query?: string
  cookies?: Record<string, string>
}

export function requestOf({
  method = 'GET',
  path = '/',
  headers = {},
  query = '',
  cookies = {},
}: FakeRequest = {}): RequestData {
  const lower = new Map<string, string>()
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) lower.set(name.toLowerCase(), value)
  return {
    method,
    path,
    header: (name) => lower.get(name),
    headerSource: Object.fromEntries(lower),
    rawQuery: query,
    query: () => new URLSearchParams(query),
    cookie: (name) => cookies[name],
  }
}

/** A valid POST /plants as the journal records it, answered 200, with what the test changes. */
export function journaledPost(overrides: Partial<RequestRecord> = {}): RequestRecord {
  return {
    time: Date.UTC(2025, 0, 1),
    method: 'POST',
    path: '/plants',
    query: '',
    operation: 'addPlant',
    headers: { 'content-type': 'application/json' },
    status: 200,
    scenario: 'default',
    valid: true,
    violations: [],
    durationMs: 1,
    ...overrides,
  }
}
