/**
 * Child processes for the tests that run the bin: spawn with stdout/stderr captured, every child
 * tracked until `stopProcesses()` kills what is still running, a `within` timeout, the start-line
 * wait and an environment free of the test runner's PORT, HOST and MOCK_* variables.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import * as net from 'node:net'
import { fileURLToPath } from 'node:url'

/** The root of this clone, where `npm run build` writes dist/. */
export const root = fileURLToPath(new URL('../..', import.meta.url))
/** The built bin, `node dist/cli.js`. */
export const cliPath = fileURLToPath(new URL('../../dist/cli.js', import.meta.url))

/** Rejects after `ms`, naming what it waited for. */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** The test runner's environment without PORT, HOST and MOCK_*, then `overrides`. */
export function cleanEnv(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const name of Object.keys(env))
    if (name === 'PORT' || name === 'HOST' || name.startsWith('MOCK_')) delete env[name]
  return { ...env, ...overrides }
}

export interface Spawned {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>
}

export interface StartOptions {
  cwd: string
  env: NodeJS.ProcessEnv
  /** In a process group of its own, which `stopProcesses()` then kills as a whole. */
  detached?: boolean
  /** 'close' waits for the stdio pipes too, e.g. when a grandchild shares them. Default 'exit'. */
  endEvent?: 'exit' | 'close'
}

const running = new Set<ChildProcess>()
const detachedChildren = new WeakSet<ChildProcess>()

/** Spawns `command`, collecting its stdout and stderr; the child is tracked for `stopProcesses()`. */
export function start(
  command: string,
  args: string[],
  { cwd, env, detached = false, endEvent = 'exit' }: StartOptions,
): Spawned {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached })
  running.add(child)
  if (detached) detachedChildren.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | string>((resolve) =>
    child.once(endEvent, (code: number | null, signal: NodeJS.Signals | null) => resolve(code ?? signal ?? -1)),
  )
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

/** Sends `signal` to the child's process group (a detached child), or to the child alone. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal)
  } catch {
    child.kill(signal)
  }
}

/** SIGKILLs every tracked child still running (its group if detached) and waits for each to exit. */
export async function stopProcesses(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const gone = new Promise((resolve) => child.once('exit', resolve))
      if (detachedChildren.has(child)) killGroup(child, 'SIGKILL')
      else child.kill('SIGKILL')
      await gone
    }),
  )
  running.clear()
}

/** Starts the bin with `args` in a clean environment plus `env`. */
export function startCli(args: string[], env: Record<string, string> = {}): Spawned {
  return start(process.execPath, [cliPath, ...args], { cwd: root, env: cleanEnv(env) })
}

/** Runs the bin to its end, bounded. */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const cli = startCli(args, env)
  const code = await within(10_000, 'the CLI to exit', cli.exited)
  return { code, stdout: cli.stdout(), stderr: cli.stderr() }
}

/** Waits until stdout holds a match of `pattern`; fails if the process ends first. */
export function waitForOutput(
  spawned: Spawned,
  pattern: RegExp,
  ms = 5000,
  what = `${pattern} on stdout`,
): Promise<RegExpMatchArray> {
  const found = new Promise<RegExpMatchArray>((resolve, reject) => {
    const check = () => {
      const match = spawned.stdout().match(pattern)
      if (match) {
        spawned.child.stdout!.off('data', check)
        resolve(match)
      }
    }
    spawned.child.stdout!.on('data', check)
    void spawned.exited.then((code) =>
      reject(
        new Error(
          `${spawned.child.spawnfile} exited (${code}) before printing ${pattern}; stderr: ${spawned.stderr()}`,
        ),
      ),
    )
    check()
  })
  return within(ms, what, found)
}

/** The URL of the start line ("... listening on http://host:port ..."; text or JSON log format). */
export async function startedUrl(spawned: Spawned, ms = 5000): Promise<string> {
  const [, url] = await waitForOutput(spawned, /listening on (http:\/\/[^\s"]+)/, ms, 'the start line')
  return url!
}

/** A port the OS just handed out and that nothing holds now. */
export async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}
