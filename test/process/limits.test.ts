/**
 * Limits on a real socket (#5): the body limit stops reading early, also for chunked bodies; large
 * headers get 431; slow clients are cut by the headers and request timeouts and block nobody else.
 * The timeouts are tested with short values through the internal `listen(app, { limits })`.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { type ListeningServer, SERVER_LIMITS, type ServerLimits, listen } from '../../src/node/server.js'
import { type RawConnection, connect, sleep, statusOf, streamChunked, within } from '../support/raw-socket.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url))

const servers: ListeningServer[] = []
const sockets: RawConnection[] = []
const children: ChildProcess[] = []

afterEach(async () => {
  for (const { socket } of sockets.splice(0)) socket.destroy()
  await Promise.all(servers.splice(0).map((server) => server.close()))
  await Promise.all(
    children.splice(0).map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const gone = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await gone
    }),
  )
})

async function serve(
  limits: Partial<ServerLimits> = {},
  options: Parameters<typeof createApp>[0] = {},
): Promise<ListeningServer> {
  const app = await createApp(options)
  const server = await listen(app, { port: 0, host: '127.0.0.1', limits: { ...SERVER_LIMITS, ...limits } })
  servers.push(server)
  return server
}

async function open(port: number): Promise<RawConnection> {
  const connection = await connect(port)
  sockets.push(connection)
  return connection
}

/** The CLI as a separate process, so that its memory can be read from /proc. */
async function startCli(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [cli, '--port', '0', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let out = ''
  const url = await within(
    10_000,
    'the start line',
    new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8')
        const match = /listening on (http:\/\/\S+)/.exec(out)
        if (match) resolve(match[1]!)
      })
      child.once('exit', (code) => reject(new Error(`the CLI exited (${code}) before listening`)))
    }),
  )
  return { child, port: Number(new URL(url).port) }
}

const rssMiBOf = (pid: number) =>
  Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

const postHead = (extra: string) =>
  `POST /plants HTTP/1.1\r\nHost: mock\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\n${extra}\r\n`

async function postPlant(url: string): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  const res = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
    body: '{"id":1,"name":"Fern"}',
    signal: AbortSignal.timeout(5000),
  })
  await res.arrayBuffer()
  return { status: res.status, ms: performance.now() - started }
}

describe('body limit on a socket', () => {
  it('answers 413 to an endless chunked body, closes the connection and stops reading early (#5)', async () => {
    const { child, port } = await startCli(['--max-body', '64kb'])
    const rssBefore = rssMiBOf(child.pid!)
    const connection = await open(port)
    connection.socket.write(postHead('Transfer-Encoding: chunked\r\n'))
    // 256 MiB offered; a server that drained it all would take it in well under the 15 s allowed.
    const { sent, stoppedBy } = await streamChunked(connection, { maxBytes: 256 * 2 ** 20, ms: 15_000 })
    await within(3000, 'the server to close the connection', connection.closed)
    expect(statusOf(connection.received())).toBe(413)
    expect(connection.received()).toMatch(/\r\nconnection: close\r\n/i)
    expect(stoppedBy).toBe('closed')
    // What the kernel and Node buffered before the server stopped: a few MiB at most, not the body.
    expect(sent).toBeLessThan(16 * 2 ** 20)
    expect(rssMiBOf(child.pid!) - rssBefore).toBeLessThan(32)
  })

  it('answers 413 to a declared Content-Length over the limit before any body byte is sent, and closes (#5)', async () => {
    const { url, port } = await serve({}, { maxBodyBytes: 1024 })
    const connection = await open(port)
    connection.socket.write(postHead('Content-Length: 1000000000\r\n'))
    await within(3000, 'the server to close the connection', connection.closed)
    expect(statusOf(connection.received())).toBe(413)
    expect((await postPlant(url)).status).toBe(200)
  })
})

describe('header size', () => {
  it('answers 431 to request headers over 16 KiB, with the production limits (#5)', async () => {
    const { url, port } = await serve()
    const connection = await open(port)
    connection.socket.write(
      postHead(`X-Padding: ${'a'.repeat(SERVER_LIMITS.maxHeaderBytes)}\r\nContent-Length: 2\r\n`) + '{}',
    )
    await within(3000, 'the server to close the connection', connection.closed)
    expect(statusOf(connection.received())).toBe(431)
    expect((await postPlant(url)).status).toBe(200)
  })

  it('accepts request headers just under the limit (#5)', async () => {
    const { url } = await serve()
    const res = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer t',
        'content-type': 'application/json',
        'x-padding': 'a'.repeat(SERVER_LIMITS.maxHeaderBytes - 1024),
      },
      body: '{"id":1,"name":"Fern"}',
      signal: AbortSignal.timeout(5000),
    })
    expect(res.status).toBe(200)
  })
})

