import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { mendGenerated } from '../../src/responses/mend-generated.js'

const ajv = new Ajv2020({ allErrors: true, strict: false })
addFormats.default(ajv)

/** Mends until nothing changes (as the renderer does, bounded), then says what is left. */
function mended(schema: object, value: unknown): { value: unknown; valid: boolean } {
  const validate = ajv.compile(schema)
  for (let round = 0; round < 3 && !validate(value) && mendGenerated(value, validate.errors ?? []); round++);
  return { value, valid: validate(value) }
}

const node = {
  $id: 'node',
  type: 'object',
  required: ['value'],
  properties: { value: { type: 'integer' }, left: { $ref: 'node' }, children: { type: 'array', items: { $ref: 'node' } } },
}

describe('mendGenerated (#11)', () => {
  it('leaves out an optional property that recursion ended with null', () => {
    expect(mended(node, { value: 1, left: { value: 2, left: null } })).toEqual({ value: { value: 1, left: { value: 2 } }, valid: true })
  })

  it('drops array items that recursion ended with null, keeping indexes right', () => {
    expect(mended(node, { value: 1, children: [null, { value: 2 }, null, null] })).toEqual({ value: { value: 1, children: [{ value: 2 }] }, valid: true })
  })

  it('puts a sample of the format in place of a string that breaks it', () => {
    const schema = { type: 'object', properties: { home: { type: 'string', format: 'url' }, mail: { type: 'string', format: 'email' } } }
    expect(mended(schema, { home: 'oWTOaCs3r', mail: '' })).toEqual({ value: { home: 'https://example.com/', mail: 'user@example.com' }, valid: true })
  })

  it('cannot mend a required value that recursion ended with null', () => {
    const schema = { type: 'object', required: ['next'], properties: { next: { type: 'object' } } }
    expect(mended(schema, { next: null }).valid).toBe(false)
  })

  it('changes nothing where the errors say nothing it can mend', () => {
    const validate = ajv.compile({ type: 'string', minLength: 3 })
    validate('a')
    expect(mendGenerated('a', validate.errors ?? [])).toBe(false)
  })
})
