/**
 * `--watch` follows every file the description reads (#35): `$ref`'d files in subfolders, chains of
 * them, ones added by an edit, ones outside the tree that --allow-ref-outside allows; rename-style
 * saves; a checkout of many files gives one reload; one handle a folder, however many files.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type AppOptions, type MockServer, startMockServer } from '../../src/index.js'

let dir: string
let mock: MockServer | undefined
const infos: string[] = []
const errors: string[] = []

afterEach(async () => {
  await mock?.close()
  mock = undefined
  rmSync(dir, { recursive: true, force: true })
  infos.length = 0
  errors.length = 0
})

/** Writes files under a fresh folder: path → text. */
function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
}

/** A description whose one operation answers the schema at `ref` (no example: the schema's static sample). */
const description = (ref: string) => `openapi: 3.1.0
info: { title: Watched, version: '1' }
paths:
  /thing:
    get:
      operationId: getThing
      responses:
        '200':
          description: the thing
          content:
            application/json:
              schema: { $ref: '${ref}' }
`

async function start(options: AppOptions = {}): Promise<MockServer> {
  const logger = {
    info: (message: string) => void infos.push(message),
    warn() {},
    error: (message: string) => void errors.push(message),
  }
  mock = await startMockServer({ spec: join(dir, 'api.yaml'), port: 0, watch: true, logger, ...options })
  return mock
}

const thing = async () => (await fetch(`${mock!.url}/thing`)).json()

const reloads = () => infos.filter((line) => line.startsWith('reloaded'))

describe('--watch follows what the description reads (#35)', () => {
  it('a $ref two folders down: an edit of it is served, and the log names the file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-refs-'))
    write({
      'api.yaml': description('components/schemas/thing.yaml'),
      'components/schemas/thing.yaml': 'type: object\nproperties: { name: { type: string, const: one } }\n',
    })
    await start()
    expect(await thing()).toEqual({ name: 'one' })
    write({ 'components/schemas/thing.yaml': 'type: object\nproperties: { name: { type: string, const: two } }\n' })
    await expect.poll(thing, { timeout: 5_000, interval: 50 }).toEqual({ name: 'two' })
    expect(reloads()[0]).toContain(join(dir, 'components', 'schemas', 'thing.yaml'))
  })

  it('a chain of $refs across three files: the last one’s edit is served', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-refs-'))
    write({
      'api.yaml': description('schemas/a.yaml'),
      'schemas/a.yaml': 'type: object\nproperties: { part: { $ref: "parts/b.yaml" } }\n',
      'schemas/parts/b.yaml': 'type: object\nproperties: { leaf: { $ref: "../../leaves/c.yaml" } }\n',
      'leaves/c.yaml': 'type: string\nconst: first\n',
    })
    await start()
    expect(await thing()).toEqual({ part: { leaf: 'first' } })
    write({ 'leaves/c.yaml': 'type: string\nconst: second\n' })
    await expect.poll(thing, { timeout: 5_000, interval: 50 }).toEqual({ part: { leaf: 'second' } })
  })

  it('a $ref added by an edit is followed from then on, one removed no longer is; a target made after its $ref is seen', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-refs-'))
    write({
      'api.yaml': description('schemas/old.yaml'),
      'schemas/old.yaml': 'type: string\nconst: old\n',
      'other/new.yaml': 'type: string\nconst: new\n',
    })
    await start()
    write({ 'api.yaml': description('other/new.yaml') })
    await expect.poll(thing, { timeout: 5_000, interval: 50 }).toBe('new')
    write({ 'other/new.yaml': 'type: string\nconst: newer\n' })
    await expect.poll(thing, { timeout: 5_000, interval: 50 }).toBe('newer')
    const before = reloads().length
    write({ 'schemas/old.yaml': 'type: string\nconst: unused\n' })
    // A file the description no longer reads: no reload.
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect(reloads()).toHaveLength(before)
    // A $ref to a file that is not there yet fails the reload; making the file then reloads.
    write({ 'api.yaml': description('later/made.yaml') })
    await expect.poll(() => errors.join('\n'), { timeout: 5_000, interval: 50 }).toContain('Still serving')
    write({ 'later/made.yaml': 'type: string\nconst: made\n' })
    await expect.poll(thing, { timeout: 5_000, interval: 50 }).toBe('made')
  })

  it('a file outside the tree, allowed by --allow-ref-outside, is watched too', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-refs-'))
    write({ 'spec/api.yaml': description('../shared/thing.yaml'), 'shared/thing.yaml': 'type: string\nconst: a\n' })
    const logger = { info: (m: string) => void infos.push(m), warn() {}, error: (m: string) => void errors.push(m) }
    mock = await startMockServer({
      spec: join(dir, 'spec', 'api.yaml'),
      allowRefOutside: [join(dir, 'shared')],
      port: 0,
      watch: true,
      logger,
    })
    expect(await thing()).toBe('a')
    write({ 'shared/thing.yaml': 'type: string\nconst: b\n' })
    await expect.poll(thing, { timeout: 5_000, interval: 50 }).toBe('b')
  })

  it('a rename-style save (a temporary file renamed over the $ref’d one) reloads', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-refs-'))
    write({ 'api.yaml': description('schemas/thing.yaml'), 'schemas/thing.yaml': 'type: string\nconst: a\n' })
    await start()
    write({ 'schemas/.thing.yaml.swp': 'type: string\nconst: renamed\n' })
    renameSync(join(dir, 'schemas/.thing.yaml.swp'), join(dir, 'schemas/thing.yaml'))
    await expect.poll(thing, { timeout: 5_000, interval: 50 }).toBe('renamed')
  })

  it('a checkout that rewrites 200 $ref’d files gives one reload; 2,000 files in 10 folders take 10 folder handles', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-refs-'))
    const files: Record<string, string> = {}
    const properties: string[] = []
    for (let i = 0; i < 2000; i++) {
      files[`parts/p${i % 10}/f${i}.yaml`] = 'type: integer\nconst: 1\n'
      properties.push(`  f${i}: { $ref: 'parts/p${i % 10}/f${i}.yaml' }`)
    }
    write({
      ...files,
      'api.yaml': description('thing.yaml'),
      'thing.yaml': `type: object\nproperties:\n${properties.join('\n')}\n`,
    })
    const handlesBefore = process.getActiveResourcesInfo().filter((kind) => kind === 'FSEventWrap').length
    await start()
    const handles = process.getActiveResourcesInfo().filter((kind) => kind === 'FSEventWrap').length - handlesBefore
    // The description's folder, the 10 part folders, and the folders above the description's own (looked up once).
    expect(handles).toBeLessThanOrEqual(14)
    expect(((await thing()) as Record<string, number>).f1999).toBe(1)
    const checkout: Record<string, string> = {}
    for (let i = 0; i < 200; i++) checkout[`parts/p${i % 10}/f${i}.yaml`] = 'type: integer\nconst: 2\n'
    write(checkout)
    await expect
      .poll(async () => ((await thing()) as Record<string, number>).f0, { timeout: 10_000, interval: 50 })
      .toBe(2)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(reloads()).toHaveLength(1)
  }, 30_000)
})
