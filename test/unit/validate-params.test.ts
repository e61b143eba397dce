import { describe, expect, it } from 'vitest'
import { nodeAt } from '../../src/spec/resolve-ref.js'
import { type ParameterValidator, compileParameters, validateParameters } from '../../src/validation/validate-params.js'
import { type FakeRequest, ajvFor, operationsOf, requestOf } from './_build.js'

const INT64_MESSAGE = 'must be a signed 64-bit integer (-9223372036854775808 to 9223372036854775807)'

const integerArray = { type: 'array', items: { type: 'integer' } }

function document(): Record<string, any> {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/plants/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', format: 'int64' } }],
        get: {
          operationId: 'getPlant',
          parameters: [
            { name: 'limit', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } },
            { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
            { name: 'ids', in: 'query', schema: { $ref: '#/components/schemas/Ids' } },
            { name: 'csv', in: 'query', explode: false, schema: integerArray },
            { name: 'piped', in: 'query', style: 'pipeDelimited', explode: false, schema: integerArray },
            { name: 'spaced', in: 'query', style: 'spaceDelimited', explode: false, schema: integerArray },
            { name: 'big', in: 'query', schema: { type: 'integer', format: 'int64' } },
            { name: 'fresh', in: 'query', schema: { type: 'boolean' } },
            { name: 'X-Request-Id', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'X-Sizes', in: 'header', schema: integerArray },
            { name: 'visits', in: 'cookie', schema: { type: 'integer' } },
          ],
          responses: {},
        },
      },
      '/shelves/{name}': {
        get: {
          operationId: 'getShelf',
          parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string', enum: ['top shelf', 'é'] } }],
          responses: {},
        },
      },
      '/open': { get: { operationId: 'open', responses: {} } },
    },
    components: { schemas: { Ids: integerArray } },
  }
}

/** The engine's array test: the parameter's schema, `$ref`s followed, is `type: array`. */
function isArraySchema(doc: unknown) {
  return (pointer: string) => {
    let schema = nodeAt(doc, pointer)
    for (let hops = 0; typeof schema?.$ref === 'string' && hops < 32; hops++) schema = nodeAt(doc, schema.$ref.slice(1))
    return schema?.type === 'array'
  }
}

function validatorFor(operationId: string): ParameterValidator | undefined {
  const doc = document()
  const ajv = ajvFor(doc, { coerceTypes: true })
  const operation = operationsOf(doc).find((o) => o.id === operationId)!
  return compileParameters(ajv, operation.parameters, isArraySchema(doc))
}

const plantValidator = validatorFor('getPlant')!
const shelfValidator = validatorFor('getShelf')!

/** Violations of `GET /plants/{id}` with a valid request changed by `request` (and the path id). */
function plantViolations(request: FakeRequest = {}, id = '42') {
  const headers = { 'x-request-id': 'r-1', ...request.headers }
  const query = request.query ?? 'limit=10'
  return validateParameters(plantValidator, requestOf({ ...request, headers, query }), { id })
}

describe('compileParameters', () => {
  it('compiles nothing for an operation without parameters', () => {
    expect(validatorFor('open')).toBeUndefined()
  })

  it('compiles one validator per location that has parameters', () => {
    expect(plantValidator.map((l) => l.location)).toEqual(['path', 'query', 'header', 'cookie'])
  })
})

describe('validateParameters: path', () => {
  it('accepts a valid request', () => {
    expect(plantViolations()).toEqual([])
  })

  it('coerces a path parameter to its integer schema', () => {
    expect(plantViolations({}, '9223372036854775807')).toEqual([])
  })

  it('refuses a path parameter that is not an integer', () => {
    expect(plantViolations({}, 'abc')).toEqual([{ path: 'path.id', message: 'must be an integer' }])
  })

  it('refuses a path parameter one past the largest int64', () => {
    expect(plantViolations({}, '9223372036854775808')).toEqual([{ path: 'path.id', message: INT64_MESSAGE }])
  })

  it('percent-decodes a path parameter before validating it', () => {
    expect(validateParameters(shelfValidator, requestOf(), { name: 'top%20shelf' })).toEqual([])
    expect(validateParameters(shelfValidator, requestOf(), { name: '%C3%A9' })).toEqual([])
  })

  it('reports broken percent-encoding in a path parameter', () => {
    expect(validateParameters(shelfValidator, requestOf(), { name: '%E0%A4%A' })).toEqual([
      { path: 'path.name', message: 'is not valid percent-encoding' },
    ])
  })
})

