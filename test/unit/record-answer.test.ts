import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { nodePlatform } from '../../src/node/node-platform.js'
import type { CompiledOperation } from '../../src/engine/compile-operation.js'
import { type Engine, createEngine } from '../../src/engine/engine.js'
import type { Logger } from '../../src/common/log.js'
import { MAX_PENDING_RECORDINGS, type Recorder } from '../../src/proxy/record-answer.js'
import { requestHash } from '../../src/proxy/request-hash.js'
import type { RequestData } from '../../src/common/request.js'
import { requestOf } from '../support/builders.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

/** Proxy mode's `--record` (#18): conforming upstream answers written as fixtures that start-up accepts. */

const spec = fileURLToPath(new URL('../descriptions/recording.yaml', import.meta.url))

afterEach(removeTempDirs)

interface Recording {
  engine: Engine
  recorder: Recorder
  dir: string
  logged: { info: string[]; warn: string[] }
  operation(id: string): CompiledOperation
}

async function recording(overwrite = false, files: Record<string, unknown> = {}): Promise<Recording> {
  const dir = await tempDir('mock-record-', files)
  const logged = { info: [] as string[], warn: [] as string[] }
  const logger: Logger = { info: (m) => logged.info.push(m), warn: (m) => logged.warn.push(m), error: () => {} }
  const fixtures = await tempDir('mock-no-fixtures-')
  const engine = await createEngine(
    { spec, fixtures, proxy: 'http://127.0.0.1:9', record: dir, recordOverwrite: overwrite },
    logger,
    { platform: nodePlatform },
  )
  return {
    engine,
    recorder: engine.upstream!.recorder!,
    dir,
    logged,
    operation: (id) => engine.operations.find((o) => o.id === id)!,
  }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers({ 'content-type': 'application/json', ...headers }),
  body: new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body)),
})

const list = (query = '', headers: Record<string, string> = {}): RequestData =>
  requestOf({ path: '/plants', query, headers })

/** Every file under the folder, by path relative to it, with its text. */
async function filesIn(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name)
      files[path.slice(dir.length + 1)] = await readFile(path, 'utf8')
    }
  return files
}

