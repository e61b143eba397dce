import { describe, expect, it } from 'vitest'
import { expectStartupErrorThrown } from '../support/startup-error.js'
import {
  MAX_BACKTRACKING_INPUT,
  compilePattern,
  findUnusablePatterns,
  patternsIn,
} from '../../src/validation/compile-pattern.js'
import {
  EXACT_INT64_KEYWORD,
  compileAt,
  compileOnFirstUse,
  compileValidatorNow,
  createAjv,
  decodePointer,
  markExactIntegers,
} from '../../src/validation/create-ajv.js'
import { toViolations } from '../../src/validation/violations.js'
import { jsonLiterals } from '../../src/validation/exact-integers.js'

const INT32_MESSAGE = 'must be a signed 32-bit integer (-2147483648 to 2147483647)'
const INT64_MESSAGE = 'must be a signed 64-bit integer (-9223372036854775808 to 9223372036854775807)'

/** Validates `value` against `schema` and returns the violations under `body`. */
function violationsOf(schema: object, value: unknown, context?: unknown) {
  const validate = createAjv().compile(schema)
  const valid = context === undefined ? validate(value) : validate.call(context, value)
  return valid ? [] : toViolations('body', validate.errors)
}

/** Parses JSON text and validates it with its literals at hand, as a request body is. */
function jsonViolations(schema: object, text: string) {
  return violationsOf(schema, JSON.parse(text), jsonLiterals(text))
}

describe('int32 format', () => {
  const schema = { type: 'integer', format: 'int32' }

  it('accepts the int32 bounds', () => {
    expect(violationsOf(schema, 2147483647)).toEqual([])
    expect(violationsOf(schema, -2147483648)).toEqual([])
  })

  it('refuses one past either int32 bound', () => {
    expect(violationsOf(schema, 2147483648)).toEqual([{ path: 'body', message: INT32_MESSAGE }])
    expect(violationsOf(schema, -2147483649)).toEqual([{ path: 'body', message: INT32_MESSAGE }])
  })
})

describe('int64 format', () => {
  const schema = { type: 'integer', format: 'int64' }
  markExactIntegers(schema)

  it('accepts the largest int64 written exactly in JSON', () => {
    expect(jsonViolations(schema, '9223372036854775807')).toEqual([])
  })

  it('refuses one more than the largest int64 in JSON', () => {
    expect(jsonViolations(schema, '9223372036854775808')).toEqual([{ path: 'body', message: INT64_MESSAGE }])
  })

  it('accepts the smallest int64 and refuses one less in JSON', () => {
    expect(jsonViolations(schema, '-9223372036854775808')).toEqual([])
    expect(jsonViolations(schema, '-9223372036854775809')).toEqual([{ path: 'body', message: INT64_MESSAGE }])
  })

  it('refuses a value far beyond int64 by the float check alone', () => {
    expect(violationsOf(schema, 2 ** 64)).toEqual([{ path: 'body', message: INT64_MESSAGE }])
  })

  it('reports the exact check at the path of the offending field', () => {
    const object = {
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'integer', format: 'int64' } } },
    }
    markExactIntegers(object)
    expect(jsonViolations(object, '{"items": [1, 9223372036854775808]}')).toEqual([
      { path: 'body.items[1]', message: INT64_MESSAGE },
    ])
  })
})

describe('numbers that JSON cannot carry', () => {
  it('refuses Infinity where a number is expected', () => {
    expect(violationsOf({ type: 'number' }, Number.POSITIVE_INFINITY)).toEqual([
      { path: 'body', message: 'must be a number' },
    ])
  })

  it('refuses NaN where a number is expected', () => {
    expect(violationsOf({ type: 'number' }, Number.NaN)).toEqual([{ path: 'body', message: 'must be a number' }])
  })

  it('refuses 1e400, which parses to Infinity, where an integer is expected', () => {
    const found = jsonViolations({ type: 'integer', format: 'int64' }, '1e400')
    expect(found).toContainEqual({ path: 'body', message: 'must be an integer' })
  })
})

describe('OpenAPI formats', () => {
  it('accepts padded base64 for the byte format and refuses the rest', () => {
    const schema = { type: 'string', format: 'byte' }
    expect(violationsOf(schema, 'aGk=')).toEqual([])
    expect(violationsOf(schema, 'aGk')).toEqual([{ path: 'body', message: 'must be a valid "byte"' }])
    expect(violationsOf(schema, 'a b=')).toEqual([{ path: 'body', message: 'must be a valid "byte"' }])
  })

  it('accepts any string for the password and binary formats', () => {
    expect(violationsOf({ type: 'string', format: 'password' }, 'hunter2')).toEqual([])
    expect(violationsOf({ type: 'string', format: 'binary' }, '\u0000\u00ff')).toEqual([])
  })

  it('checks the JSON Schema formats ajv-formats adds', () => {
    expect(violationsOf({ type: 'string', format: 'date' }, '2024-02-30')).toEqual([
      { path: 'body', message: 'must be a valid "date"' },
    ])
    expect(violationsOf({ type: 'string', format: 'uuid' }, '123e4567-e89b-12d3-a456-426614174000')).toEqual([])
  })

  it('ignores OpenAPI keywords that are not JSON Schema', () => {
    expect(violationsOf({ type: 'string', example: 'x', xml: { name: 'y' }, 'x-extra': 1 }, 'ok')).toEqual([])
  })
})

