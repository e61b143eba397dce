import { describe, expect, it } from 'vitest'
import { MockError } from '../../src/errors/index.js'
import { type BodyValidator, compileBody, selectMediaType, validateBody } from '../../src/validation/validate-body.js'
import { MAX_JSON_DEPTH, depthViolation } from '../../src/validation/json-depth.js'
import { ajvFor, operationsOf, plantStore } from '../support/builders.js'
import { nodePlatform } from '../../src/node/node-platform.js'

const { readMultipart } = nodePlatform.network
const INT64_MESSAGE = 'must be a signed 64-bit integer (-9223372036854775808 to 9223372036854775807)'

/** The body validator of a description's first operation. */
function bodyOf(document: Record<string, any>): BodyValidator {
  const ajv = ajvFor(document)
  const requestBody = operationsOf(document)[0]!.requestBody
  if (!requestBody) throw new Error('the operation declares no body')
  return compileBody(ajv, requestBody, undefined, { readMultipart })
}

/** A Plant Store-like description whose one body has the given content (and `required`). */
function documentWithContent(content: Record<string, unknown>, required = true): Record<string, any> {
  const document = plantStore()
  document.paths['/plants'].post.requestBody = { required, content }
  return document
}

const newPlant = { $ref: '#/components/schemas/NewPlant' }
const plantBody = bodyOf(plantStore())
const bytes = (text: string) => new TextEncoder().encode(text)

/** Validates a Plant Store `POST /plants` body sent as application/json. */
function plantViolations(text: string) {
  return validateBody(plantBody, selectMediaType(plantBody, 'application/json'), bytes(text)).violations
}

function unsupported(body: BodyValidator, contentType: string | undefined): MockError {
  try {
    selectMediaType(body, contentType)
  } catch (error) {
    if (error instanceof MockError) return error
    throw error
  }
  throw new Error(`expected 415 for ${contentType}`)
}

describe('selectMediaType', () => {
  it('accepts the declared media type', () => {
    expect(selectMediaType(plantBody, 'application/json').range).toBe('application/json')
  })

  it('ignores parameters such as charset and reads the type case-insensitively', () => {
    expect(selectMediaType(plantBody, 'application/json; charset=utf-8').range).toBe('application/json')
    expect(selectMediaType(plantBody, 'Application/JSON;charset=UTF-8').range).toBe('application/json')
  })

  it('matches a declared media type written with parameters', () => {
    const body = bodyOf(documentWithContent({ 'application/json; charset=utf-8': { schema: newPlant } }))
    expect(selectMediaType(body, 'application/json').kind).toBe('json')
  })

  it('lets a +json type stand where application/json is declared', () => {
    const media = selectMediaType(plantBody, 'application/merge-patch+json')
    expect(media.range).toBe('application/json')
    expect(media.kind).toBe('json')
  })

  it('prefers an exactly declared +json type over application/json', () => {
    const body = bodyOf(
      documentWithContent({
        'application/json': { schema: newPlant },
        'application/vnd.plant+json': { schema: { type: 'array' } },
      }),
    )
    expect(selectMediaType(body, 'application/vnd.plant+json').range).toBe('application/vnd.plant+json')
  })

  it('accepts a type that a declared wildcard range covers', () => {
    const body = bodyOf(documentWithContent({ 'image/*': {} }))
    expect(selectMediaType(body, 'image/png').range).toBe('image/*')
  })

  it('accepts any type where */* is declared', () => {
    const body = bodyOf(documentWithContent({ '*/*': {} }))
    expect(selectMediaType(body, 'text/csv').range).toBe('*/*')
  })

  it('prefers an exact declaration over a wildcard declared before it', () => {
    const body = bodyOf(documentWithContent({ '*/*': {}, 'application/json': { schema: newPlant } }))
    expect(selectMediaType(body, 'application/json').range).toBe('application/json')
  })

  it('does not let a wildcard range cover another top-level type', () => {
    const body = bodyOf(documentWithContent({ 'image/*': {} }))
    expect(unsupported(body, 'imagex/png').status).toBe(415)
    expect(unsupported(body, 'text/plain').status).toBe(415)
  })

  it('answers 415 listing the declared types for an undeclared type', () => {
    const error = unsupported(plantBody, 'text/plain')
    expect(error.status).toBe(415)
    expect(error.kind).toBe('unsupported_media_type')
    expect(error.message).toContain('"text/plain"')
    expect(error.message).toContain('application/json')
  })

  it('answers 415 for a body without Content-Type where only JSON is declared', () => {
    const error = unsupported(plantBody, undefined)
    expect(error.status).toBe(415)
    expect(error.message).toContain('no Content-Type')
  })

  it('does not take a type whose name only contains json for JSON', () => {
    expect(unsupported(plantBody, 'application/jsonx').status).toBe(415)
  })
})

