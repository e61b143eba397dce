import { execFileSync } from 'node:child_process'
import { symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'
import { type SpecDocument, loadSpec } from '../../src/openapi/load-spec.js'
import { describeOperations } from '../../src/openapi/operations.js'
import { compileAt } from '../../src/validation/create-ajv.js'
import { ajvFor } from '../support/builders.js'
import { expectStartupError, expectStartupErrorThrown } from '../support/startup-error.js'
import { nodePlatform } from '../../src/node/node-platform.js'

const { files, swagger2 } = nodePlatform

const specFile = (name: string) => fileURLToPath(new URL(`../descriptions/${name}`, import.meta.url))
const plantStore = fileURLToPath(new URL('../../openapi.yaml', import.meta.url))

/** A description held in memory, for describeOperations cases too small for a file. */
function inMemory(document: Record<string, any>): SpecDocument {
  return {
    path: '/virtual/spec.yaml',
    version: '3.1',
    document: { openapi: '3.1.0', info: { title: 'T', version: '1' }, ...document },
  }
}

describe('loadSpec', () => {
  describe('reading', () => {
    it('loads a YAML description', async () => {
      const spec = await loadSpec(specFile('library.yaml'), { files })
      expect(spec.path).toBe(specFile('library.yaml'))
      expect(spec.document.info.title).toBe('Library')
      expect(Object.keys(spec.document.paths)).toEqual(['/books', '/books/{bookId}'])
    })

    it('loads a JSON description', async () => {
      const spec = await loadSpec(specFile('minimal.json'), { files })
      expect(spec.document.info.title).toBe('Minimal JSON')
      expect(spec.document.paths['/ping'].get.operationId).toBe('ping')
    })

    it('detects OpenAPI 3.0 from openapi: 3.0.3', async () => {
      expect((await loadSpec(specFile('library.yaml'), { files })).version).toBe('3.0')
    })

    it('detects OpenAPI 3.1 from openapi: 3.1.0', async () => {
      expect((await loadSpec(plantStore, { files })).version).toBe('3.1')
    })
  })

  describe('bundling', () => {
    it('bundles a $ref to another local file into the document', async () => {
      const { document } = await loadSpec(specFile('external-ref.yaml'), { files })
      const requestSchema = document.paths['/gadgets'].post.requestBody.content['application/json'].schema
      expect(requestSchema).toEqual({
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, weight: { type: 'integer', minimum: 1 } },
      })
    })

    it('leaves no $ref to another file after bundling', async () => {
      const { document } = await loadSpec(specFile('external-ref.yaml'), { files })
      const refs = JSON.stringify(document).match(/"\$ref":"[^"]*"/g) ?? []
      expect(refs.length).toBeGreaterThan(0)
      expect(refs.every((ref) => ref.startsWith('"$ref":"#'))).toBe(true)
    })
  })

  describe('Swagger 2.0 (#7)', () => {
    const petstore = specFile('swagger2-petstore.yaml')

    it('converts a Swagger 2.0 description to OpenAPI 3.0', async () => {
      const spec = await loadSpec(petstore, { files, swagger2 })
      expect(spec.version).toBe('3.0')
      expect(spec.document.openapi).toMatch(/^3\.0\./)
      expect(spec.document.swagger).toBeUndefined()
    })

    it('turns a Swagger body parameter into a requestBody with the declared media type', async () => {
      const { document } = await loadSpec(petstore, { files, swagger2 })
      expect(document.paths['/pets'].post.requestBody).toEqual({
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } },
      })
    })

    it('moves Swagger definitions and security definitions under components', async () => {
      const { document } = await loadSpec(petstore, { files, swagger2 })
      expect(Object.keys(document.components.schemas)).toContain('NewPet')
      expect(document.components.securitySchemes.api_key).toEqual({ type: 'apiKey', name: 'api_key', in: 'header' })
    })

    it('bundles a definition from another local file, leaving no $ref to another file', async () => {
      const { document } = await loadSpec(petstore, { files, swagger2 })
      const refs = JSON.stringify(document).match(/"\$ref":"[^"]*"/g) ?? []
      expect(refs.length).toBeGreaterThan(0)
      expect(refs.every((ref) => ref.startsWith('"$ref":"#/components/'))).toBe(true)
    })

    it('gives a pipes collectionFormat the pipeDelimited style', async () => {
      const { document } = await loadSpec(petstore, { files, swagger2 })
      expect(document.paths['/pets'].get.parameters[0]).toMatchObject({
        name: 'tags',
        in: 'query',
        style: 'pipeDelimited',
      })
    })

    it('reads x-nullable as a type that admits null', async () => {
      const { document } = await loadSpec(petstore, { files, swagger2 })
      expect(document.components.schemas.NewPet.properties.tag.type).toEqual(['string', 'null'])
    })
  })

  describe('OpenAPI 3.1 as JSON Schema 2020-12 (#7)', () => {
    async function validateTagged() {
      const { document } = await loadSpec(specFile('unevaluated-properties-31.yaml'), { files })
      return compileAt(ajvFor(document), '/components/schemas/Tagged')
    }

    it('accepts the properties that allOf parts evaluate under unevaluatedProperties: false', async () => {
      expect((await validateTagged())({ name: 'Fern', tag: 'indoor' })).toBe(true)
    })

    it('refuses a property that no part evaluates under unevaluatedProperties: false', async () => {
      const validate = await validateTagged()
      expect(validate({ name: 'Fern', colour: 'green' })).toBe(false)
      expect(validate.errors?.map((e) => [e.keyword, e.params])).toEqual([
        ['unevaluatedProperties', { unevaluatedProperty: 'colour' }],
      ])
    })
  })

  describe('OpenAPI 3.0 normalisation', () => {
    it('rewrites nullable: true to a type that admits null', async () => {
      const { document } = await loadSpec(specFile('library.yaml'), { files })
      expect(document.components.schemas.Book.properties.subtitle.type).toEqual(['string', 'null'])
    })

    it('leaves a field without nullable as a single type', async () => {
      const { document } = await loadSpec(specFile('library.yaml'), { files })
      expect(document.components.schemas.Book.properties.title.type).toBe('string')
    })

    it('rewrites exclusiveMinimum: true with minimum into a numeric exclusiveMinimum', async () => {
      const { document } = await loadSpec(specFile('library.yaml'), { files })
      const rating = document.components.schemas.Book.properties.rating
      expect(rating.exclusiveMinimum).toBe(0)
      expect(rating).not.toHaveProperty('minimum')
      expect(rating.maximum).toBe(5)
    })

    it('rewrites the exclusiveMinimum of a parameter schema too', async () => {
      const { document } = await loadSpec(specFile('library.yaml'), { files })
      const schema = document.components.parameters.BookId.schema
      expect(schema.exclusiveMinimum).toBe(0)
      expect(schema).not.toHaveProperty('minimum')
    })

    it('leaves examples as written, even where they hold a nullable field', async () => {
      const { document } = await loadSpec(specFile('library.yaml'), { files })
      const example = document.paths['/books'].get.responses['200'].content['application/json'].example
      expect(example[0]).toEqual({ id: 7, title: 'The Left Hand of Darkness', subtitle: null, rating: 4.5 })
    })

    it('does not rewrite a 3.1 description', async () => {
      const { document } = await loadSpec(plantStore, { files })
      expect(document.components.schemas.Plant.properties.name.type).toBe('string')
    })
  })

  describe('broken descriptions', () => {
    it('names the file and the YAML problem of a description that does not parse', async () => {
      const error = await expectStartupError(loadSpec(specFile('invalid-yaml.yaml'), { files }), 'description_not_yaml')
      expect(error.message).toContain(specFile('invalid-yaml.yaml'))
      expect(error.message).toMatch(/line \d+/)
    })

    it('names the file and the converter problem of a Swagger 2.0 description that cannot be converted (#7)', async () => {
      const error = await expectStartupError(
        loadSpec(specFile('swagger-2.yaml'), { files, swagger2 }),
        'description_swagger_conversion',
      )
      expect(error.message).toContain(specFile('swagger-2.yaml'))
      expect(error.message).toContain('info must be an object')
    })

    it('refuses Swagger 2.0 on a platform with no converter (a browser), saying what to do (#33)', async () => {
      const error = await expectStartupError(
        loadSpec(specFile('swagger2-petstore.yaml'), { files }),
        'description_swagger_conversion',
      )
      expect(error.message).toContain('npx swagger2openapi')
    })

    it('refuses a Swagger version other than 2.0, naming it (#7)', async () => {
      const error = await expectStartupError(
        loadSpec(specFile('swagger-1.2.yaml'), { files }),
        'description_unsupported_swagger',
      )
      expect(error.message).toContain(specFile('swagger-1.2.yaml'))
      expect(error.message).toContain('"1.2"')
    })

    it('refuses a Swagger 2.0 $ref that would need a download (#7)', async () => {
      const error = await expectStartupError(
        loadSpec(specFile('swagger2-remote-ref.yaml'), { files }),
        'description_unresolved_ref',
      )
      expect(error.message).toContain(specFile('swagger2-remote-ref.yaml'))
      expect(error.message).toContain('https://example.com/definitions.yaml')
    })

    it('names the file of a description without an openapi version', async () => {
      const error = await expectStartupError(
        loadSpec(specFile('missing-version.yaml'), { files }),
        'description_unsupported_version',
      )
      expect(error.message).toContain(specFile('missing-version.yaml'))
    })

    it('names the file and the pointer of a $ref that points at nothing', async () => {
      const error = await expectStartupError(
        loadSpec(specFile('dangling-ref.yaml'), { files }),
        'description_unresolved_ref',
      )
      expect(error.message).toContain(specFile('dangling-ref.yaml'))
      expect(error.message).toContain('#/components/schemas/Missing')
    })

    it('names a file that does not exist', async () => {
      const error = await expectStartupError(
        loadSpec(specFile('no-such-description.yaml'), { files }),
        'description_unreadable',
      )
      expect(error.message).toContain(specFile('no-such-description.yaml'))
      expect(error.message).toContain('does not exist')
    })

    it('names the file of a description whose top level is not an object', async () => {
      const error = await expectStartupError(
        loadSpec(specFile('not-an-object.yaml'), { files }),
        'description_not_object',
      )
      expect(error.message).toContain(specFile('not-an-object.yaml'))
    })
  })
})

