import { describe, expect, it } from 'vitest'
import {
  type BodyOutcome,
  type BodyValidator,
  compileBody,
  selectMediaType,
  validateBody,
} from '../../src/validation/validate-body.js'
import { MAX_FORM_FIELDS } from '../../src/validation/form-fields.js'
import { ajvFor, operationsOf } from '../support/builders.js'
import { nodePlatform } from '../../src/node/node-platform.js'

const FORM = 'application/x-www-form-urlencoded'
const BOUNDARY = 'XyZ'
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`

/** The body of a one-operation description, compiled as the engine compiles it (forms with the coercing Ajv). */
function bodyOf(content: Record<string, unknown>): BodyValidator {
  const document = {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: { '/f': { post: { requestBody: { required: true, content }, responses: { 200: { description: 'ok' } } } } },
  }
  const requestBody = operationsOf(document)[0]!.requestBody!
  return compileBody(ajvFor(structuredClone(document)), requestBody, ajvFor(document, { coerceTypes: true }), {
    readMultipart: nodePlatform.network.readMultipart,
  })
}

async function send(body: BodyValidator, contentType: string, text: string): Promise<BodyOutcome> {
  return validateBody(body, selectMediaType(body, contentType), new TextEncoder().encode(text), contentType)
}

/** A Stripe-like form body (`POST /v1/apps/secrets`). */
const stripe = bodyOf({
  [FORM]: {
    encoding: {
      scope: { style: 'deepObject', explode: true },
      expand: { style: 'deepObject', explode: true },
      settings: { contentType: 'application/json' },
    },
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'scope'],
      properties: {
        name: { type: 'string' },
        scope: {
          type: 'object',
          required: ['type'],
          properties: { type: { enum: ['account', 'user'] }, user: { type: 'string' } },
        },
        expand: { type: 'array', items: { type: 'string' } },
        items: { type: 'array', items: { type: 'object', properties: { quantity: { type: 'integer' } } } },
        settings: { type: 'object', properties: { retries: { type: 'integer' } } },
      },
    },
  },
})

describe('an empty form body (#11, truora.com)', () => {
  const optionalFields = bodyOf({
    [FORM]: { schema: { type: 'object', properties: { check_id: { type: 'string' } } } },
  })

  it('is an empty form, judged as {}: a client whose fields are all optional sends no bytes', async () => {
    expect((await send(optionalFields, FORM, '')).violations).toEqual([])
  })

  it('still lacks what the schema requires', async () => {
    expect((await send(stripe, FORM, '')).violations.map((v) => v.path)).toEqual(['body.name', 'body.scope'])
  })

  it('is no body for JSON', async () => {
    const json = bodyOf({ 'application/json': { schema: { type: 'object' } } })
    expect((await send(json, 'application/json', '')).violations).toEqual([
      { path: 'body', message: 'is required but the request has no body' },
    ])
  })
})

describe('form bodies with bracketed keys', () => {
  it('accepts the body that was refused: nested keys of a deepObject property', async () => {
    const outcome = await send(stripe, FORM, 'name=x&scope[type]=account&expand[0]=a&expand[1]=b')
    expect(outcome.violations).toEqual([])
    expect(outcome.value).toEqual({ name: 'x', scope: { type: 'account' }, expand: ['a', 'b'] })
  })

  it('decodes percent-encoded brackets and coerces nested values', async () => {
    const outcome = await send(stripe, FORM, 'name=x&scope%5Btype%5D=user&items%5B0%5D%5Bquantity%5D=3')
    expect(outcome.violations).toEqual([])
    expect(outcome.value).toEqual({ name: 'x', scope: { type: 'user' }, items: [{ quantity: 3 }] })
  })

  it('reports nested violations by their path', async () => {
    const outcome = await send(stripe, FORM, 'name=x&scope[user]=u&items[0][quantity]=many&other[x]=1')
    expect(outcome.violations).toEqual(
      expect.arrayContaining([
        { path: 'body.scope.type', message: 'is required' },
        { path: 'body.items[0].quantity', message: 'must be an integer' },
        { path: 'body["other[x]"]', message: 'is not declared by the schema' },
      ]),
    )
  })

  it('parses a field whose encoding is JSON, and names it when it is not JSON', async () => {
    expect((await send(stripe, FORM, 'name=x&scope[type]=user&settings={"retries":2}')).value).toMatchObject({
      settings: { retries: 2 },
    })
    const outcome = await send(stripe, FORM, 'name=x&scope[type]=user&settings=retries')
    expect(outcome.violations).toEqual([
      { path: 'body.settings', message: expect.stringMatching(/^is not valid JSON \(.+\)$/) },
    ])
  })

  it(`refuses a form of more than ${MAX_FORM_FIELDS} fields without reading it`, async () => {
    const outcome = await send(stripe, FORM, 'expand[]=a&'.repeat(MAX_FORM_FIELDS + 1))
    expect(outcome.violations).toEqual([{ path: 'body', message: `has more than ${MAX_FORM_FIELDS} fields` }])
  })

  // Not a timed test: 40,000 repeats took 11 s when each repeat copied the list; 99,000 would take
  // over a minute that way, far past the test's time limit, and take milliseconds now.
  it('parses and validates 99,000 repeats of one field', async () => {
    const text = 'name=x&scope[type]=user&' + 'expand=a&'.repeat(99_000)
    expect((await send(stripe, FORM, text)).violations).toEqual([])
  })
})

/** A zeno.fm-like multipart body with an object part. */
const zeno = bodyOf({
  'multipart/form-data': {
    encoding: { note: { contentType: 'application/json' } },
    schema: {
      type: 'object',
      required: ['podcast'],
      properties: {
        podcast: {
          type: 'object',
          required: ['title'],
          properties: { title: { type: 'string' }, explicit: { type: 'boolean' } },
        },
        episodes: { type: 'array', items: { type: 'object', properties: { title: { type: 'string' } } } },
        note: { type: 'string' },
        cover: { type: 'string', format: 'binary' },
        extra: {},
      },
    },
  },
})

/** A multipart body of the given parts: `[name, text, headers]`. */
function multipart(...parts: Array<[string, string, string?]>): string {
  const sections = parts.map(
    ([name, text, headers = '']) =>
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n${headers}\r\n${text}\r\n`,
  )
  return `${sections.join('')}--${BOUNDARY}--\r\n`
}