describe('validateBody: reading the bytes', () => {
  it('reports a missing required body', () => {
    expect(plantViolations('')).toEqual([{ path: 'body', message: 'is required but the request has no body' }])
  })

  it('accepts a missing optional body', () => {
    const body = bodyOf(documentWithContent({ 'application/json': { schema: newPlant } }, false))
    expect(validateBody(body, body.accepted[0]!, new Uint8Array()).violations).toEqual([])
  })

  it('reports malformed JSON with the parser’s reason', () => {
    const [violation, ...rest] = plantViolations('{"id": 1, "name": ')
    expect(rest).toEqual([])
    expect(violation?.path).toBe('body')
    expect(violation?.message).toMatch(/^is not valid JSON \(.+\)$/)
  })

  it('reports bytes that are not UTF-8', () => {
    const invalid = new Uint8Array([...bytes('{"id": 1, "name": "'), 0xff, 0xfe, ...bytes('"}')])
    expect(validateBody(plantBody, plantBody.accepted[0]!, invalid).violations).toEqual([
      { path: 'body', message: 'is not valid UTF-8' },
    ])
  })

  it('accepts names in any script written as UTF-8', () => {
    expect(plantViolations('{"id": 1, "name": "Ficus 🌿 ficus élastique"}')).toEqual([])
  })

  it('does not parse or validate a body of a declared non-JSON type', () => {
    const body = bodyOf(documentWithContent({ 'text/plain': { schema: { type: 'integer' } } }))
    expect(validateBody(body, selectMediaType(body, 'text/plain'), bytes('not a number')).violations).toEqual([])
  })

  it('returns the parsed value of a valid body', () => {
    expect(validateBody(plantBody, plantBody.accepted[0]!, bytes('{"id": 1, "name": "Fern"}')).value).toEqual({
      id: 1,
      name: 'Fern',
    })
  })

  it('validates a +json body against the application/json schema', () => {
    const outcome = validateBody(
      plantBody,
      selectMediaType(plantBody, 'application/merge-patch+json'),
      bytes('{"name": "Fern"}'),
    )
    expect(outcome.violations).toEqual([{ path: 'body.id', message: 'is required' }])
  })
})

