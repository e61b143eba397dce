/**
 * The CI recipe of docs/proxy-and-recording.md, "Proxy mode" (#18), runs, with bash, against a real staging:
 * a `node:http` upstream on 127.0.0.1 written here, that keeps the Plant Store's contract or drifts
 * from it. Kept, the recipe exits 0 and the client's tests saw staging's answers; drifted, it exits
 * non-zero and its output names the violation, even where the client's tests miss the drift.
 *
 * The recipe (the section's last ```sh block) runs as a CI step would: from a file, in a client's
 * project, with `STAGING_URL` set, once under plain `bash` and once under GitHub Actions' `bash -eo
 * pipefail`. The project is made so that the recipe's commands run as written:
 * - `node_modules/.bin/plant-store-mock` is a link to the built `dist/cli.js` (the global setup builds
 *   it), where `npm install` would link the bin;
 * - `api.yaml` is a copy of the Plant Store's `openapi.yaml`, the description a client would have;
 * - `npm test` is the project's `test` script: a client test that POSTs /plants with a bearer token
 *   to `$API_URL`, prints what it got, and fails on a non-2xx (or, for the client that misses the
 *   drift, passes whatever it got).
 * One substitution: the port 4010, every occurrence, becomes a free port, so that the test never
 * takes a port another process may hold. The environment is the test runner's without npm's own
 * `npm_*` variables (set when vitest runs under npm or npx; a CI step starts without them), and with
 * `npm_config_update_notifier=false`, so that the project's `npm test` never asks the registry for a
 * newer npm: only loopback is called.
 *
 * Every wait is bounded (the recipe's own curl `--max-time` and loop, `within`, the test timeouts).
 * The recipe runs in a process group of its own, which `stopProcesses()` SIGKILLs whatever
 * happened, the mock it started included.
 */
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Answer, answerWith, createReceivers } from '../support/receivers.js'
import { cleanEnv, cliPath, freePort, root, start, stopProcesses, within } from '../support/processes.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'
import { blocksOf } from '../support/readme-blocks.js'

/** The contract check's block: the one that starts the proxy with `--errors` (recording has its own). */
const recipe =
  blocksOf('docs/proxy-and-recording.md', 'Proxy mode', 'sh')
    .map((block) => block.code)
    .find((code) => code.includes(' --errors ')) ?? ''

/** The client's test, as its project's `npm test` runs it; `strict` fails on a non-2xx answer. */
const clientTest = (strict: boolean) => `
const res = await fetch(process.env.API_URL + '/plants', {
  method: 'POST',
  headers: { authorization: 'Bearer client-token', 'content-type': 'application/json' },
  body: JSON.stringify({ id: 1, name: 'Fern' }),
  signal: AbortSignal.timeout(5000),
})
console.log('client saw ' + res.status + ' ' + (await res.text()))
process.exit(${strict} && !res.ok ? 1 : 0)
`

/** A client's project with the package installed, the description as `api.yaml` and the recipe as `ci.sh`. */
async function clientProject(port: number, strictClient: boolean): Promise<string> {
  const dir = await tempDir('mock-proxy-ci-', {
    'package.json': {
      name: 'plant-client',
      version: '1.0.0',
      private: true,
      scripts: { test: 'node client.test.mjs' },
    },
    'client.test.mjs': clientTest(strictClient),
    'ci.sh': recipe.replaceAll(/\b4010\b/g, String(port)),
  })
  copyFileSync(join(root, 'openapi.yaml'), join(dir, 'api.yaml'))
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true })
  symlinkSync(cliPath, join(dir, 'node_modules', '.bin', 'plant-store-mock'))
  return dir
}

/** The recipe's environment: the test runner's without npm's own variables, the notifier off, and staging's URL. */
function recipeEnv(stagingUrl: string): NodeJS.ProcessEnv {
  const env = cleanEnv({ STAGING_URL: stagingUrl, npm_config_update_notifier: 'false' })
  for (const name of Object.keys(env))
    if (/^npm_/i.test(name) && name !== 'npm_config_update_notifier') delete env[name]
  return env
}

interface Run {
  code: number | string
  output: string
}

