import { describe, expect, it } from 'vitest'
import { type ParameterValidator, compileParameters, validateParameters } from '../../src/validation/validate-params.js'
import { type FakeRequest, ajvFor, operationsOf, requestOf } from '../support/builders.js'

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
          parameters: [
            { name: 'name', in: 'path', required: true, schema: { type: 'string', enum: ['top shelf', 'é'] } },
          ],
          responses: {},
        },
      },
      '/open': { get: { operationId: 'open', responses: {} } },
    },
    components: { schemas: { Ids: integerArray } },
  }
}

function validatorFor(operationId: string): ParameterValidator | undefined {
  const doc = document()
  const ajv = ajvFor(doc, { coerceTypes: true })
  const operation = operationsOf(doc).find((o) => o.id === operationId)!
  return compileParameters(ajv, operation.parameters)
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

  it('refuses an empty value for a query parameter without allowEmptyValue (#7)', () => {
    expect(plantViolations({ query: 'limit=' })).toEqual([
      { path: 'query.limit', message: 'must not be empty (the parameter does not set allowEmptyValue)' },
    ])
  })

  it('refuses a fractional value for a query integer', () => {
    expect(plantViolations({ query: 'limit=1.5' })).toEqual([{ path: 'query.limit', message: 'must be an integer' }])
  })

  it('applies the other keywords of the schema after coercion', () => {
    expect(plantViolations({ query: 'limit=0' })).toEqual([{ path: 'query.limit', message: 'must be >= 1' }])
  })

  it('decides the int64 edge of a query parameter on the text as sent', () => {
    expect(plantViolations({ query: 'limit=1&big=-9223372036854775808' })).toEqual([])
    expect(plantViolations({ query: 'limit=1&big=-9223372036854775809' })).toEqual([
      { path: 'query.big', message: INT64_MESSAGE },
    ])
  })

  it('reads booleans written true or false and refuses other words', () => {
    expect(plantViolations({ query: 'limit=1&fresh=false' })).toEqual([])
    expect(plantViolations({ query: 'limit=1&fresh=yes' })).toEqual([
      { path: 'query.fresh', message: 'must be a boolean' },
    ])
  })

  it('reads an exploded array from repeated keys', () => {
    expect(plantViolations({ query: 'limit=1&ids=1&ids=2&ids=3' })).toEqual([])
  })

  it('reads a lone value of an exploded array as a one-item array', () => {
    expect(plantViolations({ query: 'limit=1&ids=7' })).toEqual([])
  })

  it('names the item of an exploded array that breaks its schema', () => {
    expect(plantViolations({ query: 'limit=1&ids=1&ids=x' })).toEqual([
      { path: 'query.ids[1]', message: 'must be an integer' },
    ])
  })

  it('keeps commas inside items of an exploded array, as form style with explode says', () => {
    expect(plantViolations({ query: 'limit=1&ids=1,2' })).toEqual([
      { path: 'query.ids[0]', message: 'must be an integer' },
    ])
  })

  it('reads an array of strings from repeated keys, decoding each', () => {
    expect(plantViolations({ query: 'limit=1&tags=indoor&tags=low%20light' })).toEqual([])
  })

  it('reads a non-exploded array from the comma form', () => {
    expect(plantViolations({ query: 'limit=1&csv=1,2,3' })).toEqual([])
    expect(plantViolations({ query: 'limit=1&csv=1,x' })).toEqual([
      { path: 'query.csv[1]', message: 'must be an integer' },
    ])
  })

  it('reads pipe- and space-delimited arrays', () => {
    expect(plantViolations({ query: 'limit=1&piped=1|2&spaced=3%204' })).toEqual([])
    expect(plantViolations({ query: 'limit=1&piped=1|b' })).toEqual([
      { path: 'query.piped[1]', message: 'must be an integer' },
    ])
  })

  // Ajv coerces any text that JavaScript's `+text` reads as a number, so "0x10" would pass as 16.
  it('refuses a hexadecimal query integer', () => {
    expect(plantViolations({ query: 'limit=0x10' })).toEqual([
      { path: 'query.limit', message: 'must be a number written in decimal' },
    ])
  })

  it('refuses a query number padded with white space', () => {
    expect(plantViolations({ query: 'limit=%205' })).toEqual([
      { path: 'query.limit', message: 'must be a number written in decimal' },
    ])
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
    expect(plantViolations({ headers: { 'x-sizes': '1, big' } })).toEqual([
      { path: 'header["x-sizes"][1]', message: 'must be an integer' },
    ])
  })

  it('coerces a cookie to its integer schema', () => {
    expect(plantViolations({ cookies: { visits: '3' } })).toEqual([])
    expect(plantViolations({ cookies: { visits: 'many' } })).toEqual([
      { path: 'cookie.visits', message: 'must be an integer' },
    ])
  })
})

