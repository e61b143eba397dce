import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadFixtures } from '../../src/responses/fixtures.js'
import { nodePlatform } from '../../src/node/node-platform.js'
import { removeTempDirs, tempDir, writeFiles } from '../support/temp-dirs.js'
import { expectStartupError } from '../support/startup-error.js'

let dir: string

beforeEach(async () => {
  dir = await tempDir('plant-store-fixtures-')
})

afterEach(removeTempDirs)

/** Writes files given by path relative to the temporary folder. */
const write = (files: Record<string, string>): Promise<void> => writeFiles(dir, files)

describe('loadFixtures', () => {
  it('reads <operation>/<status>.json as the default body of that status', async () => {
    await write({ 'addPlant/200.json': '{"name": "Fern"}' })
    const fixtures = await loadFixtures(dir, nodePlatform.files, true)
    expect(fixtures.get('addPlant')).toEqual([
      { file: join(dir, 'addPlant', '200.json'), code: '200', name: 'default', value: { name: 'Fern' } },
    ])
  })

  it('reads <status>.<name>.json as a named body', async () => {
    await write({ 'addPlant/400.duplicate-id.json': '{"error": 400, "message": "m"}' })
    const [fixture] = (await loadFixtures(dir, nodePlatform.files, true)).get('addPlant')!
    expect(fixture).toMatchObject({ code: '400', name: 'duplicate-id' })
  })

  it('reads ranges and default as status codes', async () => {
    await write({ 'op/2XX.json': '{}', 'op/default.boom.json': '{}' })
    const fixtures = (await loadFixtures(dir, nodePlatform.files, true)).get('op')!
    expect(fixtures.map((f) => [f.code, f.name])).toEqual([
      ['2XX', 'default'],
      ['default', 'boom'],
    ])
  })

  it('lists the files of a folder in name order', async () => {
    await write({ 'op/400.json': '{}', 'op/200.json': '{}', 'op/400.a.json': '{}' })
    const fixtures = (await loadFixtures(dir, nodePlatform.files, true)).get('op')!
    expect(fixtures.map((f) => `${f.code}.${f.name}`)).toEqual(['200.default', '400.a', '400.default'])
  })

  it('keys folders by their name, one per operation', async () => {
    await write({ 'addPlant/200.json': '{}', 'post_plants_{id}/201.json': '{}' })
    expect([...(await loadFixtures(dir, nodePlatform.files, true)).keys()].sort()).toEqual([
      'addPlant',
      'post_plants_{id}',
    ])
  })

  it('keeps any JSON value, not only objects', async () => {
    await write({ 'op/200.json': '[1, "two", null]', 'op/201.json': '"text"' })
    expect((await loadFixtures(dir, nodePlatform.files, true)).get('op')!.map((f) => f.value)).toEqual([
      [1, 'two', null],
      'text',
    ])
  })

  it('leaves files at the top level to other features', async () => {
    await write({ 'README.md': '# fixtures', 'scenarios.json': '{', 'op/200.json': '{}' })
    expect([...(await loadFixtures(dir, nodePlatform.files, true)).keys()]).toEqual(['op'])
  })

  it('skips hidden folders and hidden files', async () => {
    await write({ '.git/config': 'x', 'op/.DS_Store': 'x', 'op/200.json': '{}' })
    const fixtures = await loadFixtures(dir, nodePlatform.files, true)
    expect([...fixtures.keys()]).toEqual(['op'])
    expect(fixtures.get('op')).toHaveLength(1)
  })

  it('gives an empty list for an empty operation folder', async () => {
    await mkdir(join(dir, 'op'))
    expect((await loadFixtures(dir, nodePlatform.files, true)).get('op')).toEqual([])
  })

  // Editor leftovers (`200.json.bak`, `200.json~`) are passed over instead: test/unit/engine.test.ts.
  it('refuses a file whose name is not <status>[.<name>].json, nor of a stream or of a known non-JSON media type, naming the file', async () => {
    for (const name of [
      'ok.json',
      '600.json',
      '20.json',
      '4xx.json',
      '200.JSON',
      '200.a.b.json',
      '200..json',
      '200.-x.json',
      '200.geojson',
      '200.nosuchextension',
    ]) {
      await rm(join(dir, 'op'), { recursive: true, force: true })
      await write({ [`op/${name}`]: '{}' })
      const error = await expectStartupError(loadFixtures(dir, nodePlatform.files, true), 'fixture_bad_name', name)
      expect(error.message, name).toContain(join(dir, 'op', name))
    }
  })

  it('refuses a folder inside an operation folder', async () => {
    await write({ 'op/nested/200.json': '{}' })
    const error = await expectStartupError(loadFixtures(dir, nodePlatform.files, true), 'fixture_bad_name')
    expect(error.message).toContain(join(dir, 'op', 'nested'))
  })

  it('refuses a fixture that is not valid JSON, naming the file', async () => {
    await write({ 'op/200.json': '{"name": ' })
    const error = await expectStartupError(loadFixtures(dir, nodePlatform.files, true), 'fixture_not_json')
    expect(error.message).toContain(join(dir, 'op', '200.json'))
  })

  it('refuses an empty fixture file', async () => {
    await write({ 'op/200.json': '' })
    await expectStartupError(loadFixtures(dir, nodePlatform.files, true), 'fixture_not_json')
  })

  it('refuses a missing folder that was asked for', async () => {
    const error = await expectStartupError(
      loadFixtures(join(dir, 'missing'), nodePlatform.files, true),
      'fixture_folder_missing',
    )
    expect(error.message).toContain(join(dir, 'missing'))
  })

  it('refuses a file given where a folder was asked for', async () => {
    await write({ 'file.json': '{}' })
    await expectStartupError(loadFixtures(join(dir, 'file.json'), nodePlatform.files, true), 'fixture_folder_missing')
  })

  it('gives no fixtures for a missing folder that was not asked for', async () => {
    expect((await loadFixtures(join(dir, 'missing'), nodePlatform.files, false)).size).toBe(0)
  })

  it('gives no fixtures when there is no folder at all', async () => {
    expect((await loadFixtures('', nodePlatform.files, true)).size).toBe(0)
  })
})
