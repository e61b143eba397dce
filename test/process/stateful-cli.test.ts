/**
 * Stateful mode (#15) from the command line (`node dist/cli.js`): the resource lines at start-up,
 * the state file written on SIGTERM and SIGINT and read by the next run, MOCK_STATEFUL and
 * MOCK_STATE_FILE, and the options start-up refuses. Every wait is bounded; traffic stays on loopback.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Spawned, runCli, startCli, startedUrl, stopProcesses, within } from '../support/processes.js'
import { gardenSpec } from '../support/stateful.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

afterEach(async () => {
  await stopProcesses()
  await removeTempDirs()
})

const auth = { authorization: 'Bearer t', 'content-type': 'application/json' }
const GARDEN = ['--spec', gardenSpec, '--port', '0']

async function started(args: string[], env: Record<string, string> = {}): Promise<Spawned & { url: string }> {
  const cli = startCli(args, env)
  return { ...cli, url: await startedUrl(cli, 10_000) }
}

async function post(url: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(url + path, { method: 'POST', headers: auth, body: JSON.stringify(body) })
  return { status: response.status, json: await response.json() }
}

async function stopWith(cli: Spawned, signal: NodeJS.Signals): Promise<void> {
  cli.child.kill(signal)
  expect(await within(5000, `exit after ${signal}`, cli.exited)).toBe(0)
}

describe('stateful mode from the command line', () => {
  it('--stateful prints one line per resource at start-up: name, operations, id field', async () => {
    const cli = await started([...GARDEN, '--stateful'])
    const lines = cli.stdout().split('\n')
    const resources = lines.filter((line) => /^\[mock\] resource /.test(line))
    expect(resources.map((line) => line.match(/^\[mock\] resource ([a-z]+):/)![1])).toEqual([
      'plants',
      'gardens',
      'beds',
      'packets',
    ])
    expect(resources[0]).toContain('create, list, read, replace, merge, remove (id field id, integer)')
    expect(resources[2]).toContain('(id field bedId, integer)')
    expect(resources[3]).toContain('(id field sku, string)')
    // The resource lines come before the start line.
    const listening = lines.findIndex((line) => line.includes('listening on'))
    expect(lines.indexOf(resources[3]!)).toBeLessThan(listening)
    await stopWith(cli, 'SIGTERM')
  })

  it('without --stateful no resource line is printed and a create is not remembered', async () => {
    const cli = await started(GARDEN)
    expect(cli.stdout()).not.toMatch(/\] resource /)
    expect((await post(cli.url, '/plants', { id: 1, name: 'Fern' })).status).toBe(201)
    expect((await post(cli.url, '/plants', { id: 1, name: 'Fern' })).status).toBe(201)
    await stopWith(cli, 'SIGTERM')
  })

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s writes what was acknowledged to --state-file, and the next run serves it',
    async (signal) => {
      const dir = await tempDir('stateful-cli-')
      const stateFile = join(dir, 'data.json')
      const cli = await started([...GARDEN, '--stateful', '--state-file', stateFile])
      const created = await post(cli.url, '/plants', { name: 'Fern', tag: 'shade' })
      expect(created).toEqual({ status: 201, json: { id: 1, name: 'Fern', tag: 'shade' } })
      await stopWith(cli, signal)
      expect(cli.stdout()).toContain('created plants/1')

      const saved = JSON.parse(await readFile(stateFile, 'utf8'))
      expect(saved).toMatchObject({ version: 1, data: { plants: [{ id: 1, name: 'Fern', tag: 'shade' }] } })

      const next = await started([...GARDEN, '--state-file', stateFile])
      const listed = await fetch(`${next.url}/plants`, { headers: auth })
      expect(await listed.json()).toEqual({ items: [{ id: 1, name: 'Fern', tag: 'shade' }], total: 1 })
      expect((await post(next.url, '/plants', { name: 'Ivy' })).json.id).toBe(2)
      await stopWith(next, 'SIGTERM')
    },
  )

  it('MOCK_STATEFUL=true turns stateful mode on', async () => {
    const cli = await started(GARDEN, { MOCK_STATEFUL: 'true' })
    expect(cli.stdout()).toMatch(/\] resource plants: /)
    expect((await post(cli.url, '/plants', { id: 1, name: 'Fern' })).status).toBe(201)
    const again = await post(cli.url, '/plants', { id: 1, name: 'Fern' })
    expect(again).toEqual({ status: 400, json: { error: 400, message: 'A plant with id 1 already exists.' } })
    await stopWith(cli, 'SIGTERM')
  })

  it('MOCK_STATE_FILE names the state file', async () => {
    const dir = await tempDir('stateful-cli-')
    const stateFile = join(dir, 'data.json')
    const cli = await started(GARDEN, { MOCK_STATEFUL: 'true', MOCK_STATE_FILE: stateFile })
    await post(cli.url, '/plants', { name: 'From env' })
    await stopWith(cli, 'SIGTERM')
    expect(JSON.parse(await readFile(stateFile, 'utf8')).data.plants).toEqual([{ id: 1, name: 'From env' }])
  })

  it('--state-limit 1 refuses the second create with 400 naming the limit', async () => {
    const cli = await started([...GARDEN, '--stateful', '--state-limit', '1'])
    expect((await post(cli.url, '/plants', { name: 'Fern' })).status).toBe(201)
    const refused = await post(cli.url, '/plants', { name: 'Ivy' })
    expect(refused.status).toBe(400)
    expect(refused.json.message).toContain('at most 1 plants')
    await stopWith(cli, 'SIGTERM')
  })

  it('--state-limit 0 is refused at start-up with option_bad_state_limit', async () => {
    const run = await runCli([...GARDEN, '--stateful', '--state-limit', '0'])
    expect(run.code).toBe(1)
    expect(run.stdout).not.toContain('listening on')
    expect(run.stderr).toContain('from 1 up')
    expect(run.stderr.trim().endsWith('[option_bad_state_limit]'), run.stderr).toBe(true)
  })

  it.each(['--state-limit=-1', '--state-limit=many', '--state-limit=1.5'])(
    '%s is refused at start-up as a flag value that is not a whole number',
    async (flag) => {
      const run = await runCli([...GARDEN, '--stateful', flag])
      expect(run.code).toBe(1)
      expect(run.stdout).not.toContain('listening on')
      expect(run.stderr).toContain('--state-limit takes a whole number')
      expect(run.stderr.trim().endsWith('[cli_bad_value]'), run.stderr).toBe(true)
    },
  )

  it('a corrupt --state-file stops start-up with state_file_invalid and is left as it was', async () => {
    const dir = await tempDir('stateful-cli-')
    const stateFile = join(dir, 'data.json')
    const corrupt = '{"version":1,"data":{"plants":[{"id":1,'
    await writeFile(stateFile, corrupt)
    const run = await runCli([...GARDEN, '--stateful', '--state-file', stateFile])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(stateFile)
    expect(run.stderr.trim().endsWith('[state_file_invalid]'), run.stderr).toBe(true)
    expect(await readFile(stateFile, 'utf8')).toBe(corrupt)
  })

  it('a bad seed record stops start-up with state_seed_invalid naming the file, index and field', async () => {
    const dir = await tempDir('stateful-cli-', { 'data/plants.json': [{ name: 'Fern' }, { name: 7 }] })
    const run = await runCli([...GARDEN, '--stateful', '--fixtures', dir])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(join(dir, 'data', 'plants.json'))
    expect(run.stderr).toContain('[1].name')
    expect(run.stderr.trim().endsWith('[state_seed_invalid]'), run.stderr).toBe(true)
  })
})