describe('validateParameters: several locations', () => {
  it('reports the violations of every location together', () => {
    const violations = plantViolations(
      { query: 'limit=x', cookies: { visits: 'y' }, headers: { 'x-request-id': undefined } },
      'z',
    )
    expect(violations).toEqual([
      { path: 'path.id', message: 'must be an integer' },
      { path: 'query.limit', message: 'must be an integer' },
      { path: 'header["x-request-id"]', message: 'is required' },
      { path: 'cookie.visits', message: 'must be an integer' },
    ])
  })
})

const point = { type: 'object', properties: { x: { type: 'integer' }, y: { type: 'integer' } } }
const closedPoint = { ...point, required: ['x'], additionalProperties: false }

/** The violations of a request against one operation that declares only `parameter`. */
function violationsOf(parameter: Record<string, unknown>, request: FakeRequest & { pathValue?: string } = {}) {
  const doc = {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: { '/p/{value}': { get: { operationId: 'one', parameters: [parameter], responses: {} } } },
  }
  const validator = compileParameters(
    ajvFor(doc, { coerceTypes: true }),
    operationsOf(doc)[0]!.parameters,
    ajvFor(doc),
  )!
  const pathParams: Record<string, string> =
    request.pathValue === undefined ? {} : { [String(parameter.name)]: request.pathValue }
  return validateParameters(validator, requestOf(request), pathParams)
}

const pathParameter = (schema: unknown, style?: string, explode?: boolean) => ({
  name: 'value',
  in: 'path',
  required: true,
  schema,
  style,
  explode,
})

describe('validateParameters: path styles (#7)', () => {
  it.each([
    ['simple', false, integerArray, '3,4,5'],
    ['simple', true, integerArray, '3,4,5'],
    ['simple', false, point, 'x,1,y,2'],
    ['simple', true, point, 'x=1,y=2'],
    ['label', false, { type: 'integer' }, '.5'],
    ['label', false, integerArray, '.3,4,5'],
    ['label', true, integerArray, '.3.4.5'],
    ['label', false, point, '.x,1,y,2'],
    ['label', true, point, '.x=1.y=2'],
    ['matrix', false, { type: 'integer' }, ';value=5'],
    ['matrix', false, integerArray, ';value=3,4,5'],
    ['matrix', true, integerArray, ';value=3;value=4;value=5'],
    ['matrix', false, point, ';value=x,1,y,2'],
    ['matrix', true, point, ';x=1;y=2'],
  ])('reads a %s path parameter (explode %s) of schema %j from %s', (style, explode, schema, text) => {
    expect(violationsOf(pathParameter(schema, style, explode), { pathValue: text })).toEqual([])
  })

  it.each([
    ['label', false, integerArray, '.3,x', 'path.value[1]'],
    ['matrix', true, integerArray, ';value=3;value=x', 'path.value[1]'],
    ['simple', true, point, 'x=1,y=b', 'path.value.y'],
    ['matrix', true, point, ';x=a;y=2', 'path.value.x'],
  ])(
    'coerces each item of a %s path parameter (explode %s) and names the one that breaks its schema',
    (style, explode, schema, text, path) => {
      expect(violationsOf(pathParameter(schema, style, explode), { pathValue: text })).toEqual([
        { path, message: 'must be an integer' },
      ])
    },
  )

  it('refuses a label path parameter without its leading dot', () => {
    expect(violationsOf(pathParameter({ type: 'integer' }, 'label'), { pathValue: '5' })).toEqual([
      { path: 'path.value', message: 'must be written in label style (a leading ".")' },
    ])
  })

  it('refuses a matrix path parameter that does not name itself', () => {
    expect(violationsOf(pathParameter({ type: 'integer' }, 'matrix'), { pathValue: ';other=5' })).toEqual([
      { path: 'path.value', message: 'must be written in matrix style (";value=...")' },
    ])
  })

  it('reads an encoded comma inside a simple path array item as data, not as a separator', () => {
    const schema = { type: 'array', items: { type: 'string', enum: ['a,b', 'c'] }, minItems: 2, maxItems: 2 }
    expect(violationsOf(pathParameter(schema), { pathValue: 'a%2Cb,c' })).toEqual([])
  })

  it('refuses an object written with an odd number of name,value items', () => {
    expect(violationsOf(pathParameter(point), { pathValue: 'x,1,y' })).toEqual([
      { path: 'path.value', message: 'must be a list of name,value pairs' },
    ])
  })

  it('applies additionalProperties: false to a path object parameter', () => {
    expect(violationsOf(pathParameter(closedPoint, 'simple', true), { pathValue: 'x=1,z=2' })).toEqual([
      { path: 'path.value.z', message: 'is not declared by the schema' },
    ])
  })
})