describe('slow clients', () => {
  const short = { headersTimeoutMs: 1500, requestTimeoutMs: 3000, checkIntervalMs: 100 }

  it('cuts a slow-loris connection sending headers one byte per second at the headers timeout (#5)', async () => {
    const { port } = await serve(short)
    const connection = await open(port)
    const started = performance.now()
    const head = postHead('Content-Length: 2\r\n')
    const trickle = (async () => {
      for (const byte of head) {
        if (connection.isClosed()) return
        connection.socket.write(byte)
        await sleep(1000)
      }
    })()
    const closedAt = await within(5000, 'the server to cut the slow-loris', connection.closed)
    await trickle
    expect(closedAt - started).toBeGreaterThanOrEqual(short.headersTimeoutMs - 100)
    expect(closedAt - started).toBeLessThan(short.headersTimeoutMs + 1500)
    expect(statusOf(connection.received())).toBe(408)
  })

  it('serves other clients promptly while 50 slow-loris connections hold on (#5)', async () => {
    const { url, port } = await serve(short)
    const loris = await Promise.all(Array.from({ length: 50 }, () => open(port)))
    for (const connection of loris) connection.socket.write('POST /plants HTTP/1.1\r\nHost: mock\r\nX-Slow: ')
    const timings: number[] = []
    for (let i = 0; i < 10; i++) {
      for (const connection of loris) if (!connection.isClosed()) connection.socket.write('a')
      const { status, ms } = await postPlant(url)
      expect(status).toBe(200)
      timings.push(ms)
      await sleep(50)
    }
    expect(Math.max(...timings)).toBeLessThan(500)
    // Then every one of them is cut.
    await within(5000, 'every slow-loris to be cut', Promise.all(loris.map((c) => c.closed)))
  })

  it('cuts a client trickling its body at the request timeout with 408 (#5)', async () => {
    const { url, port } = await serve(short)
    const connection = await open(port)
    const started = performance.now()
    connection.socket.write(postHead('Content-Length: 1000\r\n'))
    const trickle = (async () => {
      while (!connection.isClosed() && performance.now() - started < 8000) {
        connection.socket.write(' ')
        await sleep(200)
      }
    })()
    const closedAt = await within(6000, 'the server to cut the slow body', connection.closed)
    await trickle
    expect(closedAt - started).toBeGreaterThanOrEqual(short.requestTimeoutMs - 100)
    expect(closedAt - started).toBeLessThan(short.requestTimeoutMs + 1500)
    expect(statusOf(connection.received())).toBe(408)
    expect((await postPlant(url)).status).toBe(200)
  })

  it('closes an idle keep-alive connection after the keep-alive timeout (#5)', async () => {
    const { port } = await serve({ ...short, keepAliveTimeoutMs: 500 })
    const connection = await open(port)
    const body = '{"id":1,"name":"Fern"}'
    connection.socket.write(postHead(`Content-Length: ${body.length}\r\n`) + body)
    const answeredAt = await within(
      3000,
      'the answer',
      new Promise<number>((resolve) => connection.socket.once('data', () => resolve(performance.now()))),
    )
    const closedAt = await within(3000, 'the idle connection to be closed', connection.closed)
    expect(statusOf(connection.received())).toBe(200)
    expect(closedAt - answeredAt).toBeLessThan(2000)
  })

  it('keeps the production limits bounded and ordered: headers within request, both finite (#5)', () => {
    expect(SERVER_LIMITS.headersTimeoutMs).toBeGreaterThan(0)
    expect(SERVER_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(SERVER_LIMITS.requestTimeoutMs)
    expect(SERVER_LIMITS.requestTimeoutMs).toBeLessThanOrEqual(60_000)
    expect(SERVER_LIMITS.checkIntervalMs).toBeLessThanOrEqual(SERVER_LIMITS.headersTimeoutMs)
  })
})