/** Runs the recipe with bash and its `flags` against the staging at `stagingUrl`; resolves once it and every process holding its output (the mock) ended. */
async function runRecipe(flags: string[], stagingUrl: string, strictClient = true): Promise<Run> {
  const port = await freePort()
  const project = await clientProject(port, strictClient)
  const run = start('bash', [...flags, 'ci.sh'], {
    cwd: project,
    env: recipeEnv(stagingUrl),
    detached: true,
    endEvent: 'close',
  })
  const code = await within(25_000, 'the recipe to end and its mock to stop', run.exited)
  const output = run.stdout() + run.stderr()
  // The mock is stopped: nothing answers on its port any more.
  await expect(fetch(`http://127.0.0.1:${port}/__mock/health`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow()
  return { code, output }
}

/** Staging that keeps the contract: 200 and a Plant, the name sent and a tag only it knows. */
const keepsContract: Answer = (res, request) =>
  answerWith(200, { name: (JSON.parse(request.body) as { name: string }).name, tag: 'from-staging' })(res, request, 0)

/** Staging that drifted: 200, but a name that is not a string. */
const drifts: Answer = answerWith(200, { name: 5 })

const receivers = createReceivers()

afterEach(async () => {
  await stopProcesses()
  await receivers.closeAll()
  await removeTempDirs()
})

describe('the proxy CI recipe of docs/proxy-and-recording.md (#18)', () => {
  it('is a runnable recipe: the bin, staging’s URL, --errors, a health wait, npm test against API_URL, the journal check', () => {
    expect(recipe).toContain('node_modules/.bin/plant-store-mock proxy api.yaml "$STAGING_URL" --errors --port 4010 &')
    expect(recipe).toContain('http://127.0.0.1:4010/__mock/health')
    expect(recipe).toContain('API_URL=http://127.0.0.1:4010 npm test')
    expect(recipe).toContain('/__mock/requests/count?status=502')
    expect(recipe).toMatch(/kill \$MOCK_PID/)
    expect(recipe.trim().split('\n').length).toBeLessThanOrEqual(15)
  })

  describe.each([
    ['bash', []],
    ['bash -eo pipefail (GitHub Actions)', ['-eo', 'pipefail']],
  ])('under %s', (_, flags) => {
    it('exits 0 where staging keeps the contract, the client’s tests having seen staging’s answers', async () => {
      const staging = await receivers.start(keepsContract)
      const { code, output } = await runRecipe(flags, staging.origin)
      expect(code, output).toBe(0)
      expect(output).toContain('client saw 200 {"name":"Fern","tag":"from-staging"}')
      expect(output).not.toContain('replaced by a 502')
      expect(staging.received).toHaveLength(1)
      expect(staging.received[0]).toMatchObject({
        method: 'POST',
        url: '/plants',
        headers: { authorization: 'Bearer client-token' },
        body: '{"id":1,"name":"Fern"}',
      })
    }, 30_000)

    it('exits non-zero where staging drifts, naming the violation and the 502', async () => {
      const staging = await receivers.start(drifts)
      const { code, output } = await runRecipe(flags, staging.origin)
      expect(code, output).not.toBe(0)
      expect(output).toContain('client saw 502')
      expect(output).toContain('body.name must be a string')
      expect(output).toContain('answers of staging replaced by a 502: {"count":1}')
      expect(staging.received).toHaveLength(1)
    }, 30_000)

    it('exits non-zero where staging drifts and the client’s tests miss it: the journal check fails the job', async () => {
      const staging = await receivers.start(drifts)
      const { code, output } = await runRecipe(flags, staging.origin, false)
      expect(code, output).toBe(1)
      expect(output).toContain('client saw 502')
      expect(output).toContain('answers of staging replaced by a 502: {"count":1}')
    }, 30_000)
  })

  it('exits 1 at once where the mock cannot start, rather than testing against nothing', async () => {
    const started = Date.now()
    const { code, output } = await runRecipe([], 'not-a-url')
    expect(code, output).toBe(1)
    expect(Date.now() - started).toBeLessThan(8000) // not the 10 s of the health wait
    expect(output).toContain('[option_bad_proxy]')
    expect(output).toContain('the mock did not start')
    expect(output).not.toContain('client saw')
  }, 30_000)
})