const queryParameter = (extra: Record<string, unknown>) => ({ name: 'q', in: 'query', ...extra })

describe('validateParameters: query styles (#7)', () => {
  it('reads an exploded form object from one key per property', () => {
    expect(violationsOf(queryParameter({ schema: closedPoint }), { query: 'x=1&y=2' })).toEqual([])
  })

  it('coerces the properties of an exploded form object', () => {
    expect(violationsOf(queryParameter({ schema: closedPoint }), { query: 'x=1&y=two' })).toEqual([
      { path: 'query.q.y', message: 'must be an integer' },
    ])
  })

  it('enforces the required properties of an exploded form object', () => {
    expect(violationsOf(queryParameter({ schema: closedPoint, required: true }), { query: 'y=2' })).toEqual([
      { path: 'query.q.x', message: 'is required' },
    ])
  })

  it('reports a required exploded form object none of whose keys is sent', () => {
    expect(violationsOf(queryParameter({ schema: closedPoint, required: true }), { query: 'other=1' })).toEqual([
      { path: 'query.q', message: 'is required' },
    ])
  })

  it('gathers the other keys into an exploded form object that has no declared properties', () => {
    const schema = { type: 'object', additionalProperties: { type: 'integer' } }
    expect(violationsOf(queryParameter({ schema }), { query: 'a=1&b=2' })).toEqual([])
    expect(violationsOf(queryParameter({ schema }), { query: 'a=1&b=x' })).toEqual([
      { path: 'query.q.b', message: 'must be an integer' },
    ])
  })

  it('reads a non-exploded form object from name,value pairs', () => {
    expect(violationsOf(queryParameter({ schema: closedPoint, explode: false }), { query: 'q=x,1,y,2' })).toEqual([])
  })

  it('reads space- and pipe-delimited objects', () => {
    expect(
      violationsOf(queryParameter({ schema: closedPoint, style: 'spaceDelimited', explode: false }), {
        query: 'q=x%201%20y%202',
      }),
    ).toEqual([])
    expect(
      violationsOf(queryParameter({ schema: closedPoint, style: 'pipeDelimited', explode: false }), {
        query: 'q=x|1|y|z',
      }),
    ).toEqual([{ path: 'query.q.y', message: 'must be an integer' }])
  })

  it('reads an exploded pipe-delimited array from repeated keys', () => {
    expect(
      violationsOf(queryParameter({ schema: integerArray, style: 'pipeDelimited', explode: true }), {
        query: 'q=1&q=2',
      }),
    ).toEqual([])
  })

  it('reads a deepObject from bracketed keys and coerces its properties', () => {
    const parameter = queryParameter({ schema: closedPoint, style: 'deepObject', explode: true })
    expect(violationsOf(parameter, { query: 'q[x]=1&q[y]=2' })).toEqual([])
    expect(violationsOf(parameter, { query: 'q%5Bx%5D=1&q[y]=b' })).toEqual([
      { path: 'query.q.y', message: 'must be an integer' },
    ])
  })

  it('refuses a deepObject property that the schema does not allow', () => {
    const parameter = queryParameter({ schema: closedPoint, style: 'deepObject', explode: true })
    expect(violationsOf(parameter, { query: 'q[x]=1&q[z]=2' })).toEqual([
      { path: 'query.q.z', message: 'is not declared by the schema' },
    ])
  })

  it('reads a repeated deepObject key as an array property', () => {
    const schema = { type: 'object', properties: { tags: { type: 'array', items: { type: 'integer' } } } }
    expect(violationsOf(queryParameter({ schema, style: 'deepObject' }), { query: 'q[tags]=1&q[tags]=x' })).toEqual([
      { path: 'query.q.tags[1]', message: 'must be an integer' },
    ])
  })

  it('refuses a nested deepObject key', () => {
    expect(violationsOf(queryParameter({ schema: point, style: 'deepObject' }), { query: 'q[x][y]=1' })).toEqual([
      { path: 'query.q', message: 'has a nested key "q[x][y]"; deepObject takes one level of properties' },
    ])
  })

  it('accepts an empty query value when the parameter sets allowEmptyValue', () => {
    expect(
      violationsOf(queryParameter({ schema: { type: 'integer' }, allowEmptyValue: true, required: true }), {
        query: 'q=',
      }),
    ).toEqual([])
  })

  it('refuses an empty string value when the parameter does not set allowEmptyValue', () => {
    expect(violationsOf(queryParameter({ schema: { type: 'string' } }), { query: 'q' })).toEqual([
      { path: 'query.q', message: 'must not be empty (the parameter does not set allowEmptyValue)' },
    ])
  })

  it('still accepts and validates a deprecated parameter', () => {
    const parameter = queryParameter({ schema: { type: 'integer' }, deprecated: true })
    expect(violationsOf(parameter, { query: 'q=1' })).toEqual([])
    expect(violationsOf(parameter, { query: 'q=one' })).toEqual([{ path: 'query.q', message: 'must be an integer' }])
  })

  it('accepts reserved characters sent unencoded in a query value', () => {
    expect(
      violationsOf(queryParameter({ schema: { type: 'string', const: '/a/b?c=d' } }), { query: 'q=/a/b?c%3Dd' }),
    ).toEqual([])
  })
})