describe('coercion', () => {
  it('coerces numeric text only in the coercing instance', () => {
    const schema = { type: 'object', properties: { limit: { type: 'integer' } } }
    const coerced = { limit: '5' }
    expect(createAjv({ coerceTypes: true }).compile(schema)(coerced)).toBe(true)
    expect(coerced.limit).toBe(5)
    expect(createAjv().compile(schema)({ limit: '5' })).toBe(false)
  })

  it('wraps a lone value into an array when coercing', () => {
    const schema = { type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' } } } }
    const data: { ids: unknown } = { ids: '7' }
    expect(createAjv({ coerceTypes: true }).compile(schema)(data)).toBe(true)
    expect(data.ids).toEqual([7])
  })
})

describe('toViolations', () => {
  it('names a missing property by its path', () => {
    const schema = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } }
    expect(violationsOf(schema, {})).toEqual([{ path: 'body.name', message: 'is required' }])
  })

  it('writes array indices in brackets and nested names with dots', () => {
    const schema = {
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'object', required: ['name'] } } },
    }
    expect(violationsOf(schema, { items: [{ name: 'a' }, {}] })).toEqual([
      { path: 'body.items[1].name', message: 'is required' },
    ])
  })

  it('quotes names that are not identifiers', () => {
    const schema = { type: 'object', properties: { 'x-rate/limit': { type: 'integer' } } }
    expect(violationsOf(schema, { 'x-rate/limit': 'a' })).toEqual([
      { path: 'body["x-rate/limit"]', message: 'must be an integer' },
    ])
  })

  it('uses the right article and lists every allowed type', () => {
    expect(violationsOf({ type: 'object' }, 1)).toEqual([{ path: 'body', message: 'must be an object' }])
    expect(violationsOf({ type: ['string', 'null'] }, 1)).toEqual([
      { path: 'body', message: 'must be a string or null' },
    ])
  })

  it('lists the allowed values of an enum', () => {
    expect(violationsOf({ enum: ['a', 1] }, 'b')).toEqual([{ path: 'body', message: 'must be one of "a", 1' }])
  })

  it('names a property that additionalProperties false refuses', () => {
    const schema = { type: 'object', properties: { a: {} }, additionalProperties: false }
    expect(violationsOf(schema, { a: 1, b: 2 })).toEqual([{ path: 'body.b', message: 'is not declared by the schema' }])
  })

  it('reports every violation of a value together', () => {
    const schema = {
      type: 'object',
      required: ['id', 'name'],
      properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: 'string' } },
    }
    expect(violationsOf(schema, { id: 'x', tag: 3 })).toEqual(
      expect.arrayContaining([
        { path: 'body.name', message: 'is required' },
        { path: 'body.id', message: 'must be an integer' },
        { path: 'body.tag', message: 'must be a string' },
      ]),
    )
  })

  it('keeps Ajv’s message for other keywords', () => {
    expect(violationsOf({ type: 'string', maxLength: 2 }, 'abc')).toEqual([
      { path: 'body', message: 'must NOT have more than 2 characters' },
    ])
  })

  it('reports one violation once when several errors say the same', () => {
    const schema = { anyOf: [{ type: 'string' }, { type: 'string', minLength: 1 }] }
    const found = violationsOf(schema, 1)
    expect(found.filter((v) => v.message === 'must be a string')).toHaveLength(1)
  })

  it('stops at 25 violations', () => {
    const schema = { type: 'array', items: { type: 'string' } }
    expect(
      violationsOf(
        schema,
        Array.from({ length: 40 }, (_, i) => i),
      ),
    ).toHaveLength(25)
  })

  it('gives no violations for no errors', () => {
    expect(toViolations('body', null)).toEqual([])
    expect(toViolations('body', undefined)).toEqual([])
  })
})

describe('markExactIntegers', () => {
  it('marks every int64 schema, however deep', () => {
    const document = { a: { format: 'int64' }, b: [{ properties: { c: { type: 'integer', format: 'int64' } } }] }
    markExactIntegers(document)
    expect(document.a).toHaveProperty(EXACT_INT64_KEYWORD, true)
    expect(document.b[0]!.properties.c).toHaveProperty(EXACT_INT64_KEYWORD, true)
  })

  it('leaves int32 schemas unmarked', () => {
    const schema = { format: 'int32' }
    markExactIntegers(schema)
    expect(schema).not.toHaveProperty(EXACT_INT64_KEYWORD)
  })

  it('leaves examples as written', () => {
    const media = { example: { format: 'int64' }, examples: { one: { value: { format: 'int64' } } } }
    markExactIntegers(media)
    expect(media.example).toEqual({ format: 'int64' })
    expect(media.examples.one.value).toEqual({ format: 'int64' })
  })
})

