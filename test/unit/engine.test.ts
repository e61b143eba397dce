import { copyFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { type Files, removeTempDirs, tempDir } from '../support/temp-dirs.js'
import { expectStartupError } from '../support/startup-error.js'

/** Start-up failures, through the public createApp: each one rejects with a StartupError that says what to fix. */

const librarySpec = fileURLToPath(new URL('../descriptions/library.yaml', import.meta.url))
const specFile = (name: string) => fileURLToPath(new URL(`../descriptions/${name}`, import.meta.url))

afterEach(removeTempDirs)

/** A throw-away fixtures folder: `{ 'addPlant/200.json': {...} }` → files under a fresh temp dir. */
const fixturesFolder = (files: Files): Promise<string> => tempDir('mock-fixtures-', files)

const auth = { authorization: 'Bearer t', 'content-type': 'application/json' }

/** The parsed JSON body; `any`, since each test states the shape it expects. */
const jsonOf = (res: Response): Promise<any> => res.json()

describe('createApp start-up with fixtures', () => {
  it('serves a valid fixture from an explicitly given folder', async () => {
    const dir = await fixturesFolder({ 'addPlant/200.json': { name: 'Aloe vera' } })
    const app = await createApp({ fixtures: dir })
    const res = await app.request('/plants', { method: 'POST', headers: auth, body: '{"id":1,"name":"Fern"}' })
    expect(res.status).toBe(200)
    expect(await jsonOf(res)).toEqual({ name: 'Aloe vera' })
  })

  it('refuses a 200 fixture whose name is a number, naming the file, body.name and the rule', async () => {
    const dir = await fixturesFolder({ 'addPlant/200.json': { name: 5 } })
    const error = await expectStartupError(createApp({ fixtures: dir }), 'fixture_mismatch')
    expect(error.message).toContain(join(dir, 'addPlant', '200.json'))
    expect(error.message).toContain('body.name must be a string')
    expect(error.message).toContain('the 200 response of addPlant')
  })

  it('refuses a fixture carrying the undeclared field id', async () => {
    const dir = await fixturesFolder({ 'addPlant/200.json': { id: 1, name: 'Fern' } })
    const error = await expectStartupError(createApp({ fixtures: dir }), 'fixture_mismatch')
    expect(error.message).toContain(join(dir, 'addPlant', '200.json'))
    expect(error.message).toContain('body.id is not declared by the schema')
  })

  it('refuses a named error fixture that breaks the Error schema', async () => {
    const dir = await fixturesFolder({ 'addPlant/400.duplicate-id.json': { error: 'four hundred', message: 'dup' } })
    const error = await expectStartupError(createApp({ fixtures: dir }), 'fixture_mismatch')
    expect(error.message).toContain(join(dir, 'addPlant', '400.duplicate-id.json'))
    expect(error.message).toContain('body.error must be an integer')
  })

  it('refuses a fixture folder named after no operation, listing the operationIds', async () => {
    const dir = await fixturesFolder({ 'listPlants/200.json': [] })
    const error = await expectStartupError(createApp({ fixtures: dir }), 'fixture_unknown_operation')
    expect(error.message).toContain(join(dir, 'listPlants'))
    expect(error.message).toContain('addPlant')
  })

  it('refuses a fixture for a status the operation does not declare', async () => {
    const dir = await fixturesFolder({ 'addPlant/404.json': { error: 404, message: 'gone' } })
    const error = await expectStartupError(createApp({ fixtures: dir }), 'fixture_unknown_status')
    expect(error.message).toContain(join(dir, 'addPlant', '404.json'))
    expect(error.message).toContain('status 404, which addPlant does not declare (declared: 200, 400)')
  })

  it('refuses a fixture for a response that declares no content', async () => {
    const dir = await fixturesFolder({ 'delete_books_{bookId}/204.json': {} })
    const error = await expectStartupError(createApp({ spec: librarySpec, fixtures: dir }), 'fixture_no_content')
    expect(error.message).toContain(join(dir, 'delete_books_{bookId}', '204.json'))
  })

  it('refuses a fixture file that is not named <status>[.<name>].json', async () => {
    const dir = await fixturesFolder({ 'addPlant/ok.json': { name: 'Fern' } })
    const error = await expectStartupError(createApp({ fixtures: dir }), 'fixture_bad_name')
    expect(error.message).toContain(join(dir, 'addPlant', 'ok.json'))
    expect(error.message).toContain('is not named <status>[.<name>].json')
  })

  it('passes over editor backups and temporary files among the fixtures, with one warning naming them', async () => {
    const dir = await fixturesFolder({
      'addPlant/200.json': { name: 'Aloe vera' },
      'addPlant/200.json~': '{"name": "half-saved',
      'addPlant/200.json.bak': 'not json',
      'addPlant/200.json.swp': 'binary',
      'addPlant/#200.json#': '{',
      'addPlant/.#200.json': 'lock',
    })
    const warnings: string[] = []
    const app = await createApp({
      fixtures: dir,
      logger: { info() {}, warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) },
    })
    const res = await app.request('/plants', {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"id": 1, "name": "Fern"}',
    })
    expect(await res.json()).toEqual({ name: 'Aloe vera' })
    const leftovers = warnings.filter((w) => w.includes('editor backup or temporary'))
    expect(leftovers).toHaveLength(1)
    expect(leftovers[0]).toContain('passed over 4 ')
    for (const name of ['200.json~', '200.json.bak', '200.json.swp', '#200.json#'])
      expect(leftovers[0]).toContain(join(dir, 'addPlant', name))
  })

  it('refuses a fixture that is not valid JSON', async () => {
    const dir = await fixturesFolder({ 'addPlant/200.json': '{"name": "Fern",' })
    const error = await expectStartupError(createApp({ fixtures: dir }), 'fixture_not_json')
    expect(error.message).toContain(join(dir, 'addPlant', '200.json'))
  })

  it('refuses an explicitly given fixtures folder that does not exist', async () => {
    const missing = join(tmpdir(), 'mock-fixtures-that-were-never-made')
    const error = await expectStartupError(createApp({ fixtures: missing }), 'fixture_folder_missing')
    expect(error.message).toContain(missing)
  })

  it('uses a fixtures folder found beside a non-default description without being told', async () => {
    const dir = await fixturesFolder({ 'fixtures/getBook/200.json': { id: 9, title: 'Beloved', subtitle: null } })
    await copyFile(librarySpec, join(dir, 'library.yaml'))
    const app = await createApp({ spec: join(dir, 'library.yaml') })
    const res = await app.request('/books/9', { headers: { 'x-library-key': 'k' } })
    expect(await jsonOf(res)).toEqual({ id: 9, title: 'Beloved', subtitle: null })
  })

  it('checks a fixture found beside the description as strictly as an explicit one', async () => {
    const dir = await fixturesFolder({ 'fixtures/getBook/200.json': { id: 0, title: 'Beloved', subtitle: null } })
    await copyFile(librarySpec, join(dir, 'library.yaml'))
    const error = await expectStartupError(createApp({ spec: join(dir, 'library.yaml') }), 'fixture_mismatch')
    expect(error.message).toContain('body.id must be >= 1')
  })
})

