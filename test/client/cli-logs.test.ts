import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'

/** Request lines of the bin (issue #6): each server on port 0, each child killed after its test. */
const root = fileURLToPath(new URL('../..', import.meta.url))
const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url))
const running = new Set<ChildProcess>()

afterEach(() => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  running.clear()
})

beforeAll(() => {
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'pipe' })
}, 120_000)

function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** Starts the bin, sends a valid and an invalid POST /plants, stops it with SIGTERM; returns what it printed. */
async function serveTwoRequests(args: string[], env: Record<string, string> = {}) {
  const inherited = { ...process.env }
  for (const name of ['PORT', 'HOST', 'MOCK_LOG_FORMAT']) delete inherited[name]
  const child = spawn(process.execPath, [cli, '--port', '0', ...args], { cwd: root, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  running.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  const url = await within(
    10_000,
    'the start line',
    new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', () => {
        const match = /listening on (http:\/\/[^\s"]+)/.exec(stdout)
        if (match) resolve(match[1]!)
      })
      exited.then((code) => reject(new Error(`exited (${code}) before listening: ${stderr}`)))
    }),
  )
  for (const body of [{ id: 1, name: 'Fern' }, { id: 1, name: 5 }]) {
    const res = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    })
    await res.arrayBuffer()
  }
  await fetch(`${url}/__mock/health`, { signal: AbortSignal.timeout(5000) }).then((res) => res.arrayBuffer())
  child.kill('SIGTERM')
  const code = await within(10_000, 'the exit after SIGTERM', exited)
  return { code, stdout, stderr }
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
    const objects = stdout.trim().split('\n').map((line) => JSON.parse(line))
    expect(objects[0]).toMatchObject({ level: 'info', message: expect.stringContaining('listening on http://') })
    expect(objects.filter((o) => o.type === 'request')).toEqual([
      expect.objectContaining({ method: 'POST', path: '/plants', operation: 'addPlant', status: 200, scenario: 'default', durationMs: expect.any(Number) }),
      expect.objectContaining({ status: 400, violations: [{ path: 'body.name', message: 'must be a string' }] }),
    ])
  })

  it('takes the log format from MOCK_LOG_FORMAT #6', async () => {
    const { stdout } = await serveTwoRequests([], { MOCK_LOG_FORMAT: 'json' })
    expect(stdout.trim().split('\n').filter((line) => JSON.parse(line).type === 'request')).toHaveLength(2)
  })

  it('prints no request line with --quiet, but still the start line #6', async () => {
    const { code, stdout } = await serveTwoRequests(['--quiet'])
    expect(code).toBe(0)
    expect(stdout).toContain('listening on http://')
    expect(stdout).not.toContain('POST /plants 200')
    expect(stdout).not.toContain('POST /plants 400')
  })

  it('refuses an unknown --log-format at start-up with exit code 1 #6', async () => {
    const child = spawn(process.execPath, [cli, '--port', '0', '--log-format', 'xml'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    running.add(child)
    let stderr = ''
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const code = await within(10_000, 'the exit', new Promise((resolve) => child.once('exit', (c) => resolve(c))))
    expect(code).toBe(1)
    expect(stderr).toContain('log format must be "text" or "json", got "xml"')
  })
})
