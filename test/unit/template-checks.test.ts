/**
 * Placeholders that can never be filled stop start-up (#13 item 5): unknown syntax (filters, typos
 * of `request.body`), a path parameter the path lacks, a query parameter an operation that declares
 * its query does not declare, a body field a closed request schema forbids. When the description is
 * unsure (open schemas, no schema, no declared query parameters), the placeholder stands.
 */
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import type { StartupErrorCode } from '../../src/errors/index.js'
import { type TemplateRequest, compileTemplate } from '../../src/responses/templates.js'
import { describeOperations } from '../../src/openapi/operations.js'
import type { SpecDocument } from '../../src/openapi/load-spec.js'
import { expectStartupError, expectStartupErrorThrown } from '../support/startup-error.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

afterEach(removeTempDirs)

const WHERE = 'The fixture fixtures/addPlant/200.json'

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } })
const ok = { '200': { description: 'ok' } }

/** A small description: closed, open and combined request schemas, parameters of every kind. */
const document = {
  openapi: '3.1.0',
  info: { title: 'checks', version: '1' },
  paths: {
    '/plants': {
      post: { operationId: 'addPlant', requestBody: json({ $ref: '#/components/schemas/NewPlant' }), responses: ok },
      get: {
        operationId: 'listPlants',
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer' } },
          { name: 'color', in: 'query', schema: { type: 'string' } },
          {
            name: 'filter',
            in: 'query',
            style: 'deepObject',
            schema: { type: 'object', properties: { kind: { type: 'string' } } },
          },
          {
            name: 'range',
            in: 'query',
            schema: {
              type: 'object',
              additionalProperties: false,
              properties: { from: { type: 'integer' }, to: { type: 'integer' } },
            },
          },
        ],
        responses: ok,
      },
    },
    '/plants/{plantId}': {
      parameters: [{ name: 'plantId', in: 'path', required: true, schema: { type: 'integer' } }],
      get: { operationId: 'getPlant', responses: ok },
      put: { operationId: 'replacePlant', requestBody: json({ $ref: '#/components/schemas/Plant' }), responses: ok },
    },
    '/search': {
      get: { operationId: 'search', responses: ok },
      post: {
        operationId: 'searchOpen',
        requestBody: json({ type: 'object', properties: { q: { type: 'string' } } }),
        responses: ok,
      },
    },
    '/pets': {
      post: {
        operationId: 'addPet',
        requestBody: json({ oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }] }),
        responses: ok,
      },
    },
    '/notes': {
      post: { operationId: 'addNote', requestBody: { content: { 'text/plain': {} } }, responses: ok },
      put: { operationId: 'replaceNote', requestBody: json({ type: 'string' }), responses: ok },
    },
    '/unevaluated': {
      post: {
        operationId: 'addStrict',
        requestBody: json({
          allOf: [{ properties: { a: { type: 'string' } } }, { properties: { b: { type: 'string' } } }],
          unevaluatedProperties: false,
        }),
        responses: ok,
      },
    },
  },
  components: {
    schemas: {
      Plant: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string' },
          tag: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' } },
          owner: { $ref: '#/components/schemas/Owner' },
          pots: { type: 'array', items: { $ref: '#/components/schemas/Owner' } },
          extras: { type: 'object' },
        },
      },
      NewPlant: {
        allOf: [{ $ref: '#/components/schemas/Plant' }, { required: ['id'], properties: { id: { type: 'integer' } } }],
      },
      Owner: {
        type: 'object',
        additionalProperties: false,
        properties: { name: { type: 'string' }, email: { type: 'string' } },
      },
      Cat: { type: 'object', additionalProperties: false, properties: { purrs: { type: 'boolean' } } },
      Dog: { type: 'object', additionalProperties: false, properties: { barks: { type: 'boolean' } } },
    },
  },
}

const operations = describeOperations({ path: 'checks.yaml', version: '3.1', document } as unknown as SpecDocument)

function operation(id: string) {
  const found = operations.find((o) => o.id === id)
  if (!found) throw new Error(`no operation ${id}`)
  return found
}

/** Compiles `{ value: placeholder }` as a fixture of the operation. */
function compileFor(id: string, placeholder: string) {
  return compileTemplate({ value: placeholder }, WHERE, { document, operation: operation(id) })
}

/** The message a placeholder stops start-up with, having asserted its code. */
function messageFor(id: string, placeholder: string, code: StartupErrorCode): string {
  return expectStartupErrorThrown(() => compileFor(id, placeholder), code, `${placeholder} for ${id}`).message
}

