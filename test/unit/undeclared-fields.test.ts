import { describe, expect, it } from 'vitest'
import { findUndeclaredFields } from '../../src/validation/undeclared-fields.js'
import { plantStore } from '../support/builders.js'

const document = plantStore()
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const undeclared = (schema: unknown, value: unknown) => findUndeclaredFields(document, schema, value)

describe('findUndeclaredFields', () => {
  it('finds nothing in a body that carries only declared fields', () => {
    expect(undeclared(ref('Plant'), { name: 'Fern', tag: 'indoor' })).toEqual([])
  })

  it('names a field the schema does not declare, though additionalProperties is not false', () => {
    // The Plant Store's Plant has no id: a response that adds one breaks the contract.
    expect(undeclared(ref('Plant'), { name: 'Fern', id: 1 })).toEqual(['.id'])
  })

  it('counts the fields of every allOf part as declared', () => {
    expect(undeclared(ref('NewPlant'), { id: 1, name: 'Fern', tag: 't' })).toEqual([])
    expect(undeclared(ref('NewPlant'), { id: 1, name: 'Fern', colour: 'green' })).toEqual(['.colour'])
  })

  it('counts the fields of anyOf and oneOf branches as declared', () => {
    const schema = { anyOf: [{ properties: { a: {} } }, { oneOf: [{ properties: { b: {} } }] }] }
    expect(undeclared(schema, { a: 1, b: 2, c: 3 })).toEqual(['.c'])
  })

  it('looks inside nested objects', () => {
    const schema = { type: 'object', properties: { plant: ref('Plant') } }
    expect(undeclared(schema, { plant: { name: 'Fern', price: 3 } })).toEqual(['.plant.price'])
  })

  it('looks inside array items, naming the index', () => {
    const schema = { type: 'array', items: ref('Plant') }
    expect(undeclared(schema, [{ name: 'a' }, { name: 'b', id: 2 }])).toEqual(['[1].id'])
  })

  it('looks inside arrays nested in objects', () => {
    const schema = { type: 'object', properties: { plants: { type: 'array', items: ref('Plant') } } }
    expect(undeclared(schema, { plants: [{ name: 'a', x: 1 }] })).toEqual(['.plants[0].x'])
  })

  it('lists every undeclared field', () => {
    expect(undeclared(ref('Plant'), { name: 'a', id: 1, price: 2 })).toEqual(['.id', '.price'])
  })

  it('allows any field where additionalProperties allows more', () => {
    expect(undeclared({ type: 'object', additionalProperties: true }, { anything: 1 })).toEqual([])
    expect(
      undeclared({ type: 'object', properties: { a: {} }, additionalProperties: { type: 'string' } }, { b: 'x' }),
    ).toEqual([])
  })

  it('allows fields where patternProperties is declared', () => {
    expect(undeclared({ type: 'object', patternProperties: { '^x-': {} } }, { 'x-a': 1 })).toEqual([])
  })

  it('does not look inside a field whose schema allows anything', () => {
    const schema = { type: 'object', properties: { meta: { type: 'object', additionalProperties: true } } }
    expect(undeclared(schema, { meta: { deep: { deeper: 1 } } })).toEqual([])
  })

  it('finds nothing in values that are not objects', () => {
    expect(undeclared(ref('Plant'), 'text')).toEqual([])
    expect(undeclared(ref('Plant'), null)).toEqual([])
    expect(undeclared({ type: 'array' }, [{ a: 1 }])).toEqual([])
  })

  it('follows a chain of $refs', () => {
    const doc = { components: { schemas: { A: { $ref: '#/components/schemas/B' }, B: { properties: { b: {} } } } } }
    expect(findUndeclaredFields(doc, { $ref: '#/components/schemas/A' }, { b: 1, c: 2 })).toEqual(['.c'])
  })

  it('stops on a $ref cycle instead of recursing for ever', () => {
    const doc = {
      components: {
        schemas: {
          Node: {
            properties: { next: { $ref: '#/components/schemas/Node' } },
            allOf: [{ $ref: '#/components/schemas/Node' }],
          },
        },
      },
    }
    expect(findUndeclaredFields(doc, { $ref: '#/components/schemas/Node' }, { next: { next: {} }, x: 1 })).toEqual([
      '.x',
    ])
  })

  it('lets a free-form object (no properties declared) carry any field', () => {
    const schema = { type: 'object', properties: { meta: { type: 'object' } } }
    expect(undeclared(schema, { meta: { anything: 1, goes: [true] } })).toEqual([])
  })
})
