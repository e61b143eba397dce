import { afterEach, describe, expect, it } from 'vitest'
import { startCli, startedUrl, stopProcesses, within } from '../support/processes.js'

/** Request lines of the bin (issue #6): each server on port 0, each child killed after its test. */
afterEach(stopProcesses)

/** Starts the bin, sends a valid and an invalid POST /plants, stops it with SIGTERM; returns what it printed. */
async function serveTwoRequests(args: string[], env: Record<string, string> = {}) {
  const cli = startCli(['--port', '0', ...args], env)
  const url = await startedUrl(cli, 10_000)
  for (const body of [
    { id: 1, name: 'Fern' },
    { id: 1, name: 5 },
  ]) {
    const res = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    })
    await res.arrayBuffer()
  }
  await fetch(`${url}/__mock/health`, { signal: AbortSignal.timeout(5000) }).then((res) => res.arrayBuffer())
  cli.child.kill('SIGTERM')
  const code = await within(10_000, 'the exit after SIGTERM', cli.exited)
  return { code, stdout: cli.stdout(), stderr: cli.stderr() }
}

describe('request lines of the CLI', () => {
  it('prints a readable line per request by default, with the first violation of a 400, and none for admin calls #6', async () => {
    const { code, stdout } = await serveTwoRequests([])
    expect(code).toBe(0)
    const lines = stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^\[mock\] Plant Store .* listening on /)
    expect(lines.slice(1, 3)).toEqual([
      expect.stringMatching(/^\[mock\] POST \/plants 200 \d+(\.\d)? ms scenario=default$/),
      expect.stringMatching(/^\[mock\] POST \/plants 400 \d+(\.\d)? ms scenario=default: body\.name must be a string$/),
    ])
    expect(stdout).not.toContain('/__mock/health')
    expect(lines.at(-1)).toContain('SIGTERM: finishing in-flight requests')
  })

  it('prints one JSON object per line with --log-format json, the start line included #6', async () => {
    const { code, stdout } = await serveTwoRequests(['--log-format', 'json'])
    expect(code).toBe(0)
    const objects = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(objects[0]).toMatchObject({ level: 'info', message: expect.stringContaining('listening on http://') })
    expect(objects.filter((o) => o.type === 'request')).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/plants',
        operation: 'addPlant',
        status: 200,
        scenario: 'default',
        durationMs: expect.any(Number),
      }),
      expect.objectContaining({ status: 400, violations: [{ path: 'body.name', message: 'must be a string' }] }),
    ])
  })

  it('takes the log format from MOCK_LOG_FORMAT #6', async () => {
    const { stdout } = await serveTwoRequests([], { MOCK_LOG_FORMAT: 'json' })
    expect(
      stdout
        .trim()
        .split('\n')
        .filter((line) => JSON.parse(line).type === 'request'),
    ).toHaveLength(2)
  })

  it('prints no request line with --quiet, but still the start line #6', async () => {
    const { code, stdout } = await serveTwoRequests(['--quiet'])
    expect(code).toBe(0)
    expect(stdout).toContain('listening on http://')
    expect(stdout).not.toContain('POST /plants 200')
    expect(stdout).not.toContain('POST /plants 400')
  })

  it('refuses an unknown --log-format at start-up with exit code 1 #6', async () => {
    const cli = startCli(['--port', '0', '--log-format', 'xml'])
    const code = await within(10_000, 'the exit', cli.exited)
    expect(code).toBe(1)
    expect(cli.stderr()).toContain('[cli_bad_value]')
    expect(cli.stderr()).toContain('--log-format takes "text" or "json", got "xml"')
  })
})