describe('validateBody: the Plant Store NewPlant schema', () => {
  it('accepts a plant with an id and a name', () => {
    expect(plantViolations('{"id": 1, "name": "Fern"}')).toEqual([])
  })

  it('accepts a plant with the optional tag', () => {
    expect(plantViolations('{"id": 1, "name": "Fern", "tag": "indoor"}')).toEqual([])
  })

  it('allows properties the schema does not declare, since it does not forbid them', () => {
    expect(plantViolations('{"id": 1, "name": "Fern", "color": "green"}')).toEqual([])
  })

  it('accepts the largest int64 written exactly', () => {
    expect(plantViolations('{"id": 9223372036854775807, "name": "Fern"}')).toEqual([])
  })

  it('refuses one more than the largest int64', () => {
    expect(plantViolations('{"id": 9223372036854775808, "name": "Fern"}')).toEqual([
      { path: 'body.id', message: INT64_MESSAGE },
    ])
  })

  it('accepts the smallest int64 written exactly', () => {
    expect(plantViolations('{"id": -9223372036854775808, "name": "Fern"}')).toEqual([])
  })

  it('refuses one less than the smallest int64', () => {
    expect(plantViolations('{"id": -9223372036854775809, "name": "Fern"}')).toEqual([
      { path: 'body.id', message: INT64_MESSAGE },
    ])
  })

  it('refuses a literal that rounds to 2^63 although it is far from the edge', () => {
    expect(plantViolations('{"id": 9223372036854776000, "name": "Fern"}')).toEqual([
      { path: 'body.id', message: INT64_MESSAGE },
    ])
  })

  it('refuses 1e400, which JSON.parse turns into Infinity', () => {
    const violations = plantViolations('{"id": 1e400, "name": "Fern"}')
    expect(violations.length).toBeGreaterThan(0)
    expect(violations.every((v) => v.path === 'body.id')).toBe(true)
  })

  it('refuses a fractional id', () => {
    const violations = plantViolations('{"id": 1.5, "name": "Fern"}')
    expect(violations).toContainEqual({ path: 'body.id', message: 'must be an integer' })
    expect(violations.every((v) => v.path === 'body.id')).toBe(true)
  })

  it('accepts 1.0 as the integer 1, as JSON Schema counts numbers by value', () => {
    expect(plantViolations('{"id": 1.0, "name": "Fern"}')).toEqual([])
  })

  it('refuses an id sent as a string', () => {
    expect(plantViolations('{"id": "1", "name": "Fern"}')).toEqual([{ path: 'body.id', message: 'must be an integer' }])
  })

  it('refuses null for a field that does not allow it', () => {
    expect(plantViolations('{"id": 1, "name": null}')).toEqual([{ path: 'body.name', message: 'must be a string' }])
  })

  it('refuses a body that is not an object', () => {
    expect(plantViolations('[]')).toEqual([{ path: 'body', message: 'must be an object' }])
  })

  it('reports all violations together', () => {
    const violations = plantViolations('{"id": "x", "tag": 7}')
    expect(violations).toHaveLength(3)
    expect(violations).toEqual(
      expect.arrayContaining([
        { path: 'body.id', message: 'must be an integer' },
        { path: 'body.name', message: 'is required' },
        { path: 'body.tag', message: 'must be a string' },
      ]),
    )
  })

  it('decides the int64 edge exactly in a body that repeats another key', () => {
    expect(plantViolations('{"name": "a", "name": "b", "id": 9223372036854775807}')).toEqual([])
    expect(plantViolations('{"name": "a", "name": "b", "id": 9223372036854775808}')).toEqual([
      { path: 'body.id', message: INT64_MESSAGE },
    ])
  })
})

describe('depthViolation (#12, #34)', () => {
  const tooDeep = (text: string, max: number) => depthViolation('body', text, max)
  it('counts arrays and objects, not brackets inside strings or escaped quotes', () => {
    expect(tooDeep('[[[]]]', 3)).toBeUndefined()
    expect(tooDeep('[[[[]]]]', 3)).toBeDefined()
    expect(tooDeep('{"a":{"b":{"c":{}}}}', 3)).toBeDefined()
    expect(tooDeep('["[[[[", "\\"[[[["]', 1)).toBeUndefined()
    expect(tooDeep('[[],[],[],[]]', 2)).toBeUndefined()
  })

  it('names the limit, the level and the character where it is passed, and the path down to there', () => {
    expect(tooDeep('{"a":{"b c":[1,{"x":"]"},[[]]]}}', 4)).toEqual({
      path: 'body.a["b c"][2][0]',
      message: 'opens level 5 of nesting at position 26: the limit is 4 levels',
    })
    expect(tooDeep('[{"k\\"ey":1,"next":{"n":[', 3)).toMatchObject({ path: 'body[0].next.n' })
  })

  it('shows the ends of a long path, so that a 200,000-deep body is named in a few characters', () => {
    const deep = '{"tags":' + '['.repeat(200_000) + ']'.repeat(200_000) + '}'
    expect(tooDeep(deep, MAX_JSON_DEPTH)).toEqual({
      path: 'body.tags[0][0][0]…[0][0][0][0]',
      message: 'opens level 257 of nesting at position 263: the limit is 256 levels',
    })
  })

  it(`refuses ${MAX_JSON_DEPTH + 1} levels against a recursive schema before validation, which overflowed the stack at 5,000 (500)`, () => {
    const body = compileBody(
      ajvFor(recursive()),
      {
        required: true,
        content: [{ mediaType: 'application/json', schemaPointer: '/components/schemas/Node', examples: [] }],
      },
      undefined,
      { readMultipart },
    )
    const media = selectMediaType(body, 'application/json')
    const deep = (levels: number) => `${'{"next":'.repeat(levels)}{}${'}'.repeat(levels)}`
    expect(validateBody(body, media, new TextEncoder().encode(deep(5000)))).toEqual({
      violations: [
        {
          path: 'body.next.next.next.next….next.next.next.next',
          message: `opens level ${MAX_JSON_DEPTH + 1} of nesting at position ${8 * MAX_JSON_DEPTH}: the limit is ${MAX_JSON_DEPTH} levels (--max-depth)`,
        },
      ],
    })
    expect(validateBody(body, media, new TextEncoder().encode(deep(MAX_JSON_DEPTH - 1)))).toMatchObject({
      violations: [],
    })
  })
})

