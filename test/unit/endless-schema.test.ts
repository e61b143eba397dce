/** endlessPath (#30): which schemas no finite body meets, and the way round it names. */
import { describe, expect, it } from 'vitest'
import { endlessPath } from '../../src/generation/endless-schema.js'

const at = (schema: unknown, schemas: Record<string, unknown> = {}) =>
  endlessPath({ root: schema, components: { schemas } }, '/root')

const link = (extra: Record<string, unknown> = {}) => ({
  type: 'object',
  required: ['next'],
  properties: { next: { $ref: '#/components/schemas/Link' } },
  ...extra,
})

describe('endlessPath', () => {
  it('names the required property that leads back, directly or through other schemas', () => {
    expect(at({ $ref: '#/components/schemas/Link' }, { Link: link() })).toBe('next')
    const a = { type: 'object', required: ['b'], properties: { b: { $ref: '#/components/schemas/B' } } }
    const b = { type: 'object', required: ['a'], properties: { a: { $ref: '#/components/schemas/A' } } }
    expect(at({ $ref: '#/components/schemas/A' }, { A: a, B: b })).toBe('b.a')
  })

  it('follows required items and allOf members', () => {
    const tree = {
      type: 'object',
      required: ['children'],
      properties: { children: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/Tree' } } },
    }
    expect(at({ $ref: '#/components/schemas/Tree' }, { Tree: tree })).toBe('children.0')
    expect(at({ allOf: [{ $ref: '#/components/schemas/Link' }] }, { Link: link() })).toBe('next')
  })

  it('finds a way out in an optional property, an empty array, null, another type or a choice', () => {
    const ways = [
      { type: 'object', properties: { next: { $ref: '#/components/schemas/Link' } } },
      link({ required: [] }),
      {
        type: 'object',
        required: ['children'],
        properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Link' } } },
      },
      link({ nullable: true }),
      link({ type: ['object', 'null'] }),
      { anyOf: [{ $ref: '#/components/schemas/Link' }, { type: 'string' }] },
    ]
    for (const way of ways)
      expect(at({ $ref: '#/components/schemas/Link' }, { Link: way }), JSON.stringify(way)).toBeUndefined()
  })

  it('calls nothing endless that a body meets: a plain object, a deep but finite one, an outside $ref', () => {
    expect(at({ type: 'object', required: ['id'], properties: { id: { type: 'integer' } } })).toBeUndefined()
    expect(
      at(
        { $ref: '#/components/schemas/A' },
        {
          A: { type: 'object', required: ['b'], properties: { b: { $ref: '#/components/schemas/B' } } },
          B: { type: 'string' },
        },
      ),
    ).toBeUndefined()
    expect(at({ $ref: 'other.yaml#/Link' })).toBeUndefined()
  })
})
