/**
 * `plant-store-mock bundle` (#33): the files start-up reads, checked as at start-up, in one JSON file
 * that `createHandlers({ bundle })` serves with no file system; and the browser entry, built for a
 * browser, imports no `node:` module and no Node-only package.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'
import { parse as parseYaml } from 'yaml'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createHandlers } from '../../src/msw.js'
import { root, runCli } from '../support/processes.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'
import { expectStartupError } from '../support/startup-error.js'

const servers: Array<ReturnType<typeof setupServer>> = []
afterEach(() => servers.splice(0).forEach((server) => server.close()))
afterAll(removeTempDirs)

async function bundleOf(args: string[]): Promise<string> {
  const out = join(await tempDir('mock-bundle-'), 'public', 'mock.bundle.json')
  const { code, stdout, stderr } = await runCli(['bundle', ...args, '--out', out])
  expect(stderr).toBe('')
  expect(code).toBe(0)
  expect(stdout).toMatch(/wrote .*mock\.bundle\.json: \d+ files?, \d+ KB/)
  return out
}

async function serve(bundle: string) {
  const { handlers, mock } = await createHandlers({ bundle, baseUrl: 'http://bundled.test' })
  const server = setupServer(...handlers)
  server.listen({ onUnhandledRequest: 'error' })
  servers.push(server)
  return mock
}

describe('plant-store-mock bundle', () => {
  it('writes the description, fixtures and scenarios, and createHandlers serves them from the bundle alone', async () => {
    const out = await bundleOf(['openapi.yaml', '--fixtures', 'fixtures', '--token', 'secret'])
    const bundle = JSON.parse(readFileSync(out, 'utf8'))
    expect(bundle).toMatchObject({ plantStoreMockBundle: 1, spec: 'openapi.yaml', fixtures: 'fixtures' })
    expect(Object.keys(bundle.files)).toContain('fixtures/scenarios.yaml')
    // YAML is carried as the JSON it converts to exactly, so that a browser needs no YAML parser.
    for (const file of ['openapi.yaml', 'fixtures/scenarios.yaml'])
      expect(JSON.parse(bundle.files[file])).toEqual(parseYaml(readFileSync(join(root, file), 'utf8')))
    expect(bundle.options).toEqual({ tokens: ['secret'] })
    const mock = await serve(out)
    const add = (token: string) =>
      fetch('http://bundled.test/plants', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 1, name: 'Fern' }),
      })
    expect((await add('secret')).status).toBe(200)
    expect((await add('other')).status).toBe(401)
    mock.useScenario('duplicate-plant') // from the bundled fixtures/scenarios.yaml
    const duplicate = await add('secret')
    expect(duplicate.status).toBe(400)
    expect(JSON.parse(readFileSync(join(root, 'fixtures/addPlant/400.duplicate-id.json'), 'utf8'))).toEqual(
      await duplicate.json(),
    )
  })

  it('keeps as YAML what JSON cannot hold exactly: an integer beyond 2^53 in a scenario', async () => {
    const folder = await tempDir('bundle-yaml-')
    const scenarios = [
      'big-id:',
      '  rules:',
      '    addPlant:',
      '      - when: { body: { $.id: { equals: 9007199254740993 } } }',
      '        status: 400',
    ]
    writeFileSync(join(folder, 'scenarios.yaml'), scenarios.join('\n'))
    const out = await bundleOf(['openapi.yaml', '--fixtures', folder])
    const bundle = JSON.parse(readFileSync(out, 'utf8'))
    expect(bundle.files[`${bundle.fixtures}/scenarios.yaml`]).toBe(scenarios.join('\n'))
    expect(() => JSON.parse(bundle.files[bundle.spec])).not.toThrow()
    const mock = await serve(out)
    mock.useScenario('big-id')
    const add = (id: string) =>
      fetch('http://bundled.test/plants', {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: `{"id":${id},"name":"Fern"}`,
      })
    expect((await add('9007199254740993')).status).toBe(400)
    expect((await add('9007199254740992')).status).toBe(200)
  })

  it('keeps a binary fixture as base64 with the media type its name says', async () => {
    const out = await bundleOf([
      'test/descriptions/file-fixtures.yaml',
      '--fixtures',
      'test/descriptions/file-fixtures',
    ])
    const bundle = JSON.parse(readFileSync(out, 'utf8'))
    expect(bundle.files['file-fixtures/logo/200.png']).toHaveProperty('base64')
    expect(bundle.mediaTypes['file-fixtures/logo/200.png']).toBe('image/png')
    await serve(out)
    const logo = await fetch('http://bundled.test/logo')
    expect(logo.headers.get('content-type')).toBe('image/png')
    const bytes = new Uint8Array(await logo.arrayBuffer())
    expect(bytes).toEqual(new Uint8Array(readFileSync(join(root, 'test/descriptions/file-fixtures/logo/200.png'))))
  })

  it('fails as start-up does for a broken description, with its code, and writes nothing', async () => {
    const dir = await tempDir('mock-bundle-bad-', { 'api.yaml': 'openapi: 3.1.0\npaths: [\n' })
    const out = join(dir, 'out.json')
    const { code, stderr } = await runCli(['bundle', join(dir, 'api.yaml'), '--out', out])
    expect(code).toBe(1)
    expect(stderr).toMatch(/\[description_not_yaml\]/)
    expect(() => readFileSync(out)).toThrow()
  })

  it('refuses an option that needs Node, and asks for --out', async () => {
    const proxied = await runCli(['bundle', 'openapi.yaml', '--proxy', 'http://127.0.0.1:9', '--out', 'x.json'])
    expect(proxied.stderr).toMatch(/proxy is not available in a mock bundle.*\[option_needs_node\]/)
    const noOut = await runCli(['bundle', 'openapi.yaml'])
    expect(noOut.stderr).toMatch(/--out <file>.*\[cli_missing_value\]/)
  })

  it('refuses a file that is not a bundle, saying what it is', async () => {
    const dir = await tempDir('mock-bundle-other-', { 'other.json': '{"openapi":"3.1.0"}' })
    const error = await expectStartupError(createHandlers({ bundle: join(dir, 'other.json') }), 'bundle_invalid')
    expect(error.message).toContain('no "plantStoreMockBundle" field')
  })
})

describe('the browser entry', () => {
  it('builds for a browser with no node: module and no Node-only package', async () => {
    const result = await build({
      entryPoints: [join(root, 'src/msw-browser.ts')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      splitting: true,
      outdir: join(await tempDir('mock-browser-build-'), 'out'),
      write: false,
      metafile: true,
      logLevel: 'silent',
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.some((input) => input.endsWith('src/msw-browser.ts'))).toBe(true)
    expect(
      inputs.filter((input) => /^node:|undici|busboy|@hono\/node-server|swagger2openapi|src\/node\//.test(input)),
    ).toEqual([])
  })
})