describe('validateParameters: header and cookie objects (#7)', () => {
  const header = (explode: boolean) => ({ name: 'X-Point', in: 'header', schema: closedPoint, explode })
  const cookie = (explode: boolean) => ({ name: 'point', in: 'cookie', schema: closedPoint, explode })

  it('reads a header object from name,value pairs', () => {
    expect(violationsOf(header(false), { headers: { 'x-point': 'x,1,y,2' } })).toEqual([])
  })

  it('reads an exploded header object from name=value items', () => {
    expect(violationsOf(header(true), { headers: { 'x-point': 'x=1, y=b' } })).toEqual([
      { path: 'header["x-point"].y', message: 'must be an integer' },
    ])
  })

  it('reads a non-exploded cookie object from name,value pairs', () => {
    expect(violationsOf(cookie(false), { cookies: { point: 'x,1,y,b' } })).toEqual([
      { path: 'cookie.point.y', message: 'must be an integer' },
    ])
  })

  it('reads an exploded cookie object from one cookie per property', () => {
    expect(violationsOf(cookie(true), { cookies: { x: '1', y: '2' } })).toEqual([])
    expect(violationsOf(cookie(true), { cookies: { y: '2' } })).toEqual([
      { path: 'cookie.point.x', message: 'is required' },
    ])
  })
})

describe('validateParameters: OpenAPI 3.2 querystring (#31 §1)', () => {
  const querystring = (mediaType: string, schema: unknown) => ({
    name: 'q',
    in: 'querystring',
    required: true,
    content: { [mediaType]: { schema } },
  })
  const form = querystring('application/x-www-form-urlencoded', {
    type: 'object',
    properties: { tags: { type: 'array', items: { type: 'string' } }, n: { type: 'integer' } },
  })

  it('reads a form-encoded query string key by key, a repeated key as a list, values coerced', () => {
    expect(violationsOf(form, { query: 'tags=a&tags=b&n=2' })).toEqual([])
    expect(violationsOf(form, { query: 'tags=a&n=two' })).toEqual([
      { path: 'querystring.q.n', message: 'must be an integer' },
    ])
  })

  it('keeps a key named __proto__ a key, judged as any other', () => {
    const closed = querystring('application/x-www-form-urlencoded', { type: 'object', additionalProperties: false })
    expect(violationsOf(closed, { query: '__proto__=a&__proto__=b' })).toEqual([
      { path: 'querystring.q.__proto__', message: 'is not declared by the schema' },
    ])
  })

  it('reads a JSON query string as sent, without coercing it', () => {
    const json = querystring('application/json', { type: 'array', items: { type: 'integer' } })
    expect(violationsOf(json, { query: encodeURIComponent('[1,2]') })).toEqual([])
    expect(violationsOf(json, { query: encodeURIComponent('["1"]') })).toEqual([
      { path: 'querystring.q[0]', message: 'must be an integer' },
    ])
    expect(violationsOf(json, { query: encodeURIComponent('['.repeat(300)) })).toEqual([
      {
        path: 'querystring.q',
        message:
          'is nested too deep: its [0][0][0][0]…[0][0][0][0] opens level 257 of nesting at position 256: the limit is 256 levels',
      },
    ])
  })

  it('reads any other media type as the percent-decoded text', () => {
    const text = querystring('text/plain', { type: 'string', pattern: '^a b$' })
    expect(violationsOf(text, { query: 'a%20b' })).toEqual([])
    expect(violationsOf(text, { query: 'a+b' })[0]?.path).toBe('querystring.q')
  })

  it('is absent, and so required, without a query string', () => {
    expect(violationsOf(form)).toEqual([{ path: 'querystring.q', message: 'is required' }])
  })
})
