/**
 * A real Redis for the tests of `--store redis://` (#32): Debian's `redis-server` on a free loopback
 * port, with no persistence (`--save ""`, `--appendonly no`), or `durable`, every write in an
 * append-only file synced before it is acknowledged, so that a crash loses nothing acknowledged;
 * answering PING before it is handed over.
 * `.ci/run` installs it when it is missing. No mock of Redis anywhere.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import * as net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, within } from './processes.js'

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  url: string
  port: number
  /** Stops the server (SIGKILL after 5 s) and waits for it to exit. */
  stop(): Promise<void>
  /** Starts it again on the same port: empty, or when durable with every acknowledged write (a Redis lost mid-run and back). */
  restart(): Promise<void>
  /** Kills it at once (SIGKILL), as a crash or an OOM kill would. */
  crash(): Promise<void>
  /** Freezes it (SIGSTOP): connections stay open, nothing is answered, nothing is lost. */
  pause(): void
  /** Lets a frozen server go on (SIGCONT), its data as it was. */
  resume(): void
}

/** How long a fresh redis-server may take to answer PING. */
const READY_MS = 10_000

/** Starts `redis-server` on a free loopback port and resolves once it answers PING. */
export async function startRedisServer({ durable = false }: { durable?: boolean } = {}): Promise<RedisServer> {
  const port = await freePort()
  const dir = durable ? await mkdtemp(join(tmpdir(), 'redis-')) : undefined
  let child = await launch(port, dir)
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await stopChild(child)
      if (dir) await rm(dir, { recursive: true, force: true })
    },
    restart: async () => {
      await stopChild(child)
      child = await launch(port, dir)
    },
    crash: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      else return
      await exited
    },
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
  }
}

async function launch(port: number, dir?: string): Promise<ChildProcess> {
  const persistence = dir ? ['--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence]
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`redis-server did not start: ${error.message}`)))
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before answering PING:\n${output}`)))
  })
  failed.catch(() => {})
  await within(READY_MS, `redis-server on port ${port} to answer PING`, Promise.race([untilPong(port), failed]))
  return child
}

/** PING over a raw socket until +PONG, every 50 ms (bounded by the caller's `within`). */
async function untilPong(port: number): Promise<void> {
  for (;;) {
    if (await pings(port)) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.setTimeout(1000, () => socket.destroy())
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (data) => {
      socket.destroy()
      resolve(data.toString().startsWith('+PONG'))
    })
    socket.once('error', () => resolve(false))
    socket.once('close', () => resolve(false))
  })
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGCONT')
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}