describe('createApp start-up with a broken description', () => {
  it('serves a security requirement that names an undeclared scheme as met, warning once with the scheme, the file and where (#11)', async () => {
    const warnings: string[] = []
    const app = await createApp({
      spec: specFile('undeclared-scheme.yaml'),
      logger: { info() {}, error() {}, warn: (m) => warnings.push(m) },
    })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('"vaultKey"')
    expect(warnings[0]).toContain('components.securitySchemes does not declare')
    expect(warnings[0]).toContain(specFile('undeclared-scheme.yaml'))
    expect(warnings[0]).toContain('#/paths/~1secrets/get/security/0')
    expect((await app.request('/secrets')).status).toBe(204)
  })

  it('refuses a description whose $ref points at nothing, naming the file', async () => {
    const error = await expectStartupError(
      createApp({ spec: specFile('dangling-ref.yaml') }),
      'description_unresolved_ref',
    )
    expect(error.message).toContain(specFile('dangling-ref.yaml'))
    expect(error.message).toContain('#/components/schemas/Missing')
  })

  it('serves two operations that share an operationId, telling them apart by method and path (#36 §1)', async () => {
    const dir = await fixturesFolder({})
    const spec = join(dir, 'twins.json')
    const ok = { responses: { '204': { description: 'ok' } } }
    await writeFile(
      spec,
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'Twins', version: '1' },
        paths: { '/a': { get: { operationId: 'twin', ...ok } }, '/b': { get: { operationId: 'twin', ...ok } } },
      }),
    )
    const warnings: string[] = []
    const app = await createApp({ spec, logger: { info() {}, warn: (m) => warnings.push(m), error() {} } })
    expect((await app.request('/a')).status).toBe(204)
    expect((await app.request('/b')).status).toBe(204)
    expect(app.mock.requests().map((r) => r.operation)).toEqual(['twin', 'GET /b'])
    expect(warnings.join('\n')).toContain('twin (GET /a, GET /b)')
  })

  it('refuses a fixtures folder named by a shared operationId, naming both paths and the fix (#36 §1)', async () => {
    const dir = await fixturesFolder({ 'twin/200.json': {} })
    const spec = join(dir, 'twins.json')
    const ok = { responses: { '200': { description: 'ok', content: { 'application/json': {} } } } }
    await writeFile(
      spec,
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'Twins', version: '1' },
        paths: { '/a': { get: { operationId: 'twin', ...ok } }, '/b': { get: { operationId: 'twin', ...ok } } },
      }),
    )
    const error = await expectStartupError(createApp({ spec, fixtures: dir }), 'fixture_ambiguous_operation')
    expect(error.message).toContain('GET /a and GET /b share')
    expect(error.message).toContain('get_a or get_b')
  })

  it('serves a description whose schemas come from another local file', async () => {
    const app = await createApp({ spec: specFile('external-ref.yaml') })
    const good = await app.request('/gadgets', { method: 'POST', headers: auth, body: '{"name":"lamp","weight":2}' })
    const bad = await app.request('/gadgets', { method: 'POST', headers: auth, body: '{"name":"lamp","weight":0}' })
    expect(good.status).toBe(201)
    expect(bad.status).toBe(422)
    expect((await jsonOf(bad)).message).toContain('body.weight must be >= 1')
  })
})

describe('createApp start-up with bad options', () => {
  it('refuses a port outside 0..65535', async () => {
    await expectStartupError(createApp({ port: 70000 }), 'option_bad_port')
  })

  it('refuses an empty token', async () => {
    await expectStartupError(createApp({ tokens: [''] }), 'option_bad_token')
  })

  it('refuses a max body size below one byte', async () => {
    await expectStartupError(createApp({ maxBodyBytes: 0 }), 'option_bad_max_body')
  })
})

describe('the journal of a description with API keys (#12)', () => {
  it('redacts the API key header the description declares', async () => {
    const app = await createApp({ spec: librarySpec })
    await app.request('/books/9', { headers: { 'x-library-key': 'secret-key-1' } })
    const [entry] = app.mock.requests()
    expect(entry!.headers['x-library-key']).toBe('[redacted]')
    expect(JSON.stringify(app.mock.requests())).not.toContain('secret-key-1')
  })
})