describe('describeOperations', () => {
  it('lists every operation of library.yaml in declaration order', async () => {
    const operations = describeOperations(await loadSpec(specFile('library.yaml'), { files }))
    expect(operations.map((o) => `${o.method} ${o.path} ${o.id}`)).toEqual([
      'GET /books listBooks',
      'POST /books createBook',
      'GET /books/{bookId} getBook',
      'DELETE /books/{bookId} DELETE /books/{bookId}',
    ])
  })

  it('names an operation without operationId by method and path, with a folder-safe fixture key', async () => {
    const operations = describeOperations(await loadSpec(specFile('library.yaml'), { files }))
    const remove = operations.find((o) => o.method === 'DELETE')!
    expect(remove.fixtureKey).toBe('delete_books_{bookId}')
  })

  it('gives a path-level parameter, followed through its $ref, to each operation of the path', async () => {
    const operations = describeOperations(await loadSpec(specFile('library.yaml'), { files }))
    for (const operation of operations.filter((o) => o.path === '/books/{bookId}')) {
      expect(operation.parameters).toEqual([
        {
          name: 'bookId',
          in: 'path',
          required: true,
          schemaPointer: '/components/parameters/BookId/schema',
          style: 'simple',
          explode: false,
          shape: 'primitive',
          properties: [],
          openObject: false,
          allowEmptyValue: false,
          allowReserved: false,
        },
      ])
    }
  })

  it('describes optional query parameters as not required', async () => {
    const [list] = describeOperations(await loadSpec(specFile('library.yaml'), { files }))
    expect(list!.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['limit', 'query', false],
      ['tags', 'query', false],
    ])
  })

  it('takes security: [] of an operation over the global requirement', async () => {
    const [list, create] = describeOperations(await loadSpec(specFile('library.yaml'), { files }))
    expect(list!.security).toEqual([])
    expect(create!.security).toEqual([{ libraryKey: [] }])
  })

  it('collects the media-type example under the name default', async () => {
    const [list] = describeOperations(await loadSpec(specFile('library.yaml'), { files }))
    const ok = list!.responses.find((r) => r.code === '200')!
    expect(ok.content[0]!.examples.map((e) => e.name)).toEqual(['default'])
  })

  it('describes a response without content as having none', async () => {
    const operations = describeOperations(await loadSpec(specFile('library.yaml'), { files }))
    const remove = operations.find((o) => o.method === 'DELETE')!
    expect(remove.responses.find((r) => r.code === '204')!.content).toEqual([])
  })

  it('lets an operation parameter override a path-level one with the same name and location', () => {
    const spec = inMemory({
      paths: {
        '/a/{id}': {
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          get: {
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
            responses: { '204': { description: 'ok' } },
          },
        },
      },
    })
    const [operation] = describeOperations(spec)
    expect(operation!.parameters).toHaveLength(1)
    expect(operation!.parameters[0]!.schemaPointer).toBe('/paths/~1a~1{id}/get/parameters/0/schema')
  })

  it('refuses a response code that is neither a status, a range nor default', () => {
    const spec = inMemory({ paths: { '/a': { get: { responses: { '2xx': { description: 'lower case' } } } } } })
    const error = expectStartupErrorThrown(() => describeOperations(spec), 'description_bad_response_code')
    expect(error.message).toContain('"2xx"')
  })

  it('ignores a query parameter without a name, which no request could send, and refuses a path parameter without one (#11)', () => {
    const query = inMemory({
      paths: {
        '/a': {
          get: {
            parameters: [{ in: 'query' }, { in: 'query', name: '' }],
            responses: { '204': { description: 'ok' } },
          },
        },
      },
    })
    expect(describeOperations(query)[0]!.parameters).toEqual([])
    const path = inMemory({
      paths: { '/a/{x}': { get: { parameters: [{ in: 'path' }], responses: { '204': { description: 'ok' } } } } },
    })
    const error = expectStartupErrorThrown(() => describeOperations(path), 'description_bad_parameter')
    expect(error.message).toContain('/paths/~1a~1{x}/get/parameters/0')
    expect(error.message).toContain('"name"')
  })

  it('gives a query parameter without style the form style, exploded (#7)', () => {
    const spec = inMemory({
      paths: { '/a': { get: { parameters: [{ name: 'q', in: 'query', schema: { type: 'array' } }], responses: {} } } },
    })
    expect(describeOperations(spec)[0]!.parameters[0]).toMatchObject({ style: 'form', explode: true, shape: 'array' })
  })

  it('describes a parameter whose $ref schema combines object parts as an object with every declared property (#7)', () => {
    const spec = inMemory({
      paths: {
        '/a': {
          get: { parameters: [{ name: 'q', in: 'query', schema: { $ref: '#/components/schemas/Q' } }], responses: {} },
        },
      },
      components: {
        schemas: { Q: { allOf: [{ properties: { a: {} } }, { properties: { b: {} }, additionalProperties: false }] } },
      },
    })
    expect(describeOperations(spec)[0]!.parameters[0]).toMatchObject({
      shape: 'object',
      properties: ['a', 'b'],
      openObject: false,
    })
  })

  it('refuses a style that the parameter location does not have (#7)', () => {
    const spec = inMemory({
      paths: { '/a': { get: { parameters: [{ name: 'q', in: 'query', style: 'matrix' }], responses: {} } } },
    })
    const error = expectStartupErrorThrown(() => describeOperations(spec), 'description_bad_parameter_style')
    expect(error.message).toContain('"matrix"')
    expect(error.message).toContain('(form, spaceDelimited, pipeDelimited, deepObject)')
  })

  it('refuses a path that does not start with a slash', () => {
    const spec = inMemory({ paths: { books: { get: { responses: { '204': { description: 'ok' } } } } } })
    const error = expectStartupErrorThrown(() => describeOperations(spec), 'description_bad_path')
    expect(error.message).toContain('"books"')
  })
})

