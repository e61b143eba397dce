import { describe, expect, it } from 'vitest'
import { flattenSchema } from '../../src/openapi/flatten-schema.js'

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

describe('flattenSchema', () => {
  it('lists the schema, then its allOf, anyOf and oneOf parts, depth first, $refs followed', () => {
    const document = {
      components: {
        schemas: {
          Named: { properties: { name: {} }, allOf: [{ properties: { inner: {} } }] },
          Tagged: { properties: { tag: {} } },
        },
      },
    }
    const schema = { oneOf: [{ title: 'one' }], anyOf: [ref('Tagged')], allOf: [ref('Named')] }
    expect(flattenSchema(document, schema)).toEqual([
      schema,
      document.components.schemas.Named,
      { properties: { inner: {} } },
      document.components.schemas.Tagged,
      { title: 'one' },
    ])
  })

  it('lists a part reached twice once, where it is first reached', () => {
    const document = { components: { schemas: { Base: { properties: { id: {} } } } } }
    const schema = { allOf: [ref('Base'), { allOf: [ref('Base')] }] }
    const parts = flattenSchema(document, schema)
    expect(parts).toHaveLength(3)
    expect(parts[1]).toBe(document.components.schemas.Base)
  })

  it('ends on a recursive allOf, and on one that branches every time', () => {
    const document = {
      components: { schemas: { Loop: { allOf: [ref('Loop')] }, Fork: { oneOf: [ref('Fork'), ref('Fork')] } } },
    }
    expect(flattenSchema(document, ref('Loop'))).toEqual([document.components.schemas.Loop])
    expect(flattenSchema(document, ref('Fork'))).toEqual([document.components.schemas.Fork])
  })

  it('stops following parts 32 levels down', () => {
    let schema: Record<string, unknown> = { title: 'bottom' }
    for (let level = 0; level < 40; level++) schema = { allOf: [schema] }
    expect(flattenSchema({}, schema)).toHaveLength(33)
  })

  it('gives nothing for what is not a schema object, and skips combinators that are not lists', () => {
    expect(flattenSchema({}, undefined)).toEqual([])
    expect(flattenSchema({}, true)).toEqual([])
    expect(flattenSchema({}, ref('Missing'))).toEqual([])
    expect(flattenSchema({}, { allOf: { 0: { title: 'x' } } })).toEqual([{ allOf: { 0: { title: 'x' } } }])
  })
})
