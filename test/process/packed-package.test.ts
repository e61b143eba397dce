import { execFile } from 'node:child_process'
import { statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanEnv, killGroup, root, start, startedUrl, stopProcesses, within } from '../support/processes.js'
import { removeTempDirs, tempDirSync } from '../support/temp-dirs.js'

/**
 * The package as a user gets it (issue #6): `npm pack` (of the dist/ built for the run), then the tarball
 * installed into a fresh project outside this clone, from the npm cache that `npm ci` filled.
 * Only production dependencies come with it, so a runtime import of a dev dependency fails here.
 */
const run = promisify(execFile)
const npmEnv = cleanEnv({ npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' })

let work: string
let consumer: string
let packed: { filename: string; files: Array<{ path: string; mode: number }> }

beforeAll(async () => {
  work = tempDirSync('mock-pack-')
  // --ignore-scripts: dist/ is built once for the whole run (test/global-setup.ts); prepack building
  // it again here would rewrite it under the feet of other test files' processes.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: root,
    env: npmEnv,
    timeout: 60_000,
  })
  // prepack's own output comes before the JSON.
  packed = (JSON.parse(stdout.slice(stdout.indexOf('\n[') + 1 || 0)) as (typeof packed)[])[0]!
  consumer = join(work, 'consumer')
  await run('mkdir', [consumer])
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, packed.filename)], {
    cwd: consumer,
    env: npmEnv,
    timeout: 90_000,
  })
}, 120_000)

afterAll(async () => {
  await stopProcesses()
  await removeTempDirs()
})

describe('the packed npm package', () => {
  it('holds the built code with its types, both descriptions, the default fixtures and the docs, and no test or source file #6', () => {
    const paths = packed.files.map((f) => f.path)
    expect(paths).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'dist/cli.js',
        'openapi.yaml',
        'admin-openapi.yaml',
        'fixtures/scenarios.yaml',
        'fixtures/addPlant/200.json',
        'package.json',
        'README.md',
        // The README's map links into docs/: the reference travels with the package.
        'docs/from-a-test.md',
        'docs/command-line.md',
      ]),
    )
    expect(paths.filter((p) => /^(src|test|bench)\//.test(p) || p.endsWith('.map'))).toEqual([])
    // The bin keeps its shebang's promise: executable in the tarball and once installed.
    expect(packed.files.find((f) => f.path === 'dist/cli.js')!.mode & 0o111).toBe(0o111)
    expect(statSync(join(consumer, 'node_modules/plant-store-mock/dist/cli.js')).mode & 0o111).toBe(0o111)
  })

  it('runs through npx with --port 0, answers POST /plants, logs it and stops on SIGTERM #6', async () => {
    // yes=false: the installed bin or nothing, never a download of some package of that name.
    // 'close', not 'exit': the mock shares npx's stdout, so the pipe closes once both have ended.
    const npx = start('npx', ['plant-store-mock', '--port', '0'], {
      cwd: consumer,
      env: { ...npmEnv, npm_config_yes: 'false' },
      detached: true,
      endEvent: 'close',
    })
    const { child, stdout, exited } = npx
    const url = await startedUrl(npx, 20_000)
    const res = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, name: 'Fern' }),
      signal: AbortSignal.timeout(5000),
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ name: 'Fern' })
    // To the process group, as a terminal's Ctrl-C or a CI runner does: npm exec runs the bin through
    // `sh -c`, which does not pass a signal sent to npx alone on to the mock. npx then ends by the
    // signal itself; the mock's own exit code 0 is checked in cli.test.ts and container-entrypoint.test.ts.
    killGroup(child, 'SIGTERM')
    expect(await within(10_000, 'npx and the mock to exit after SIGTERM', exited)).toBe('SIGTERM')
    expect(stdout()).toMatch(/POST \/plants 200 .*ms scenario=default\n[^]*SIGTERM: finishing in-flight requests/)
    await expect(fetch(`${url}/__mock/health`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow()
  }, 40_000)

  it('imports startMockServer by package name from ESM, and loads by require() on Node 20.19+ #6', async () => {
    writeFileSync(
      join(consumer, 'use.mjs'),
      `import { startMockServer } from 'plant-store-mock'
const mock = await startMockServer({ port: 0, quiet: true })
const res = await fetch(mock.url + '/plants', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":1,"name":"Fern"}' })
console.log(JSON.stringify({ status: res.status, journaled: mock.requests().map((r) => r.status) }))
await mock.close()
`,
    )
    writeFileSync(join(consumer, 'use.cjs'), `console.log(typeof require('plant-store-mock').startMockServer)\n`)
    const esm = await run(process.execPath, ['use.mjs'], { cwd: consumer, env: npmEnv, timeout: 20_000 })
    expect(JSON.parse(esm.stdout.trim().split('\n').at(-1)!)).toEqual({ status: 401, journaled: [401] })
    const cjs = await run(process.execPath, ['use.cjs'], { cwd: consumer, env: npmEnv, timeout: 20_000 })
    expect(cjs.stdout.trim()).toBe('function')
  }, 40_000)
})