describe('what a description may read (#12)', () => {
  const api = (ref: string) => ({
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: {
      '/x': {
        get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } } } },
      },
    },
  })
  afterEach(removeTempDirs)

  it('refuses a $ref to a file outside its folder tree, naming the file and the option', async () => {
    const dir = await tempDir('refs-', {
      'api/api.json': api('/etc/passwd'),
      'outside.json': { X: { type: 'string' } },
    })
    const error = await expectStartupError(loadSpec(join(dir, 'api/api.json'), { files }), 'description_unresolved_ref')
    expect(error.message).toContain("/etc/passwd lies outside the description's folder")
    expect(error.message).toContain('--allow-ref-outside')
  })

  it('reads a file outside its folder tree only from a folder given with allowRefOutside', async () => {
    const dir = await tempDir('refs-', {
      'api/api.json': api('../outside.json#/X'),
      'outside.json': { X: { type: 'string' } },
    })
    const error = await expectStartupError(loadSpec(join(dir, 'api/api.json'), { files }), 'description_unresolved_ref')
    expect(error.message).toContain('outside.json lies outside')
    const { document } = await loadSpec(join(dir, 'api/api.json'), { files, allowRefOutside: [dir] })
    expect(JSON.stringify(document)).toContain('"string"')
  })

  it('refuses a symbolic link inside its folder that points outside it', async () => {
    const dir = await tempDir('refs-', {
      'api/api.json': api('./link.json#/X'),
      'outside.json': { X: { type: 'string' } },
    })
    await symlink(join(dir, 'outside.json'), join(dir, 'api/link.json'))
    const error = await expectStartupError(loadSpec(join(dir, 'api/api.json'), { files }), 'description_unresolved_ref')
    expect(error.message).toContain('link.json lies outside')
  })

  it('names in one warning what an OpenAPI 3.2 description adds and the mock does not act on, examples aside (#31 §1)', async () => {
    const dir = await tempDir('oas32-', {
      'api.json': {
        openapi: '3.2.0',
        info: { title: 't', version: '1' },
        paths: {},
        components: {
          schemas: {
            Pet: {
              type: 'object',
              xml: { nodeType: 'element' },
              discriminator: { propertyName: 'kind', defaultMapping: '#/components/schemas/Pet' },
              // Data, not a media type: no warning for it.
              example: { prefixEncoding: [] },
            },
          },
          securitySchemes: {
            oauth: { type: 'oauth2', oauth2MetadataUrl: 'https://example.com/.well-known', flows: {} },
          },
        },
      },
    })
    const { warnings } = await loadSpec(join(dir, 'api.json'), { files })
    const named = warnings!.filter((line) => line.includes('OpenAPI 3.2'))
    expect(named).toHaveLength(1)
    for (const feature of ['xml "nodeType"', 'discriminator "defaultMapping"', '"oauth2MetadataUrl"'])
      expect(named[0]).toContain(feature)
    expect(named[0]).not.toContain('prefixEncoding')
  })

  describe("OpenAPI 3.2's $self, the base of references (#31 §1)", () => {
    const selfApi = (self: string, ref: string) => ({ ...api(ref), openapi: '3.2.0', $self: self })

    it('reads a URL below $self as the file below the description, an absolute path too', async () => {
      const self = 'https://example.com/apis/api.json'
      const dir = await tempDir('refs-', {
        'api/api.json': selfApi(self, 'https://example.com/apis/shared/x.json#/X'),
        'api/path.json': selfApi(self, '/apis/shared/x.json#/X'),
        'api/shared/x.json': { X: { type: 'string', maxLength: 3 } },
      })
      for (const name of ['api.json', 'path.json']) {
        const { document } = await loadSpec(join(dir, 'api', name), { files })
        expect(JSON.stringify(document)).toContain('"maxLength":3')
      }
    })

    it("still refuses a URL outside $self's folder, or one that climbs out of it, as remote", async () => {
      const dir = await tempDir('refs-', {
        'api/api.json': selfApi('https://example.com/apis/api.json', 'https://example.com/other/x.json#/X'),
        'api/climb.json': selfApi('https://example.com/apis/api.json', 'https://example.com/apis/../x.json#/X'),
        'api/host.json': selfApi('https://example.com/apis/api.json', 'https://example.org/apis/x.json#/X'),
        'x.json': { X: { type: 'string' } },
      })
      for (const [name, url] of [
        ['api.json', 'https://example.com/other/x.json'],
        ['climb.json', 'https://example.com/x.json'],
        ['host.json', 'https://example.org/apis/x.json'],
      ]) {
        const error = await expectStartupError(
          loadSpec(join(dir, 'api', name!), { files }),
          'description_unresolved_ref',
        )
        expect(error.message).toContain(`${url} is not a local file; remote $refs are not followed`)
      }
    })

    it('leaves references as written under a $self that is no base (a URN)', async () => {
      const dir = await tempDir('refs-', {
        'api.json': selfApi('urn:example:api', 'urn:example:api#/components/schemas/X'),
      })
      await expectStartupError(loadSpec(join(dir, 'api.json'), { files }), 'description_unresolved_ref')
    })
  })

  it('refuses a $ref to a device or a FIFO, and a description that is one, at once', async () => {
    const dir = await tempDir('refs-', { 'api.json': api('/dev/zero') })
    const ref = await expectStartupError(
      loadSpec(join(dir, 'api.json'), { files, allowRefOutside: ['/dev'] }),
      'description_unresolved_ref',
    )
    expect(ref.message).toContain('/dev/zero is not a regular file')
    const device = await expectStartupError(loadSpec('/dev/zero', { files }), 'description_unreadable')
    expect(device.message).toContain('/dev/zero is not a regular file')
    execFileSync('mkfifo', [join(dir, 'fifo.json')])
    const fifo = await expectStartupError(loadSpec(join(dir, 'fifo.json'), { files }), 'description_unreadable')
    expect(fifo.message).toContain('fifo.json is not a regular file')
  })
})

