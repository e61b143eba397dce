import { describe, expect, it } from 'vitest'
import { planForm } from '../../src/validation/form-plan.js'

const POINTER = '/paths/~1f/post/requestBody/content/media/schema'

/** The plan of a one-media-type description holding `media` (schema and encoding). */
function planOf(media: Record<string, unknown>, multipart = false, schemas: Record<string, unknown> = {}) {
  const document = { paths: { '/f': { post: { requestBody: { content: { media } } } } }, components: { schemas } }
  return planForm(document, POINTER, multipart)
}

const sorted = (set: ReadonlySet<string> | undefined) => [...(set ?? [])].sort()

describe('planForm', () => {
  it('nests object and array properties, Stripe style, and lists the declared names', () => {
    const plan = planOf({
      schema: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          scope: { type: 'object', properties: { type: { type: 'string' } } },
          expand: { type: 'array', items: { type: 'string' } },
          metadata: {
            anyOf: [
              { type: 'object', additionalProperties: { type: 'string' } },
              { type: 'string', enum: [''] },
            ],
          },
          'filter[kind]': { type: 'string' },
        },
      },
    })
    expect(sorted(plan?.declared)).toEqual(['expand', 'filter[kind]', 'metadata', 'name', 'scope'])
    expect(sorted(plan?.nested)).toEqual(['expand', 'metadata', 'scope'])
    expect(sorted(plan?.objects)).toEqual(['metadata', 'scope'])
    expect(sorted(plan?.json)).toEqual([])
  })

  it('follows $refs and allOf branches to the properties and their shapes', () => {
    const plan = planOf(
      {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/Base' },
            { properties: { extra: { $ref: '#/components/schemas/Extra' } } },
          ],
        },
      },
      false,
      {
        Base: { type: 'object', properties: { scope: { properties: { a: {} } } } },
        Extra: { type: ['object', 'null'] },
      },
    )
    expect(sorted(plan?.nested)).toEqual(['extra', 'scope'])
  })

  it('nests a property whose encoding style is deepObject, whatever its schema', () => {
    const plan = planOf({
      schema: { properties: { loose: {} } },
      encoding: { loose: { style: 'deepObject', explode: true } },
    })
    expect(sorted(plan?.nested)).toEqual(['loose'])
  })

  it('parses a form field only where its encoding declares JSON', () => {
    const plan = planOf({
      schema: { properties: { settings: { type: 'object' }, raw: { type: 'object' } } },
      encoding: {
        settings: { contentType: 'application/json; charset=utf-8' },
        raw: { contentType: 'text/plain, application/json' },
      },
    })
    expect(sorted(plan?.json)).toEqual(['settings'])
  })

  it('parses multipart object parts and items of arrays of objects as JSON by default', () => {
    const plan = planOf(
      {
        schema: {
          properties: {
            podcast: { type: 'object' },
            episodes: { type: 'array', items: { $ref: '#/components/schemas/Episode' } },
            tags: { type: 'array', items: { type: 'string' } },
            either: { anyOf: [{ type: 'object' }, { type: 'string' }] },
            cover: { type: 'string', format: 'binary' },
          },
        },
      },
      true,
      { Episode: { type: 'object' } },
    )
    expect(sorted(plan?.json)).toEqual(['episodes', 'podcast'])
    expect(sorted(plan?.jsonArrays)).toEqual(['episodes'])
  })

  it('lets a multipart encoding contentType override the default', () => {
    const plan = planOf(
      {
        schema: { properties: { podcast: { type: 'object' }, note: { type: 'string' } } },
        encoding: { podcast: { contentType: 'text/plain' }, note: { contentType: 'application/json' } },
      },
      true,
    )
    expect(sorted(plan?.json)).toEqual(['note'])
  })

  it('has no plan for a schema without properties', () => {
    expect(planOf({ schema: { type: 'object', additionalProperties: true } })).toBeUndefined()
  })

  it('does not loop on recursive branches', () => {
    const plan = planOf({ schema: { $ref: '#/components/schemas/Node' } }, false, {
      Node: {
        properties: { child: { $ref: '#/components/schemas/Node' } },
        anyOf: [{ $ref: '#/components/schemas/Node' }],
      },
    })
    expect(sorted(plan?.nested)).toEqual(['child'])
  })
})