describe('template syntax the mock does not have stops start-up, naming the placeholder as written', () => {
  it('refuses a filter: {{request.body.name | upper}}', () => {
    const message = messageFor('addPlant', '{{request.body.name | upper}}', 'template_bad_expression')
    expect(message).toContain(WHERE)
    expect(message).toContain('"{{request.body.name | upper}}"')
    expect(message).toContain('filters such as "| upper" are not supported')
  })

  it('refuses a filter even without an operation to check against', () => {
    const error = expectStartupErrorThrown(
      () => compileTemplate({ value: '{{request.body.name|upper}}' }, WHERE),
      'template_bad_expression',
    )
    expect(error.message).toContain('filters such as "| upper"')
  })

  it('refuses a filter inside a longer string', () => {
    expect(messageFor('addPlant', 'Hello {{ request.body.name | upper }}!', 'template_bad_expression')).toContain(
      '"{{ request.body.name | upper }}"',
    )
  })

  it('refuses a helper written before the path: {{upper request.body.name}}', () => {
    expect(messageFor('addPlant', '{{upper request.body.name}}', 'template_bad_expression')).toContain(
      '"{{upper request.body.name}}"',
    )
  })

  it('leaves a field name with spaces or quotes to the request schema', () => {
    expect(messageFor('addPlant', "{{request.body.constructor('x')}}", 'template_never_matches')).toContain(
      "request.body has no field constructor('x')",
    )
    expect(compileFor('searchOpen', '{{request.body.first name}}')).toBeDefined()
  })

  it('refuses a misspelt source and suggests the right one: {{ request.bodyy.name }}', () => {
    const message = messageFor('addPlant', '{{ request.bodyy.name }}', 'template_bad_expression')
    expect(message).toContain('"{{ request.bodyy.name }}"')
    expect(message).toContain('did you mean {{request.body.name}}?')
  })

  it('suggests request.params for request.param', () => {
    expect(messageFor('getPlant', '{{request.param.plantId}}', 'template_bad_expression')).toContain(
      'did you mean {{request.params.plantId}}?',
    )
  })

  it('suggests the request. root where it is missing or misspelt', () => {
    expect(messageFor('addPlant', '{{body.name}}', 'template_bad_expression')).toContain(
      'did you mean {{request.body.name}}?',
    )
    expect(messageFor('addPlant', '{{reqest.body.name}}', 'template_bad_expression')).toContain(
      'did you mean {{request.body.name}}?',
    )
  })

  it('refuses brackets that are not an array index', () => {
    expect(messageFor('addPlant', '{{request.body.tags[first]}}', 'template_bad_expression')).toContain(
      '"{{request.body.tags[first]}}"',
    )
  })
})

describe('request.params: the parameters of the path', () => {
  it('accepts a parameter of the path (declared on the path item)', () => {
    expect(compileFor('getPlant', '{{request.params.plantId}}')).toBeDefined()
  })

  it('refuses one the path does not have, listing those it has and the closest', () => {
    const message = messageFor('getPlant', '{{request.params.plantid}}', 'template_never_matches')
    expect(message).toContain(`${WHERE}: "{{request.params.plantid}}"`)
    expect(message).toMatch(
      /request\.params has no plantid: the path \/plants\/\{plantId\} of getPlant has plantId; did you mean plantId\?$/,
    )
  })

  it('refuses any parameter of a path without parameters', () => {
    expect(messageFor('addPlant', '{{request.params.id}}', 'template_never_matches')).toContain(
      'the path /plants of addPlant has no parameters.',
    )
  })
})

describe('request.query: checked where the operation declares its query', () => {
  it('accepts a declared query parameter', () => {
    expect(compileFor('listPlants', '{{request.query.limit}}')).toBeDefined()
  })

  it('refuses an undeclared one, listing the declared ones', () => {
    const message = messageFor('listPlants', '{{request.query.q}}', 'template_never_matches')
    expect(message).toContain(
      'request.query has no q: listPlants declares the query parameters limit, color, filter and range.',
    )
  })

  it('suggests the closest declared name', () => {
    expect(messageFor('listPlants', '{{request.query.colour}}', 'template_never_matches')).toContain(
      'did you mean color?',
    )
  })

  it('accepts the keys an object parameter is sent as: deepObject name[key], exploded form properties', () => {
    expect(compileFor('listPlants', '{{request.query.filter[kind]}}')).toBeDefined()
    expect(compileFor('listPlants', '{{request.query.from}}')).toBeDefined()
  })

  it('accepts any name where the operation declares no query parameter: its query is not described', () => {
    expect(compileFor('search', '{{request.query.q}}')).toBeDefined()
  })
})

