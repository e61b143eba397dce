/**
 * `npm start` builds only when dist/ is older than what the build reads (#13): every start ran tsc
 * (about 8 s) where starting takes half a second. scripts/build-if-stale.mjs decides; here it runs
 * on throw-away package folders, first with a stand-in build that only counts, then for real, as the
 * README's quick start does it on a fresh clone (`npm ci && npm start`, no dist/ yet).
 */
import { cpSync, existsSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanEnv, killGroup, root, start, startedUrl, stopProcesses, within } from '../support/processes.js'
import { removeTempDirs, tempDirSync } from '../support/temp-dirs.js'

const script = join(root, 'scripts/build-if-stale.mjs')

afterAll(async () => {
  await stopProcesses()
  await removeTempDirs()
})

/** A package whose build writes the two outputs and counts its runs in builds.log; `fail` makes it fail. */
function fakePackage(): string {
  return tempDirSync('mock-stale-', {
    'package.json': { name: 'fake', private: true, scripts: { build: 'node build.mjs' } },
    'package-lock.json': { name: 'fake', lockfileVersion: 3 },
    'build.mjs': [
      "import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'",
      "if (existsSync('fail')) process.exit(2)",
      "mkdirSync('dist', { recursive: true })",
      "writeFileSync('dist/cli.js', '')",
      "writeFileSync('dist/index.js', '')",
      "appendFileSync('builds.log', 'built\\n')",
    ].join('\n'),
    'src/index.ts': 'export {}\n',
    'src/http/app.ts': 'export {}\n',
    'tsconfig.json': '{}',
    'tsconfig.build.json': '{}',
    'openapi.yaml': 'openapi: 3.1.0\n',
  })
}

/** Runs the script on `dir`, bounded; the npm on PATH runs the build. */
async function decide(dir: string): Promise<{ code: number | string; stdout: string; builds: number }> {
  const env = cleanEnv()
  delete env.npm_execpath
  const run = start(process.execPath, [script, dir], { cwd: dir, env })
  const code = await within(30_000, 'build-if-stale to exit', run.exited)
  const log = join(dir, 'builds.log')
  return {
    code,
    stdout: run.stdout(),
    builds: existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0,
  }
}

/** Sets the modification time of `files` to `seconds` since the epoch: the tests wait on no clock. */
function date(dir: string, files: string[], seconds: number): void {
  for (const file of files) utimesSync(join(dir, file), seconds, seconds)
}

const SOURCES = [
  'src/index.ts',
  'src/http/app.ts',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
]
const OUTPUTS = ['dist/cli.js', 'dist/index.js']
const T0 = 1_700_000_000

describe('scripts/build-if-stale.mjs', () => {
  it('builds when dist/ is missing, then not again while dist/ is newer than every source (#13)', async () => {
    const dir = fakePackage()
    const first = await decide(dir)
    expect(first).toMatchObject({ code: 0, builds: 1 })
    expect(first.stdout).toContain('Building: dist/cli.js does not exist')
    date(dir, SOURCES, T0)
    date(dir, OUTPUTS, T0 + 10)
    const second = await decide(dir)
    expect(second).toMatchObject({ code: 0, builds: 1 })
    expect(second.stdout).toContain('no build needed')
  })

  it.each(['src/http/app.ts', 'tsconfig.build.json', 'package.json', 'package-lock.json'])(
    'builds again once %s is newer than dist/ (#13)',
    async (source) => {
      const dir = fakePackage()
      await decide(dir)
      date(dir, SOURCES, T0)
      date(dir, OUTPUTS, T0 + 10)
      date(dir, [source], T0 + 20)
      const run = await decide(dir)
      expect(run).toMatchObject({ code: 0, builds: 2 })
      expect(run.stdout).toContain(`${source} is newer than dist/`)
    },
  )

  it('builds when one output is older than a source, though the other is newer (#13)', async () => {
    const dir = fakePackage()
    await decide(dir)
    date(dir, SOURCES, T0)
    date(dir, ['dist/cli.js'], T0 - 10)
    date(dir, ['dist/index.js'], T0 + 10)
    expect(await decide(dir)).toMatchObject({ code: 0, builds: 2 })
  })

  it('does not build for a newer openapi.yaml, which the mock reads when it starts (#13)', async () => {
    const dir = fakePackage()
    await decide(dir)
    date(dir, SOURCES, T0)
    date(dir, OUTPUTS, T0 + 10)
    date(dir, ['openapi.yaml'], T0 + 20)
    expect(await decide(dir)).toMatchObject({ code: 0, builds: 1 })
  })

  it('exits non-zero when the build fails, so npm start stops there (#13)', async () => {
    const dir = fakePackage()
    writeFileSync(join(dir, 'fail'), '')
    const run = await decide(dir)
    expect(run.code).toBe(1)
    expect(run.builds).toBe(0)
  })
})

describe('npm start on a fresh clone', () => {
  it(
    'builds dist/ and serves the embedded Plant Store; the next start skips the build (#13)',
    { timeout: 240_000 },
    async () => {
      const dir = tempDirSync('mock-fresh-clone-')
      for (const entry of [
        'src',
        'scripts',
        'fixtures',
        'openapi.yaml',
        'admin-openapi.yaml',
        'package.json',
        'package-lock.json',
        'tsconfig.json',
        'tsconfig.build.json',
      ]) {
        cpSync(join(root, entry), join(dir, entry), { recursive: true })
      }
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir')

      for (const expected of ['Building: dist/cli.js does not exist', 'no build needed']) {
        const npmStart = start('npm', ['start', '--', '--port', '0'], { cwd: dir, env: cleanEnv(), detached: true })
        const url = await startedUrl(npmStart, 120_000)
        expect(npmStart.stdout()).toContain(expected)
        const response = await fetch(`${url.replace('0.0.0.0', '127.0.0.1')}/plants`, {
          method: 'POST',
          headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
          body: '{"id":1,"name":"Fern"}',
          signal: AbortSignal.timeout(10_000),
        })
        expect(response.status).toBe(200)
        expect(await response.json()).toEqual({ name: 'Fern' })
        killGroup(npmStart.child, 'SIGTERM')
        await within(15_000, 'npm start to stop', npmStart.exited)
      }
    },
  )
})