function recursive() {
  return {
    openapi: '3.1.0',
    components: { schemas: { Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } } } },
  }
}

describe('maxDepth (#12, --max-depth)', () => {
  it('takes another bound than the default', () => {
    const body = compileBody(
      ajvFor(recursive()),
      {
        required: true,
        content: [{ mediaType: 'application/json', schemaPointer: '/components/schemas/Node', examples: [] }],
      },
      undefined,
      { maxDepth: 3, readMultipart },
    )
    const media = selectMediaType(body, 'application/json')
    expect(validateBody(body, media, new TextEncoder().encode('{"next":{"next":{"next":{}}}}')).violations).toEqual([
      {
        path: 'body.next.next.next',
        message: 'opens level 4 of nesting at position 24: the limit is 3 levels (--max-depth)',
      },
    ])
    expect(validateBody(body, media, new TextEncoder().encode('{"next":{"next":{}}}')).violations).toEqual([])
  })
})

describe('multipart parts by position: OpenAPI 3.2 prefixEncoding and itemEncoding (#31 §1)', () => {
  const body = bodyOf(
    documentWithContent({
      'multipart/mixed': {
        schema: { type: 'array' },
        prefixEncoding: [{ contentType: 'application/json' }, {}],
        itemEncoding: { contentType: 'image/png, image/*' },
      },
      'multipart/related': { schema: { type: 'array' } },
    }),
  )
  const partsOf = (boundary: string, ...types: Array<string | undefined>) =>
    bytes(
      types.map((type) => `--${boundary}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\nx\r\n`).join('') +
        `--${boundary}--\r\n`,
    )
  const judge = async (contentType: string, payload: Uint8Array) =>
    (await validateBody(body, selectMediaType(body, contentType), payload, contentType)).violations

  it('takes parts of the types their positions name; a prefix entry without contentType takes any', async () => {
    const payload = partsOf('b', 'application/json; charset=utf-8', 'text/csv', 'image/png', 'IMAGE/WEBP')
    expect(await judge('multipart/mixed; boundary=b', payload)).toEqual([])
    expect(await judge('multipart/mixed; boundary="b"', payload)).toEqual([])
  })

  it('names each part of another type by its index, a part without Content-Type read as text/plain', async () => {
    expect(await judge('multipart/mixed; boundary=b', partsOf('b', 'text/plain', 'text/plain', undefined))).toEqual([
      { path: 'body[0]', message: 'is text/plain; its encoding asks for application/json' },
      { path: 'body[2]', message: 'is text/plain; its encoding asks for image/png or image/*' },
    ])
  })

  it('says why a body cannot be read: no boundary, broken, too many parts', async () => {
    expect(await judge('multipart/mixed', partsOf('b', 'application/json'))).toEqual([
      { path: 'body', message: 'is multipart/mixed without a boundary' },
    ])
    const [broken] = await judge('multipart/mixed; boundary=b', bytes('--b\r\nContent-Type: application/json\r\n\r\n{'))
    expect(broken?.message).toMatch(/^is not valid multipart\/mixed \(/)
    const many = partsOf('b', 'application/json', 'image/png', 'image/png', 'image/png')
    expect(await readMultipart(many, 'multipart/mixed; boundary=b', 3)).toEqual({ problem: 'has more than 3 parts' })
  })

  it('leaves a multipart type without positional encodings unread, as before', async () => {
    expect(await judge('multipart/related; boundary=b', bytes('not multipart at all'))).toEqual([])
  })
})
