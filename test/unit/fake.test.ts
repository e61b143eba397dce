import { nodePlatform } from '../../src/node/node-platform.js'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { createFaker } from '../../src/generation/fake.js'
import { isDeadlinePassed, startDeadline } from '../../src/generation/generation-deadline.js'
import { findUndeclaredFields } from '../../src/validation/undeclared-fields.js'
import { compileAt } from '../../src/validation/create-ajv.js'
import { ajvFor } from '../support/builders.js'

// json-schema-faker is loaded on demand (#33); the engine loads it at start-up, and these make fakers of their own.
beforeAll(() => createFaker({}, 0).load())

/**
 * The faker's contract (#7): every generated body validates against its schema and carries no
 * field the schema does not declare. Each schema of the corpus is generated 50 times with a fixed
 * seed and every body is checked by Ajv, the validator the mock serves requests with.
 */
const BODIES_PER_SCHEMA = 50
const SEED = 7

const shared = {
  Cat: {
    type: 'object',
    required: ['petType', 'lives'],
    properties: { petType: { type: 'string' }, lives: { type: 'integer', minimum: 1, maximum: 9 } },
  },
  Dog: {
    type: 'object',
    required: ['petType', 'bark'],
    properties: { petType: { type: 'string' }, bark: { type: 'string', enum: ['woof', 'yap'] } },
  },
  Node: {
    type: 'object',
    required: ['value'],
    properties: {
      value: { type: 'integer' },
      children: { type: 'array', maxItems: 2, items: { $ref: '#/components/schemas/Node' } },
    },
  },
}

