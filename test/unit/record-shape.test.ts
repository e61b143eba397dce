/** What a response schema makes of a stored record (`src/state/record-shape.ts`, #15). */
import { describe, expect, it } from 'vitest'
import { createAjv } from '../../src/validation/create-ajv.js'
import { fitRecord, projectRecord, shapeOf } from '../../src/state/record-shape.js'

const ajv = createAjv()
const checked = (schema: object) => ({ validate: ajv.compile(schema) })

describe('the shape of a response schema', () => {
  it('answers only the declared fields, none of a closed empty object, all of an open one', () => {
    const plant = shapeOf({}, { type: 'object', required: ['name'], properties: { id: {}, name: {} } })
    expect(projectRecord({ id: 1, name: 'Fern', note: 'x' }, plant, undefined)).toEqual({ id: 1, name: 'Fern' })
    const closed = shapeOf({}, { type: 'object', properties: {}, additionalProperties: false })
    expect(projectRecord({ id: 1, name: 'Fern' }, closed, undefined)).toEqual({})
    const open = shapeOf({}, { type: 'object' })
    expect(projectRecord({ id: 1, name: 'Fern' }, open, undefined)).toEqual({ id: 1, name: 'Fern' })
  })

  it('holds an object unless the schema itself says another type', () => {
    expect(shapeOf({}, { type: 'array', items: { type: 'string' } }).holdsObject).toBe(false)
    expect(shapeOf({}, { type: ['object', 'null'] }).holdsObject).toBe(true)
    expect(shapeOf({}, { oneOf: [{ type: 'string' }, { type: 'object' }] }).holdsObject).toBe(true)
  })
})

describe('fitting a record to its response schema', () => {
  const pull = checked({
    type: 'object',
    required: ['title', 'base'],
    properties: { title: { type: 'string' }, base: { type: 'object' }, labels: { type: 'array' } },
  })

  it('takes a breaking field from the sample, or leaves it out where the sample has none', () => {
    expect(fitRecord(pull, { title: 'Fix', base: 'main', labels: 'bug' }, { base: { ref: 'main' } })).toEqual({
      title: 'Fix',
      base: { ref: 'main' },
    })
  })

  it('keeps a record that meets the schema as it is', () => {
    const record = { title: 'Fix', base: { ref: 'dev' } }
    expect(fitRecord(pull, record, { base: { ref: 'main' } })).toBe(record)
  })

  it('gives up on a record that breaks the schema as a whole, so that the declared body answers', () => {
    const either = checked({
      oneOf: [
        { type: 'object', required: ['a'], additionalProperties: false, properties: { a: {} } },
        { type: 'object', required: ['b'], additionalProperties: false, properties: { b: {} } },
      ],
    })
    expect(fitRecord(either, { outcome: 'y' }, { a: 1 })).toBeUndefined()
  })
})