describe('validateParameters: query', () => {
  it('reports a missing required query parameter', () => {
    expect(plantViolations({ query: '' })).toEqual([{ path: 'query.limit', message: 'is required' }])
  })

  it('refuses a query integer that is not a number', () => {
    expect(plantViolations({ query: 'limit=ten' })).toEqual([{ path: 'query.limit', message: 'must be an integer' }])
  })

  it('refuses an empty value for a query integer', () => {
    expect(plantViolations({ query: 'limit=' })).toEqual([{ path: 'query.limit', message: 'must be an integer' }])
  })

  it('refuses a fractional value for a query integer', () => {
    expect(plantViolations({ query: 'limit=1.5' })).toEqual([{ path: 'query.limit', message: 'must be an integer' }])
  })

  it('applies the other keywords of the schema after coercion', () => {
    expect(plantViolations({ query: 'limit=0' })).toEqual([{ path: 'query.limit', message: 'must be >= 1' }])
  })

  it('decides the int64 edge of a query parameter on the text as sent', () => {
    expect(plantViolations({ query: 'limit=1&big=-9223372036854775808' })).toEqual([])
    expect(plantViolations({ query: 'limit=1&big=-9223372036854775809' })).toEqual([{ path: 'query.big', message: INT64_MESSAGE }])
  })

  it('reads booleans written true or false and refuses other words', () => {
    expect(plantViolations({ query: 'limit=1&fresh=false' })).toEqual([])
    expect(plantViolations({ query: 'limit=1&fresh=yes' })).toEqual([{ path: 'query.fresh', message: 'must be a boolean' }])
  })

  it('reads an exploded array from repeated keys', () => {
    expect(plantViolations({ query: 'limit=1&ids=1&ids=2&ids=3' })).toEqual([])
  })

  it('reads a lone value of an exploded array as a one-item array', () => {
    expect(plantViolations({ query: 'limit=1&ids=7' })).toEqual([])
  })

  it('names the item of an exploded array that breaks its schema', () => {
    expect(plantViolations({ query: 'limit=1&ids=1&ids=x' })).toEqual([{ path: 'query.ids[1]', message: 'must be an integer' }])
  })

  it('keeps commas inside items of an exploded array, as form style with explode says', () => {
    expect(plantViolations({ query: 'limit=1&ids=1,2' })).toEqual([{ path: 'query.ids[0]', message: 'must be an integer' }])
  })

  it('reads an array of strings from repeated keys, decoding each', () => {
    expect(plantViolations({ query: 'limit=1&tags=indoor&tags=low%20light' })).toEqual([])
  })

  it('reads a non-exploded array from the comma form', () => {
    expect(plantViolations({ query: 'limit=1&csv=1,2,3' })).toEqual([])
    expect(plantViolations({ query: 'limit=1&csv=1,x' })).toEqual([{ path: 'query.csv[1]', message: 'must be an integer' }])
  })

  it('reads pipe- and space-delimited arrays', () => {
    expect(plantViolations({ query: 'limit=1&piped=1|2&spaced=3%204' })).toEqual([])
    expect(plantViolations({ query: 'limit=1&piped=1|b' })).toEqual([{ path: 'query.piped[1]', message: 'must be an integer' }])
  })

  // Ajv coerces any text that JavaScript's `+text` reads as a number, so "0x10" would pass as 16.
  it('refuses a hexadecimal query integer', () => {
    expect(plantViolations({ query: 'limit=0x10' })).toEqual([{ path: 'query.limit', message: 'must be a number written in decimal' }])
  })

  it('refuses a query number padded with white space', () => {
    expect(plantViolations({ query: 'limit=%205' })).toEqual([{ path: 'query.limit', message: 'must be a number written in decimal' }])
  })
})

describe('validateParameters: headers and cookies', () => {
  it('reports a missing required header by its lower-case name', () => {
    expect(plantViolations({ headers: { 'x-request-id': undefined } })).toEqual([
      { path: 'header["x-request-id"]', message: 'is required' },
    ])
  })

  it('reads a header array from a comma-separated value, trimming items', () => {
    expect(plantViolations({ headers: { 'x-sizes': '1, 2,3' } })).toEqual([])
    expect(plantViolations({ headers: { 'x-sizes': '1, big' } })).toEqual([{ path: 'header["x-sizes"][1]', message: 'must be an integer' }])
  })

  it('coerces a cookie to its integer schema', () => {
    expect(plantViolations({ cookies: { visits: '3' } })).toEqual([])
    expect(plantViolations({ cookies: { visits: 'many' } })).toEqual([{ path: 'cookie.visits', message: 'must be an integer' }])
  })
})

describe('validateParameters: several locations', () => {
  it('reports the violations of every location together', () => {
    const violations = plantViolations({ query: 'limit=x', cookies: { visits: 'y' }, headers: { 'x-request-id': undefined } }, 'z')
    expect(violations).toEqual([
      { path: 'path.id', message: 'must be an integer' },
      { path: 'query.limit', message: 'must be an integer' },
      { path: 'header["x-request-id"]', message: 'is required' },
      { path: 'cookie.visits', message: 'must be an integer' },
    ])
  })
})