describe('compileAt', () => {
  const document = {
    components: { schemas: { Name: { type: 'string' } } },
    paths: { '/a/b': { get: { schema: { type: 'integer' } } } },
  }

  it('compiles the schema at a pointer of the description', () => {
    const ajv = createAjv().addSchema(structuredClone(document), 'mock:spec')
    const validate = compileAt(ajv, '/components/schemas/Name')
    expect(validate('x')).toBe(true)
    expect(validate(1)).toBe(false)
  })

  it('follows escaped pointer tokens', () => {
    const ajv = createAjv().addSchema(structuredClone(document), 'mock:spec')
    expect(compileAt(ajv, '/paths/~1a~1b/get/schema')(3)).toBe(true)
  })

  it('reports a pointer at nothing as a start-up error naming the place', () => {
    const ajv = createAjv().addSchema(structuredClone(document), 'mock:spec')
    const error = expectStartupErrorThrown(
      () => compileAt(ajv, '/components/schemas/Missing'),
      'description_bad_schema',
    )
    expect(error.message).toContain('components > schemas > Missing')
  })

  it('decodes pointers for messages', () => {
    expect(decodePointer('/paths/~1plants~1{id}/get/a~0b')).toBe('paths > /plants/{id} > get > a~b')
  })
})

describe('compileOnFirstUse and compileValidatorNow (#11, #12)', () => {
  const document = { components: { schemas: { Name: { type: 'string' } } } }

  it('compiles once, on the first call or when told to compile now, whichever comes first', () => {
    const ajv = createAjv().addSchema(structuredClone(document), 'mock:spec')
    let compiles = 0
    const validate = compileOnFirstUse(() => (compiles++, compileAt(ajv, '/components/schemas/Name')))
    expect(compiles).toBe(0)
    compileValidatorNow(validate)
    expect(compiles).toBe(1)
    expect(validate('x')).toBe(true)
    expect(validate(1)).toBe(false)
    compileValidatorNow(validate)
    expect(compiles).toBe(1)
  })

  it('leaves a validator it did not make as it is', () => {
    const ajv = createAjv().addSchema(structuredClone(document), 'mock:spec')
    expect(() => compileValidatorNow(compileAt(ajv, '/components/schemas/Name'))).not.toThrow()
  })
})

describe('violations of bounded size (#12)', () => {
  it('cuts the path and message of a violation named after a 1 MB property name', () => {
    const ajv = createAjv()
    const validate = ajv.compile({
      type: 'object',
      additionalProperties: false,
      properties: { name: { type: 'string', enum: ['x'.repeat(5000)] } },
    })
    const body = { ['k'.repeat(1024 * 1024)]: 1, name: 'y' }
    expect(validate(body)).toBe(false)
    const violations = toViolations('body', validate.errors)
    expect(violations).toHaveLength(2)
    for (const { path, message } of violations) {
      expect(path.length).toBeLessThanOrEqual(256)
      expect(message.length).toBeLessThanOrEqual(512)
    }
    expect(violations[0]!.path).toMatch(/^body.kkk+…$/)
  })
})

describe('compilePattern (#11, #12)', () => {
  it('runs on RE2 in linear time: ^(a+)+$ answers a 10,000-character value at once', () => {
    expect(compilePattern('^(a+)+$', 'u').test(`${'a'.repeat(10_000)}!`)).toBe(false)
    expect(compilePattern('^(a+)+$', 'u').test('aaaa')).toBe(true)
  })

  it('reads patterns valid only without the u flag, and the anchors of other dialects', () => {
    expect(compilePattern('^[a-zA-Z0-9\\-\\_]+$', 'u').test('a_b-c')).toBe(true)
    expect(compilePattern('\\A[0-9]+\\z', 'u').test('123')).toBe(true)
    expect(compilePattern('\\A[0-9]+\\z', 'u').test('A123z')).toBe(false)
  })

  it(`runs a pattern RE2 cannot read on JavaScript's engine, on values of at most ${MAX_BACKTRACKING_INPUT} characters`, () => {
    const lookahead = compilePattern('^(?=.*[0-9])[a-z0-9]+$', 'u')
    expect(lookahead.test('abc1')).toBe(true)
    expect(lookahead.test('abc')).toBe(false)
    expect(lookahead.test(`${'a'.repeat(MAX_BACKTRACKING_INPUT)}1`)).toBe(false)
  })

  it('matches anything with a pattern no engine reads, which findUnusablePatterns reports', () => {
    expect(compilePattern('[z-a]', 'u').test('anything')).toBe(true)
    const document = { components: { schemas: { A: { type: 'string', pattern: '[z-a]' } } } }
    expect(findUnusablePatterns(patternsIn(document))).toEqual([
      expect.stringMatching(/^#\/components\/schemas\/A\/pattern: "\[z-a\]"/),
    ])
  })
})