describe('multipart bodies with JSON parts', () => {
  it('parses an object part as JSON, its default content type', async () => {
    const outcome = await send(zeno, MULTIPART, multipart(['podcast', '{"title":"Ferns","explicit":true}']))
    expect(outcome.violations).toEqual([])
    expect(outcome.value).toEqual({ podcast: { title: 'Ferns', explicit: true } })
  })

  it('judges the parsed object by its schema', async () => {
    const outcome = await send(zeno, MULTIPART, multipart(['podcast', '{"explicit":"no"}']))
    expect(outcome.violations).toEqual(
      expect.arrayContaining([
        { path: 'body.podcast.title', message: 'is required' },
        { path: 'body.podcast.explicit', message: 'must be a boolean' },
      ]),
    )
  })

  it('names a part that is not JSON instead of failing', async () => {
    const outcome = await send(zeno, MULTIPART, multipart(['podcast', 'Ferns']))
    expect(outcome.violations).toEqual([{ path: 'body.podcast', message: expect.stringMatching(/^is not valid JSON/) }])
  })

  it('reads one part per item of an array of objects, and a lone item as a one-item array', async () => {
    const two = await send(
      zeno,
      MULTIPART,
      multipart(['podcast', '{"title":"a"}'], ['episodes', '{"title":"1"}'], ['episodes', '{"title":"2"}']),
    )
    expect(two.value).toMatchObject({ episodes: [{ title: '1' }, { title: '2' }] })
    const one = await send(zeno, MULTIPART, multipart(['podcast', '{"title":"a"}'], ['episodes', '{"title":"1"}']))
    expect(one.violations).toEqual([])
    expect(one.value).toMatchObject({ episodes: [{ title: '1' }] })
  })

  it('honours an encoding contentType of application/json', async () => {
    expect(
      (await send(zeno, MULTIPART, multipart(['podcast', '{"title":"a"}'], ['note', '"quiet"']))).value,
    ).toMatchObject({ note: 'quiet' })
    const bad = await send(zeno, MULTIPART, multipart(['podcast', '{"title":"a"}'], ['note', 'quiet']))
    expect(bad.violations).toEqual([{ path: 'body.note', message: expect.stringMatching(/^is not valid JSON/) }])
  })

  it('parses a part sent with its own application/json Content-Type, and names it when it is not JSON', async () => {
    const json = 'Content-Type: application/json\r\n'
    expect(
      (await send(zeno, MULTIPART, multipart(['podcast', '{"title":"a"}'], ['extra', '[1,2]', json]))).value,
    ).toMatchObject({ extra: [1, 2] })
    const bad = await send(zeno, MULTIPART, multipart(['podcast', '{"title":"a"}'], ['extra', '[1,', json]))
    expect(bad.violations).toEqual([{ path: 'body.extra', message: expect.stringMatching(/^is not valid JSON/) }])
  })

  it('keeps an uploaded .json file a binary string', async () => {
    const file = multipart(
      ['podcast', '{"title":"a"}'],
      ['cover', '{"not":"parsed"}', 'Content-Type: application/json\r\n'],
    )
    const outcome = await send(zeno, MULTIPART, file.replace('name="cover"', 'name="cover"; filename="c.json"'))
    expect(outcome.violations).toEqual([])
    expect(outcome.value).toMatchObject({ cover: '{"not":"parsed"}' })
  })
})