describe('descriptions no walk could survive (#12)', () => {
  afterEach(removeTempDirs)

  it('refuses a YAML anchor used inside its own value with one paragraph, not a stack overflow', async () => {
    const dir = await tempDir('shape-', {
      'anchor.yaml': 'openapi: 3.0.3\ninfo: &a {title: t, version: "1", x: *a}\npaths: {}\n',
    })
    const error = await expectStartupError(loadSpec(join(dir, 'anchor.yaml'), { files }), 'description_self_containing')
    expect(error.message).toContain('#/info/x')
  })

  it('refuses a description nested 20,000 levels deep, naming where', async () => {
    let schema = '{"type":"object"}'
    for (let i = 0; i < 20_000; i++) schema = `{"type":"object","properties":{"a":${schema}}}`
    const text = `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":{"Deep":${schema}}}}`
    const dir = await tempDir('shape-', { 'deep.json': text })
    const error = await expectStartupError(loadSpec(join(dir, 'deep.json'), { files }), 'description_too_deep')
    expect(error.message).toContain('1000 levels')
    expect(error.message).toContain('#/components/schemas/Deep/properties/a/')
  })

  it('reads a YAML alias used twice, not inside itself', async () => {
    const dir = await tempDir('shape-', {
      'shared.yaml':
        'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths: {}\ncomponents:\n  schemas:\n    A: &s {type: string}\n    B: *s\n',
    })
    expect((await loadSpec(join(dir, 'shared.yaml'), { files })).document.components.schemas.B).toEqual({
      type: 'string',
    })
  })
})