describe('request.headers: never checked, clients send many undeclared headers', () => {
  it('accepts any header', () => {
    expect(compileFor('listPlants', '{{request.headers.x-trace-id}}')).toBeDefined()
  })
})

describe('request.body: follows the request schema', () => {
  it('accepts a declared field, through $ref and allOf (a field of any allOf part counts)', () => {
    expect(compileFor('addPlant', '{{request.body.name}}')).toBeDefined()
    expect(compileFor('addPlant', '{{request.body.id}}')).toBeDefined()
  })

  it('refuses a field a closed schema forbids, listing the declared fields', () => {
    const message = messageFor('addPlant', '{{request.body.extra}}', 'template_never_matches')
    expect(message).toContain(`${WHERE}: "{{request.body.extra}}"`)
    expect(message).toMatch(
      /request\.body has no field extra: the request schema of addPlant declares name, tag, tags, owner, pots, extras and id and forbids others; did you mean extras\?$/,
    )
  })

  it('suggests the closest declared field', () => {
    expect(messageFor('addPlant', '{{request.body.nmae}}', 'template_never_matches')).toMatch(
      /request\.body has no field nmae: .*; did you mean name\?$/,
    )
  })

  it('accepts a nested declared field, and refuses a nested undeclared one', () => {
    expect(compileFor('addPlant', '{{request.body.owner.name}}')).toBeDefined()
    const message = messageFor('addPlant', '{{request.body.owner.nmae}}', 'template_never_matches')
    expect(message).toContain(
      'request.body.owner has no field nmae: its schema in the request of addPlant declares name and email and forbids others; did you mean name?',
    )
  })

  it('accepts array items by index, written .0 or [0], and their fields', () => {
    expect(compileFor('addPlant', '{{request.body.tags.0}}')).toBeDefined()
    expect(compileFor('addPlant', '{{request.body.tags[1]}}')).toBeDefined()
    expect(compileFor('addPlant', '{{request.body.pots[0].email}}')).toBeDefined()
    expect(messageFor('addPlant', '{{request.body.pots.0.size}}', 'template_never_matches')).toContain(
      'request.body.pots.0 has no field size',
    )
  })

  it('refuses a field of an array', () => {
    expect(messageFor('addPlant', '{{request.body.tags.first}}', 'template_never_matches')).toContain(
      'request.body.tags is an array in its schema in the request of addPlant: it has items, not fields (read one as request.body.tags.0).',
    )
  })

  it('refuses a field of a string', () => {
    expect(messageFor('addPlant', '{{request.body.name.first}}', 'template_never_matches')).toContain(
      'request.body.name is a string in its schema in the request of addPlant: it has no fields.',
    )
  })

  it('accepts anything under an open object', () => {
    expect(compileFor('addPlant', '{{request.body.extras.any.depth}}')).toBeDefined()
    expect(compileFor('searchOpen', '{{request.body.anything}}')).toBeDefined()
  })

  it('accepts the whole body', () => {
    expect(compileFor('addPlant', '{{request.body}}')).toBeDefined()
  })

  it('accepts a field of any oneOf branch, and refuses one no closed branch declares', () => {
    expect(compileFor('addPet', '{{request.body.purrs}}')).toBeDefined()
    expect(compileFor('addPet', '{{request.body.barks}}')).toBeDefined()
    expect(messageFor('addPet', '{{request.body.meows}}', 'template_never_matches')).toContain(
      'request.body has no field meows: the request schema of addPet declares purrs and barks and forbids others.',
    )
  })

  it('reads unevaluatedProperties: false as closed, counting the fields of the allOf parts', () => {
    expect(compileFor('addStrict', '{{request.body.b}}')).toBeDefined()
    expect(messageFor('addStrict', '{{request.body.other}}', 'template_never_matches')).toContain(
      'request.body has no field other: the request schema of addStrict declares a and b and forbids others.',
    )
  })

  it('accepts anything for a body without a schema', () => {
    expect(compileFor('addNote', '{{request.body.anything}}')).toBeDefined()
  })

  it('refuses a field of a string body', () => {
    expect(messageFor('replaceNote', '{{request.body.text}}', 'template_never_matches')).toContain(
      'request.body is a string in the request schema of replaceNote: it has no fields.',
    )
  })

  it('refuses request.body where the operation declares no request body', () => {
    expect(messageFor('getPlant', '{{request.body.name}}', 'template_never_matches')).toContain(
      'getPlant declares no request body, so request.body is never set.',
    )
    expect(messageFor('getPlant', '{{request.body}}', 'template_never_matches')).toContain(
      'getPlant declares no request body',
    )
  })

  it('still renders what it accepted', () => {
    const template = compileTemplate(
      { name: '{{request.body.owner.name}}', tag: 'plant {{request.params.plantId}}' },
      WHERE,
      { document, operation: operation('replacePlant') },
    )
    const request: TemplateRequest = {
      method: 'PUT',
      path: '/plants/3',
      params: { plantId: '3' },
      query: new URLSearchParams(),
      header: () => undefined,
      body: { name: 'x', owner: { name: 'Ann' } },
    }
    expect(template?.render(request)).toEqual({ name: 'Ann', tag: 'plant 3' })
  })
})