const corpus: Record<string, unknown> = {
  'integer bounds': { type: 'integer', minimum: 10, maximum: 20 },
  'exclusive number bounds': { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
  'exclusive integer bounds next to each other': { type: 'integer', exclusiveMinimum: 4, exclusiveMaximum: 6 },
  'negative integer bounds': { type: 'integer', minimum: -50, maximum: -40 },
  'int64 with a minimum beyond 2^53': { type: 'integer', format: 'int64', minimum: 9007199254740000 },
  'int64 with a maximum near -2^53': { type: 'integer', format: 'int64', maximum: -9007199254740000 },
  'int64 without bounds': { type: 'integer', format: 'int64' },
  'int32 without bounds': { type: 'integer', format: 'int32' },
  'int32 with a minimum': { type: 'integer', format: 'int32', minimum: 2147483000 },
  'integer multipleOf': { type: 'integer', multipleOf: 7, minimum: 1, maximum: 100 },
  'number multipleOf': { type: 'number', multipleOf: 0.25, minimum: 1, maximum: 3 },
  'float and double': {
    type: 'object',
    required: ['f', 'd'],
    properties: { f: { type: 'number', format: 'float' }, d: { type: 'number', format: 'double' } },
  },
  'string lengths': { type: 'string', minLength: 5, maxLength: 8 },
  'long minimum length': { type: 'string', minLength: 300 },
  'string pattern': { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
  'pattern with lengths': { type: 'string', pattern: '^[a-z]+$', minLength: 3, maxLength: 6 },
  'string enum': { type: 'string', enum: ['red', 'green', 'blue'] },
  const: { const: 'fixed' },
  'array bounds': { type: 'array', minItems: 2, maxItems: 4, items: { type: 'integer' } },
  'unique array': {
    type: 'array',
    uniqueItems: true,
    minItems: 3,
    maxItems: 5,
    items: { type: 'string', enum: ['a', 'b', 'c', 'd', 'e'] },
  },
  'unique small integers filling the range': {
    type: 'array',
    uniqueItems: true,
    minItems: 4,
    items: { type: 'integer', minimum: 0, maximum: 3 },
  },
  'date-time': { type: 'string', format: 'date-time' },
  date: { type: 'string', format: 'date' },
  time: { type: 'string', format: 'time' },
  email: { type: 'string', format: 'email' },
  uuid: { type: 'string', format: 'uuid' },
  uri: { type: 'string', format: 'uri' },
  ipv4: { type: 'string', format: 'ipv4' },
  ipv6: { type: 'string', format: 'ipv6' },
  hostname: { type: 'string', format: 'hostname' },
  byte: { type: 'string', format: 'byte' },
  'uri-reference': { type: 'string', format: 'uri-reference' },
  duration: { type: 'string', format: 'duration' },
  'json-pointer': { type: 'string', format: 'json-pointer' },
  'int64 near the top of its range': { type: 'integer', format: 'int64', minimum: 9223372036854774000 },
  'number with only an exclusive maximum': { type: 'number', exclusiveMaximum: -5000 },
  'type array with null (3.1)': { type: ['string', 'null'], minLength: 2 },
  'nullable object property (3.0, rewritten)': {
    type: 'object',
    required: ['note'],
    properties: { note: { type: ['string', 'null'], enum: ['a', 'b', null] } },
  },
  'closed object': {
    type: 'object',
    required: ['id', 'name'],
    additionalProperties: false,
    properties: {
      id: { type: 'integer', format: 'int64', minimum: 1 },
      name: { type: 'string', minLength: 1 },
      tag: { type: 'string' },
    },
  },
  oneOf: {
    oneOf: [
      {
        type: 'object',
        required: ['kind', 'radius'],
        additionalProperties: false,
        properties: { kind: { const: 'circle' }, radius: { type: 'number', exclusiveMinimum: 0 } },
      },
      {
        type: 'object',
        required: ['kind', 'side'],
        additionalProperties: false,
        properties: { kind: { const: 'square' }, side: { type: 'integer', minimum: 1 } },
      },
    ],
  },
  anyOf: {
    anyOf: [
      { type: 'string', format: 'email' },
      { type: 'integer', minimum: 0 },
    ],
  },
  allOf: {
    allOf: [
      { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      { type: 'object', required: ['id'], properties: { id: { type: 'integer', format: 'int64', minimum: 100 } } },
    ],
  },
  'discriminator with mapping': {
    oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
    discriminator: {
      propertyName: 'petType',
      mapping: { cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' },
    },
  },
  'discriminator without mapping': {
    oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
    discriminator: { propertyName: 'petType' },
  },
  'recursive schema': { $ref: '#/components/schemas/Node' },
}

function documentWith(name: string, schema: unknown): Record<string, any> {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {},
    components: { schemas: { ...structuredClone(shared), Subject: schema, name } },
  }
}

describe('generated bodies (#7)', () => {
  it.each(Object.entries(corpus))('generates 50 bodies for %s that all validate', (name, schema) => {
    const document = documentWith(name, schema)
    const validate = compileAt(ajvFor(document), '/components/schemas/Subject')
    const fake = createFaker(document, SEED)
    const problems: string[] = []
    for (let i = 0; i < BODIES_PER_SCHEMA; i++) {
      const body = fake('/components/schemas/Subject')
      if (!validate(body))
        problems.push(
          `${JSON.stringify(body)}: ${validate.errors!.map((e) => `${e.instancePath} ${e.message}`).join(', ')}`,
        )
      const undeclared = findUndeclaredFields(document, document.components.schemas.Subject, body)
      if (undeclared.length) problems.push(`${JSON.stringify(body)}: undeclared ${undeclared.join(', ')}`)
    }
    expect(problems.slice(0, 3)).toEqual([])
  })
})

describe('generated discriminated bodies (#7)', () => {
  const discriminated = (discriminator: Record<string, unknown>) =>
    documentWith('pets', {
      oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
      discriminator,
    })

  /** The discriminator value of 50 generated pets, by the branch each one is (told apart by its own fields). */
  function tagsByBranch(document: Record<string, any>) {
    const fake = createFaker(document, SEED)
    const tags = { cat: new Set<unknown>(), dog: new Set<unknown>() }
    for (let i = 0; i < BODIES_PER_SCHEMA; i++) {
      const pet = fake('/components/schemas/Subject') as Record<string, unknown>
      tags['lives' in pet ? 'cat' : 'dog'].add(pet.petType)
    }
    return { cat: [...tags.cat], dog: [...tags.dog] }
  }

  it('sets the discriminator property to the mapping name of the branch it generates', () => {
    const mapping = { feline: '#/components/schemas/Cat', canine: '#/components/schemas/Dog' }
    expect(tagsByBranch(discriminated({ propertyName: 'petType', mapping }))).toEqual({
      cat: ['feline'],
      dog: ['canine'],
    })
  })

  it('sets the discriminator property to the schema name of a branch the mapping does not name', () => {
    expect(tagsByBranch(discriminated({ propertyName: 'petType' }))).toEqual({ cat: ['Cat'], dog: ['Dog'] })
  })
})

describe('generation preparation (#7)', () => {
  it('leaves the schemas it was given unchanged', () => {
    const document = documentWith('int64', { type: 'integer', format: 'int64', minimum: 9007199254740000 })
    const before = structuredClone(document)
    createFaker(document, SEED)('/components/schemas/Subject')
    expect(document).toEqual(before)
  })
})

describe('the generation deadline (#12)', () => {
  const level = (items: object) => ({ type: 'array', minItems: 20, items })
  const document = {
    openapi: '3.0.3',
    components: {
      schemas: { ...structuredClone(shared), Cube: level(level(level({ type: 'integer' }))), Subject: shared.Node },
    },
  }

  it('stops generating, with the deadline’s own error, once the deadline has passed', () => {
    const fake = createFaker(document, SEED)
    const deadline = startDeadline(1000, nodePlatform.cpuTime)
    vi.spyOn(process, 'cpuUsage').mockReturnValue({ user: Number.MAX_SAFE_INTEGER, system: 0 })
    try {
      let thrown: unknown
      try {
        fake('/components/schemas/Cube', deadline)
      } catch (error) {
        thrown = error
      }
      expect(isDeadlinePassed(thrown)).toBe(true)
    } finally {
      vi.restoreAllMocks()
    }
  })

  it('generates the same values with a deadline as without: the seeded sequence is unchanged', () => {
    const plain = createFaker(document, SEED)
    const timed = createFaker(document, SEED)
    for (let i = 0; i < 5; i++)
      expect(timed('/components/schemas/Subject', startDeadline(60_000))).toEqual(plain('/components/schemas/Subject'))
    expect(timed('/components/schemas/Cube', startDeadline(60_000))).toEqual(plain('/components/schemas/Cube'))
  })

  it('forgets a deadline once its value is made: the next value without one is never stopped', () => {
    const fake = createFaker(document, SEED)
    fake('/components/schemas/Subject', startDeadline(1000, nodePlatform.cpuTime))
    vi.spyOn(performance, 'now').mockReturnValue(Number.MAX_SAFE_INTEGER)
    try {
      expect(() => fake('/components/schemas/Cube')).not.toThrow()
    } finally {
      vi.restoreAllMocks()
    }
  })
})

describe('fillProperties: every optional property, or only the required ones (#13)', () => {
  const Order = {
    type: 'object',
    required: ['id', 'customer'],
    properties: {
      id: { type: 'integer' },
      note: { type: 'string' },
      customer: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
      },
      shipping: {
        type: 'object',
        required: ['city'],
        properties: { city: { type: 'string' }, zip: { type: 'string' } },
      },
      lines: {
        type: 'array',
        items: {
          type: 'object',
          required: ['sku'],
          properties: { sku: { type: 'string' }, gift: { type: 'boolean' } },
        },
      },
    },
  }
  const document = documentWith('order', Order)
  const generate = (options?: { fillProperties?: boolean }) => {
    const fake = createFaker(document, SEED, undefined, options)
    return Array.from({ length: 10 }, () => fake('/components/schemas/Subject') as Record<string, any>)
  }

  it('puts every optional property in a generated body by default', () => {
    for (const body of generate()) {
      expect(Object.keys(body).sort()).toEqual(['customer', 'id', 'lines', 'note', 'shipping'])
      expect(Object.keys(body.customer).sort()).toEqual(['email', 'name'])
    }
  })

  it('puts only required properties in a generated body with fillProperties false, at every depth, and the body still validates', () => {
    const validate = compileAt(ajvFor(document), '/components/schemas/Subject')
    for (const body of generate({ fillProperties: false })) {
      expect(Object.keys(body).sort()).toEqual(['customer', 'id'])
      expect(Object.keys(body.customer)).toEqual(['name'])
      expect(validate(body)).toBe(true)
    }
  })

  it('leaves the default sequence as it was: fillProperties true generates what no option does', () => {
    expect(generate({ fillProperties: true })).toEqual(generate())
  })
})
