import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { type Regenerate, mendGenerated } from '../../src/generation/mend-generated.js'

const ajv = new Ajv2020({ allErrors: true, strict: false, verbose: true, ownProperties: true })
addFormats.default(ajv)

/** Mends until nothing changes (as the renderer does, bounded), then says what is left. */
function mended(schema: object, value: unknown, regenerate?: Regenerate): { value: unknown; valid: boolean } {
  const validate = ajv.compile(schema)
  for (
    let round = 0;
    round < 3 && !validate(value) && mendGenerated(value, validate.errors ?? [], regenerate);
    round++
  );
  return { value, valid: validate(value) }
}

/** A stand-in for the faker: a value of the schema's type (enough to show where regeneration happens). */
const byType: Regenerate = (schema: any) =>
  ({ string: 'text', integer: 7, object: {}, array: [] })[schema.type as string]

const node = {
  $id: 'node',
  type: 'object',
  required: ['value'],
  properties: {
    value: { type: 'integer' },
    left: { $ref: 'node' },
    children: { type: 'array', items: { $ref: 'node' } },
  },
}

describe('mendGenerated (#11)', () => {
  it('leaves out an optional property that recursion ended with null', () => {
    expect(mended(node, { value: 1, left: { value: 2, left: null } })).toEqual({
      value: { value: 1, left: { value: 2 } },
      valid: true,
    })
  })

  it('drops array items that recursion ended with null, keeping indexes right', () => {
    expect(mended(node, { value: 1, children: [null, { value: 2 }, null, null] })).toEqual({
      value: { value: 1, children: [{ value: 2 }] },
      valid: true,
    })
  })

  it('drops array items that break their schema, down to an empty list when no item can be valid', () => {
    const impossibleItems = {
      type: 'object',
      properties: { subscriptions: { type: 'array', items: { type: 'array', anyOf: [{ type: 'object' }] } } },
    }
    expect(mended(impossibleItems, { subscriptions: [{}, [1], {}] }, byType)).toEqual({
      value: { subscriptions: [] },
      valid: true,
    })
  })

  it('puts a sample of the format in place of a string that breaks it', () => {
    const schema = {
      type: 'object',
      properties: { home: { type: 'string', format: 'url' }, mail: { type: 'string', format: 'email' } },
    }
    expect(mended(schema, { home: 'oWTOaCs3r', mail: '' })).toEqual({
      value: { home: 'https://example.com/', mail: 'user@example.com' },
      valid: true,
    })
  })

  it('cannot mend a required value that recursion ended with null', () => {
    const schema = { type: 'object', required: ['next'], properties: { next: { type: 'object' } } }
    expect(mended(schema, { next: null }).valid).toBe(false)
  })

  it('generates again, from its own schema, a placeholder json-schema-faker left at depth', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2 },
        tags: { type: 'array', minItems: 1, items: { type: 'string' } },
      },
    }
    expect(mended(schema, { name: '', tags: [] }, (s: any) => (s.type === 'array' ? ['a'] : 'fern'))).toEqual({
      value: { name: 'fern', tags: ['a'] },
      valid: true,
    })
  })

  it('generates a missing required property from its schema, and leaves out undeclared ones', () => {
    const schema = {
      type: 'object',
      required: ['id'],
      additionalProperties: false,
      properties: { id: { type: 'integer' } },
    }
    expect(mended(schema, { extra: 1 }, byType)).toEqual({ value: { id: 7 }, valid: true })
  })

  it('generates a required property named __proto__ as an own property, leaving the prototype alone', () => {
    const schema = { type: 'object', required: ['__proto__'], properties: { ['__proto__']: { type: 'string' } } }
    const { value } = mended(schema, {}, byType)
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toBe('text')
  })

  it('generates at most 64 values in one call, so a schema no finite value meets cannot grow the body without bound', () => {
    const validate = ajv.compile({ type: 'object', additionalProperties: { type: 'integer' } })
    const value = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, '']))
    validate(value)
    let calls = 0
    mendGenerated(value, validate.errors ?? [], () => ++calls)
    expect(calls).toBe(64)
  })

  it('makes a string its pattern matches where json-schema-faker could not (#11, AWS ACM)', () => {
    const certificate =
      '-{5}BEGIN CERTIFICATE-{5}\\u000D?\\u000A([A-Za-z0-9/+]{64}\\u000D?\\u000A)*[A-Za-z0-9/+]{1,64}={0,2}\\u000D?\\u000A-{5}END CERTIFICATE-{5}(\\u000D?\\u000A)?'
    const schema = { type: 'object', properties: { pem: { type: 'string', pattern: certificate } } }
    const { value, valid } = mended(schema, { pem: 'u000Dxyz' }, byType)
    expect(valid).toBe(true)
    expect((value as { pem: string }).pem).toMatch(/^-----BEGIN CERTIFICATE-----\r?\n/)
  })

  it('puts a sample of the format that fits the length bounds (#11, telstra: a date-time of 24 characters)', () => {
    const schema = {
      type: 'object',
      properties: { lastUse: { type: 'string', format: 'date-time', minLength: 24, maxLength: 24 } },
    }
    expect(mended(schema, { lastUse: '2023-09-08T00:47:12Z' }, byType)).toEqual({
      value: { lastUse: '2024-01-01T00:00:00.000Z' },
      valid: true,
    })
  })

  it('puts a sample of the format that the pattern matches too (#11, loket.nl: an upper-case uuid)', () => {
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'string', format: 'uuid', pattern: '^[{(]?[0-9A-F]{8}[-]?([0-9A-F]{4}[-]?){3}[0-9A-F]{12}[)}]?$' },
      },
    }
    expect(mended(schema, { id: '0b3b8a2e-6f1e-4a53-9f1e-2b1c0d1e2f3a' }, byType)).toEqual({
      value: { id: '3FA85F64-5717-4562-B3FC-2C963F66AFA6' },
      valid: true,
    })
  })

  it('changes nothing where the errors say nothing it can mend', () => {
    const validate = ajv.compile({ type: 'string', minLength: 3 })
    validate('a')
    expect(mendGenerated('a', validate.errors ?? [])).toBe(false)
  })
})