describe('through createApp: the fixture file and the placeholder are named', () => {
  const closedSpec = [
    'openapi: 3.1.0',
    'info: {title: closed, version: "1"}',
    'paths:',
    '  /plants:',
    '    post:',
    '      operationId: addPlant',
    '      requestBody:',
    '        content:',
    '          application/json:',
    '            schema:',
    '              type: object',
    '              additionalProperties: false',
    '              properties: {name: {type: string}, tag: {type: string}}',
    '      responses:',
    '        "200":',
    '          description: ok',
    '          content:',
    '            application/json:',
    '              schema: {type: object, properties: {name: {type: string}}}',
    '',
  ].join('\n')

  it('stops start-up on a field the closed request schema forbids', async () => {
    const dir = await tempDir('mock-template-checks-', {
      'openapi.yaml': closedSpec,
      'fixtures/addPlant/200.json': { name: '{{request.body.extra}}' },
    })
    const error = await expectStartupError(
      createApp({ spec: join(dir, 'openapi.yaml'), fixtures: join(dir, 'fixtures') }),
      'template_never_matches',
    )
    expect(error.message).toContain(join(dir, 'fixtures', 'addPlant', '200.json'))
    expect(error.message).toContain('"{{request.body.extra}}"')
    expect(error.message).toContain(
      'request.body has no field extra: the request schema of addPlant declares name and tag and forbids others.',
    )
  })

  it('starts with a declared field, and echoes it', async () => {
    const dir = await tempDir('mock-template-checks-', {
      'openapi.yaml': closedSpec,
      'fixtures/addPlant/200.json': { name: '{{request.body.name}}' },
    })
    const app = await createApp({ spec: join(dir, 'openapi.yaml'), fixtures: join(dir, 'fixtures') })
    const res = await app.request('/plants', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"Fern"}',
    })
    expect(await res.json()).toEqual({ name: 'Fern' })
  })

  it('judges a request schema whose branches recurse into it once, not once per path through it', async () => {
    // Two branches that each lead back to the schema: followed per path, 2^32 visits (start-up hung).
    const spec = [
      'openapi: 3.1.0',
      'info: {title: recursive, version: "1"}',
      'components:',
      '  schemas:',
      '    Tree:',
      '      type: object',
      '      additionalProperties: false',
      '      properties: {name: {type: string}, left: {$ref: "#/components/schemas/Tree"}}',
      '      oneOf: [{$ref: "#/components/schemas/Tree"}, {allOf: [{$ref: "#/components/schemas/Tree"}]}]',
      'paths:',
      '  /plants:',
      '    post:',
      '      operationId: addPlant',
      '      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/Tree"}}}}',
      '      responses:',
      '        "200": {description: ok, content: {application/json: {schema: {type: object}}}}',
      '',
    ].join('\n')
    const dir = await tempDir('mock-template-checks-', {
      'openapi.yaml': spec,
      'fixtures/addPlant/200.json': { name: '{{request.body.left.name}}', other: '{{request.body.nope}}' },
    })
    const error = await expectStartupError(
      createApp({ spec: join(dir, 'openapi.yaml'), fixtures: join(dir, 'fixtures') }),
      'template_never_matches',
    )
    expect(error.message).toContain('"{{request.body.nope}}"')
  })

  it('reads a writeOnly field of the request: a client sends it, only responses leave it out', async () => {
    const spec = closedSpec.replace(
      'tag: {type: string}}',
      'tag: {type: string}, secret: {type: string, writeOnly: true}}',
    )
    const dir = await tempDir('mock-template-checks-', {
      'openapi.yaml': spec,
      'fixtures/addPlant/200.json': { name: '{{request.body.secret}}' },
    })
    const app = await createApp({ spec: join(dir, 'openapi.yaml'), fixtures: join(dir, 'fixtures') })
    const res = await app.request('/plants', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"secret":"s3"}',
    })
    expect(await res.json()).toEqual({ name: 's3' })
  })
})