describe('recording upstream answers as fixtures (#18)', () => {
  it('writes the body under its request hash, its declared headers beside it, and the first answer as the default', async () => {
    const { recorder, dir, operation, engine, logged } = await recording()
    const request = list('limit=5')
    const hash = requestHash(request, undefined, engine.redaction.query, nodePlatform.crypto.sha256)
    recorder.record(
      operation('listPlants'),
      request,
      undefined,
      json(200, [{ name: 'Fern' }], { 'x-rate-limit': '99', 'x-undeclared': 'no' }),
    )
    await recorder.idle()
    const files = await filesIn(dir)
    expect(Object.keys(files).sort()).toEqual(
      [
        'listPlants/200.headers.json',
        `listPlants/200.${hash}.headers.json`,
        `listPlants/200.${hash}.json`,
        'listPlants/200.json',
      ].sort(),
    )
    expect(JSON.parse(files[`listPlants/200.${hash}.json`]!)).toEqual([{ name: 'Fern' }])
    expect(JSON.parse(files[`listPlants/200.${hash}.headers.json`]!)).toEqual({ 'x-rate-limit': '99' })
    expect(files['listPlants/200.json']).toBe(files[`listPlants/200.${hash}.json`])
    expect(logged.info).toEqual([
      `Recorded the 200 answer of listPlants as ${join(dir, 'listPlants', `200.${hash}.json`)} and ${join(dir, 'listPlants', '200.json')}.`,
    ])
  })

  it('keeps the first answer as the default: a later request adds only its own fixture', async () => {
    const { recorder, dir, operation } = await recording()
    recorder.record(operation('listPlants'), list('limit=1'), undefined, json(200, [{ name: 'First' }]))
    recorder.record(operation('listPlants'), list('limit=2'), undefined, json(200, [{ name: 'Second' }]))
    await recorder.idle()
    const files = await filesIn(dir)
    expect(Object.keys(files)).toHaveLength(3)
    expect(JSON.parse(files['listPlants/200.json']!)).toEqual([{ name: 'First' }])
  })

  it('writes no credential: not the request’s, and not the headers the response declares that carry one', async () => {
    const { recorder, dir, operation } = await recording()
    const request = list('limit=5&api_key=SECRET-QUERY', {
      authorization: 'Bearer SECRET-BEARER',
      cookie: 'session=SECRET-COOKIE',
      'x-api-key': 'SECRET-KEY',
    })
    const answer = json(200, [{ name: 'Fern' }], {
      'set-cookie': 'session=SECRET-SET',
      'x-api-key': 'SECRET-ECHO',
      authorization: 'Bearer SECRET-ANSWER',
      'x-rate-limit': '7',
    })
    recorder.record(operation('listPlants'), request, undefined, answer)
    await recorder.idle()
    const files = await filesIn(dir)
    expect(Object.keys(files)).toHaveLength(4)
    for (const text of Object.values(files)) expect(text).not.toContain('SECRET')
    for (const name of Object.keys(files)) expect(name).not.toContain('SECRET')
  })

  it('names the hash without the query’s API key: the same request with another key is the same recording', async () => {
    const { recorder, dir, operation } = await recording()
    recorder.record(operation('listPlants'), list('limit=5&api_key=one'), undefined, json(200, [{ name: 'A' }]))
    recorder.record(operation('listPlants'), list('api_key=two&limit=5'), undefined, json(200, [{ name: 'B' }]))
    await recorder.idle()
    expect(Object.keys(await filesIn(dir))).toHaveLength(2)
  })

  it('replaces no file already there, and says so once', async () => {
    const { engine } = await recording()
    const hash = requestHash(list(), undefined, engine.redaction.query, nodePlatform.crypto.sha256)
    const before = { [`listPlants/200.${hash}.json`]: [{ name: 'Old' }], 'listPlants/200.json': [{ name: 'Older' }] }
    const { recorder, dir, operation, logged } = await recording(false, before)
    recorder.record(operation('listPlants'), list(), undefined, json(200, [{ name: 'New' }], { 'x-rate-limit': '1' }))
    recorder.record(operation('listPlants'), list(), undefined, json(200, [{ name: 'Newer' }]))
    await recorder.idle()
    const files = await filesIn(dir)
    expect(Object.keys(files)).toHaveLength(2)
    expect(JSON.parse(files[`listPlants/200.${hash}.json`]!)).toEqual([{ name: 'Old' }])
    expect(JSON.parse(files['listPlants/200.json']!)).toEqual([{ name: 'Older' }])
    expect(logged.info).toHaveLength(1)
    expect(logged.info[0]).toMatch(/^Kept .*, which was there already, .*: pass --record-overwrite to replace them\.$/)
  })

  it('with --record-overwrite, replaces a named fixture by its latest answer and its stale sidecar goes', async () => {
    const { engine } = await recording()
    const hash = requestHash(list(), undefined, engine.redaction.query, nodePlatform.crypto.sha256)
    const before = {
      [`listPlants/200.${hash}.json`]: [{ name: 'Old' }],
      [`listPlants/200.${hash}.headers.json`]: { 'x-rate-limit': '1' },
      'listPlants/200.json': [{ name: 'Older' }],
    }
    const { recorder, dir, operation } = await recording(true, before)
    recorder.record(operation('listPlants'), list(), undefined, json(200, [{ name: 'New' }]))
    await recorder.idle()
    recorder.record(operation('listPlants'), list(), undefined, json(200, [{ name: 'Newer' }]))
    await recorder.idle()
    const files = await filesIn(dir)
    expect(Object.keys(files).sort()).toEqual([`listPlants/200.${hash}.json`, 'listPlants/200.json'].sort())
    expect(JSON.parse(files[`listPlants/200.${hash}.json`]!)).toEqual([{ name: 'Newer' }])
    // The default is the first answer of this run, not a later one.
    expect(JSON.parse(files['listPlants/200.json']!)).toEqual([{ name: 'New' }])
  })

  it('with --record-overwrite, leaves one whole answer where answers to the same request are written at once', async () => {
    const { recorder, dir, operation, engine } = await recording(true)
    const bodies = [200, 3, 120, 1, 60].map((n) => Array.from({ length: n }, (_, i) => ({ name: `P${i}` })))
    for (const body of bodies) recorder.record(operation('listPlants'), list(), undefined, json(200, body))
    await recorder.idle()
    const hash = requestHash(list(), undefined, engine.redaction.query, nodePlatform.crypto.sha256)
    const files = await filesIn(dir)
    expect(Object.keys(files).sort()).toEqual([`listPlants/200.${hash}.json`, 'listPlants/200.json'].sort())
    expect(bodies).toContainEqual(JSON.parse(files[`listPlants/200.${hash}.json`]!))
  })

  it('names the fixture as Prefer: example= does, where that is a fixture name', async () => {
    const { recorder, dir, operation, engine } = await recording()
    const named = list('', { prefer: 'example=two-ferns' })
    const unnamable = list('limit=3', { prefer: 'example=../escape' })
    recorder.record(operation('listPlants'), named, undefined, json(200, [{ name: 'Fern' }, { name: 'Fern' }]))
    recorder.record(operation('listPlants'), unnamable, undefined, json(200, []))
    await recorder.idle()
    const hash = requestHash(unnamable, undefined, engine.redaction.query, nodePlatform.crypto.sha256)
    expect(Object.keys(await filesIn(dir)).sort()).toEqual(
      ['listPlants/200.json', `listPlants/200.${hash}.json`, 'listPlants/200.two-ferns.json'].sort(),
    )
  })

  it('records a status a range covers under the declared code, only where replay gives it back', async () => {
    const { recorder, dir, operation, engine, logged } = await recording()
    const body = new TextEncoder().encode('{"name":"Fern"}')
    const request = requestOf({ method: 'POST', path: '/plants' })
    recorder.record(operation('addPlant'), request, body, json(200, { name: 'Fern' }))
    // A 2XX fixture replays as 200 and a default one as the success status: neither would give these back.
    recorder.record(operation('addPlant'), request, body, json(201, { name: 'Fern' }))
    recorder.record(operation('addPlant'), request, body, json(503, { code: 503 }))
    await recorder.idle()
    const hash = requestHash(request, body, engine.redaction.query, nodePlatform.crypto.sha256)
    expect(Object.keys(await filesIn(dir)).sort()).toEqual([`addPlant/2XX.${hash}.json`, 'addPlant/2XX.json'].sort())
    expect(logged.warn).toEqual([
      'Not recording the 201 answer of addPlant: its status is declared only as 2XX, which a fixture replays as 200.',
      'Not recording the 503 answer of addPlant: its status is declared only as default, which a fixture replays as 200.',
    ])
  })

  it.each([
    [
      'a field the schema does not declare',
      json(200, [{ name: 'Fern', id: 1 }]),
      'body[0].id is not declared by the schema',
    ],
    ['a body that breaks the schema', json(200, [{ tag: 'x' }]), 'body[0].name is required'],
    ['a body that is not JSON', json(200, '[{"name":'), 'its body is not JSON'],
    ['a non-JSON media type', { ...json(200, []), headers: new Headers({ 'content-type': 'text/csv' }) }, 'text/csv'],
    ['no body', json(200, ''), 'it has no body'],
    ['a placeholder', json(200, [{ name: '{{request.body.name}}' }]), 'reads as a placeholder'],
  ])('writes nothing for %s, and says why once', async (_, answer, why) => {
    const { recorder, dir, operation, logged } = await recording()
    recorder.record(operation('listPlants'), list(), undefined, answer)
    recorder.record(operation('listPlants'), list('limit=2'), undefined, answer)
    await recorder.idle()
    expect(await filesIn(dir)).toEqual({})
    expect(logged.warn).toHaveLength(1)
    expect(logged.warn[0]).toMatch(/^Not recording the 200 answer of listPlants: .*\.$/)
    expect(logged.warn[0]).toContain(why)
  })

  it('writes nothing for a response that declares no JSON body, or none', async () => {
    const { recorder, dir, operation, logged } = await recording()
    const care = requestOf({ path: '/plants/1/care' })
    const text = { status: 200, headers: new Headers({ 'content-type': 'text/plain' }), body: new Uint8Array([65]) }
    recorder.record(operation('careOf'), care, undefined, text)
    recorder.record(operation('careOf'), care, undefined, {
      status: 204,
      headers: new Headers(),
      body: new Uint8Array(),
    })
    await recorder.idle()
    expect(await filesIn(dir)).toEqual({})
    expect(logged.warn).toEqual([
      'Not recording the 200 answer of careOf: the response declares no JSON media type.',
      'Not recording the 204 answer of careOf: the response declares no body.',
    ])
  })

  it('writes the body without its sidecar where a header breaks its schema, and says so', async () => {
    const { recorder, dir, operation, logged } = await recording()
    recorder.record(operation('listPlants'), list(), undefined, json(200, [], { 'x-rate-limit': 'lots' }))
    await recorder.idle()
    expect(Object.keys(await filesIn(dir))).toHaveLength(2)
    expect(logged.warn).toHaveLength(1)
    expect(logged.warn[0]).toMatch(/^Recording the 200 answer of listPlants without its headers, .*x-rate-limit.*\.$/)
  })

  it('tells once that an answer breaking the contract is not recorded', async () => {
    const { recorder, operation, logged } = await recording()
    const violations = [{ path: 'body.name', message: 'must be string' }]
    recorder.passOver(operation('listPlants'), 200, violations)
    recorder.passOver(operation('listPlants'), 200, violations)
    expect(logged.warn).toEqual([
      'Not recording the 200 answer of listPlants: it breaks the contract (body.name must be string).',
    ])
  })

  it(`keeps at most ${MAX_PENDING_RECORDINGS} answers waiting, and says once that it dropped the rest`, async () => {
    const { recorder, dir, operation, logged } = await recording()
    for (let i = 0; i < MAX_PENDING_RECORDINGS + 36; i++)
      recorder.record(operation('listPlants'), list(`limit=${i}`), undefined, json(200, [{ name: `P${i}` }]))
    await recorder.idle()
    // One file per answer written, and the first one also as the default.
    expect(Object.keys(await filesIn(dir))).toHaveLength(MAX_PENDING_RECORDINGS + 1)
    expect(logged.warn).toEqual([
      `Not recording answers for now: ${MAX_PENDING_RECORDINGS} are still being written to ${dir}; recording resumes once they are.`,
    ])
    recorder.record(operation('listPlants'), list('limit=-1'), undefined, json(200, []))
    await recorder.idle()
    expect(Object.keys(await filesIn(dir))).toHaveLength(MAX_PENDING_RECORDINGS + 2)
  })

  it('logs a file it cannot write, naming it, and never throws', async () => {
    const { recorder, dir, operation, logged } = await recording()
    await writeFile(join(dir, 'listPlants'), 'a file where the folder goes')
    expect(() => recorder.record(operation('listPlants'), list(), undefined, json(200, []))).not.toThrow()
    await recorder.idle()
    expect(logged.warn).toHaveLength(1)
    expect(logged.warn[0]).toMatch(/^Not recording the 200 answer of listPlants: could not make the folder .*\.$/)
    expect(logged.warn[0]).toContain(join(dir, 'listPlants'))
  })
})
