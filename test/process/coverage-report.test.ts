/**
 * The command line's coverage at exit (#29): `--coverage-report DIR` writes its four files when the
 * mock stops on SIGTERM, and `--coverage-min` makes the exit code 1 naming what was never exercised.
 */
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startCli, startedUrl, stopProcesses, within } from '../support/processes.js'
import { removeTempDirs, tempDir } from '../support/temp-dirs.js'

afterAll(async () => {
  await stopProcesses()
  await removeTempDirs()
})

async function addPlant(url: string): Promise<number> {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
    body: '{"id":1,"name":"Fern"}',
    signal: AbortSignal.timeout(5000),
  })
  await response.text()
  return response.status
}

describe('coverage at exit (#29)', () => {
  it('writes the report files and exits 1 when --coverage-min is missed, naming the status never exercised', async () => {
    const dir = join(await tempDir('coverage-report-'), 'reports')
    const cli = startCli(['--port', '0', '--coverage-report', dir, '--coverage-min', 'operations=100,statuses=100'])
    expect(await addPlant(await startedUrl(cli))).toBe(200)
    cli.child.kill('SIGTERM')
    expect(await within(10_000, 'the mock to exit', cli.exited)).toBe(1)
    expect(cli.stderr()).toContain('coverage below --coverage-min: statuses: 1/2 exercised (50 %), below 100 %')
    expect(cli.stderr()).toContain('never exercised: addPlant 400')
    expect((await readdir(dir)).sort()).toEqual(['coverage.html', 'coverage.json', 'coverage.md', 'junit.xml'])
    const report = JSON.parse(await readFile(join(dir, 'coverage.json'), 'utf8'))
    expect(report.summary.statuses).toEqual({ exercised: 1, total: 2 })
  })

  it('exits 0 when every threshold is met', async () => {
    const cli = startCli(['--port', '0', '--coverage-min', 'operations=100'])
    expect(await addPlant(await startedUrl(cli))).toBe(200)
    cli.child.kill('SIGTERM')
    expect(await within(10_000, 'the mock to exit', cli.exited)).toBe(0)
    expect(cli.stdout()).toContain('coverage meets --coverage-min')
  })

  it('with --workers 2, writes the counts of every worker at exit and checks --coverage-min over them', async () => {
    const dir = join(await tempDir('coverage-workers-'), 'reports')
    const cli = startCli(['--port', '0', '--workers', '2', '--coverage-report', dir, '--coverage-min', 'statuses=100'])
    const url = await startedUrl(cli)
    // Each on a connection of its own (fetch's pool may keep one): the kernel spreads them over the workers.
    const sent = 20
    const statuses = await Promise.all(
      Array.from({ length: sent }, async () => {
        const response = await fetch(`${url}/plants`, {
          method: 'POST',
          headers: { authorization: 'Bearer t', 'content-type': 'application/json', connection: 'close' },
          body: '{"id":1,"name":"Fern"}',
          signal: AbortSignal.timeout(5000),
        })
        await response.text()
        return response.status
      }),
    )
    expect(statuses.every((status) => status === 200)).toBe(true)
    // Which worker answered each is the kernel's choice: the live report, merged, counts them all.
    const live = (await (await fetch(`${url}/__mock/coverage`, { signal: AbortSignal.timeout(5000) })).json()) as {
      summary: { requests: number }
    }
    expect(live.summary.requests).toBe(sent)
    cli.child.kill('SIGTERM')
    expect(await within(15_000, 'the mock to exit', cli.exited)).toBe(1)
    expect(cli.stderr()).toContain('never exercised: addPlant 400')
    const report = JSON.parse(await readFile(join(dir, 'coverage.json'), 'utf8'))
    expect(report.summary.requests).toBe(sent)
    expect(report.operations[0].responses.find((r: { status: string }) => r.status === '200').answered).toBe(sent)
  })

  it('refuses a threshold it cannot read, naming the kinds', async () => {
    const cli = startCli(['--port', '0', '--coverage-min', 'paths=90'])
    expect(await within(10_000, 'the CLI to exit', cli.exited)).toBe(1)
    expect(cli.stderr()).toContain(
      '--coverage-min "paths=90" is not <kind>=<percent>: kinds are operations, statuses, responses, bodies, rules, events',
    )
  })
})
