/**
 * The example app (examples/plant-shop, #33 §3), a real consumer of the package: it imports
 * `plant-store-mock/vite` in its Vite config and `plant-store-mock/msw` in its tests, both resolved to
 * this repository's built dist/ (the example has no package.json of its own, so Node and Vite find the
 * package by its own name) with the root's node_modules. Its production build, its type check and its
 * tests each run as a child process here, bounded in time; nothing is downloaded.
 */
import { execFile } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanEnv, root } from '../support/processes.js'
import { removeTempDirs, tempDirSync } from '../support/temp-dirs.js'

const run = promisify(execFile)
const example = join(root, 'examples/plant-shop')
/** Each child at most this long; the three together take some 10 s on two cores. */
const CHILD_MS = 60_000

/** The runner's environment without what tells a child it runs inside vitest or under its NODE_ENV. */
function childEnv(): NodeJS.ProcessEnv {
  const env = cleanEnv()
  for (const name of Object.keys(env)) if (name.startsWith('VITEST') || name === 'NODE_ENV') delete env[name]
  return env
}

/** Runs a package's script from the root's node_modules in the example's folder; resolves with its output, rejects naming it. */
function inExample(script: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [join(root, 'node_modules', script), ...args], {
    cwd: example,
    env: childEnv(),
    timeout: CHILD_MS,
    killSignal: 'SIGKILL',
    maxBuffer: 8 * 1024 * 1024,
  })
}

afterAll(() => removeTempDirs())

describe('the example app (#33)', () => {
  it('builds with vite build, type-checks, and passes its own tests with the mock as MSW handlers', async () => {
    const outDir = tempDirSync('plant-shop-build-')
    const [build, typecheck, tests] = await Promise.all([
      inExample('vite/bin/vite.js', ['build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn']),
      inExample('typescript/bin/tsc', ['-p', 'tsconfig.json']),
      inExample('vitest/vitest.mjs', ['run', '--reporter', 'json', '--outputFile', join(outDir, 'tests.json')]),
    ])

    // The page and the script it loads, the script holding the app's call to the API.
    const html = readFileSync(join(outDir, 'index.html'), 'utf8')
    const script = /src="\/(assets\/[^"]+\.js)"/.exec(html)?.[1]
    expect(script, html).toBeDefined()
    expect(readFileSync(join(outDir, script!), 'utf8')).toContain('/plants')
    expect(readdirSync(join(outDir, 'assets')).length).toBeGreaterThan(0)
    expect(build.stderr).toBe('')

    expect(typecheck.stdout + typecheck.stderr).toBe('')

    const report = JSON.parse(readFileSync(join(outDir, 'tests.json'), 'utf8')) as {
      success: boolean
      numPassedTests: number
      numTotalTests: number
    }
    expect(report.success, tests.stdout + tests.stderr).toBe(true)
    expect(report.numTotalTests).toBeGreaterThanOrEqual(4)
    expect(report.numPassedTests).toBe(report.numTotalTests)
  }, 90_000)
})
