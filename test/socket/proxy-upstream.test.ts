/**
 * Proxy mode (#18) over real sockets, against upstreams that misbehave the ways real ones do: a file
 * larger than the proxy would hold, streamed through as it comes; a list of Set-Cookie headers; a
 * JSON body cut short or stalled halfway; a server that never accepts the connection; an https
 * server with a self-signed certificate (test/support/tls, made with openssl for this test).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer as createHttpsServer } from 'node:https'
import { type AddressInfo, type Socket, connect } from 'node:net'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { type MockOptions, type MockServer, startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { type Answer, createReceivers } from '../support/receivers.js'

const STREAMS = join(import.meta.dirname, '../descriptions/proxy/streams.yaml')
const TLS = join(import.meta.dirname, '../support/tls')
const receivers = createReceivers()
const servers: MockServer[] = []
const cleanups: Array<() => void | Promise<void>> = []

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
  await receivers.closeAll()
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()))
})
afterAll(() => receivers.closeAll())

async function proxyTo(upstream: string, options: MockOptions = {}): Promise<MockServer> {
  const server = await startMockServer({
    spec: STREAMS,
    proxy: upstream,
    port: 0,
    logger: silentLogger,
    proxyTimeoutMs: 2000,
    ...options,
  })
  servers.push(server)
  return server
}

async function startUpstream(answer: Answer): Promise<string> {
  return (await receivers.start(answer)).origin
}

describe('answers the check need not see whole are streamed (#18)', () => {
  it('passes a file larger than the proxy would hold as it comes, its first bytes before the upstream ends', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 7)
    let finish: () => void = () => undefined
    const upstream = await startUpstream((res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      res.write(chunk)
      // The rest only once the client has read the first chunk: a proxy that held the body whole never gets here.
      finish = () => {
        for (let i = 0; i < 19; i++) res.write(chunk)
        res.end()
      }
    })
    const server = await proxyTo(upstream, { proxyTimeoutMs: 10_000 })
    const response = await fetch(`${server.url}/files/big.bin`, { signal: AbortSignal.timeout(10_000) })
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    let received = (await reader.read()).value!.byteLength
    finish()
    for (let read = await reader.read(); !read.done; read = await reader.read()) received += read.value.byteLength
    expect(received).toBe(20 * chunk.byteLength)
    expect(received).toBeGreaterThan(16 * 1024 * 1024)
    const [entry] = server.requests()
    expect(entry).toMatchObject({ status: 200, proxy: 'forwarded to the upstream' })
    expect(entry!.response).toMatchObject({ status: 200, headers: { 'content-type': 'application/octet-stream' } })
    expect(entry!.response!.body).toBeUndefined()
    expect(entry!.responseViolations).toBeUndefined()
  })

  it('passes every Set-Cookie header on, each apart', async () => {
    const upstream = await startUpstream((res) => {
      res.writeHead(204, { 'set-cookie': ['a=1; Path=/', 'b=2; Path=/'] }).end()
    })
    const server = await proxyTo(upstream)
    const response = await fetch(`${server.url}/session`, { method: 'POST' })
    expect(response.status).toBe(204)
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/'])
    const cors = await fetch(`${server.url}/session`, { method: 'POST', headers: { origin: 'http://app.test' } })
    expect(cors.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/'])
  })
})

describe('a JSON answer is read whole to be checked, and every wait ends (#18)', () => {
  it('checks the JSON body and reports what breaks the schema', async () => {
    const upstream = await startUpstream((res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('[1,"two"]')
    })
    const server = await proxyTo(upstream)
    const response = await fetch(`${server.url}/items`)
    expect(await response.text()).toBe('[1,"two"]')
    expect(JSON.parse(response.headers.get('x-mock-violations')!)).toMatchObject([
      { location: 'response.body', pointer: '/1' },
    ])
  })

  it('an answer cut short is a 502 naming the upstream', async () => {
    const upstream = await startUpstream((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
      res.write('[1,2,')
      setTimeout(() => res.destroy(), 20)
    })
    const server = await proxyTo(upstream)
    const response = await fetch(`${server.url}/items`)
    expect(response.status).toBe(502)
    expect(await response.json()).toMatchObject({ message: expect.stringContaining('cut short') })
  })

  it('a body that pauses longer than --proxy-timeout is a 504', async () => {
    const upstream = await startUpstream((res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('[1,')
    })
    const server = await proxyTo(upstream, { proxyTimeoutMs: 300 })
    const response = await fetch(`${server.url}/items`)
    expect(response.status).toBe(504)
    expect(await response.json()).toMatchObject({
      message: expect.stringContaining('stopped sending its answer for 300 ms (--proxy-timeout)'),
    })
  })
})

describe('connecting to the upstream (#18)', () => {
  it('an upstream that never accepts the connection is a 504 after --proxy-connect-timeout', async () => {
    const upstream = await startUnacceptingServer()
    const server = await proxyTo(upstream, { proxyConnectTimeoutMs: 300, proxyTimeoutMs: 10_000 })
    const started = performance.now()
    const response = await fetch(`${server.url}/items`)
    expect(response.status).toBe(504)
    expect(await response.json()).toMatchObject({
      message: expect.stringContaining('could not be connected to within 300 ms (--proxy-connect-timeout)'),
    })
    expect(performance.now() - started).toBeLessThan(5000)
  })

  it('an https upstream with a self-signed certificate is a 502 that says so, and passes with --proxy-insecure', async () => {
    const upstream = createHttpsServer(
      { key: readFileSync(join(TLS, 'self-signed.key')), cert: readFileSync(join(TLS, 'self-signed.crt')) },
      (_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('[1,2]'),
    )
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => {
      upstream.closeAllConnections()
      return new Promise((resolve) => upstream.close(() => resolve()))
    })
    const origin = `https://127.0.0.1:${(upstream.address() as AddressInfo).port}`

    const strict = await proxyTo(origin)
    const refused = await fetch(`${strict.url}/items`)
    expect(refused.status).toBe(502)
    expect(((await refused.json()) as { message: string }).message).toMatch(
      /certificate does not verify; --proxy-insecure accepts it/,
    )

    const insecure = await proxyTo(origin, { proxyInsecure: true })
    const passed = await fetch(`${insecure.url}/items`)
    expect(passed.status).toBe(200)
    expect(await passed.text()).toBe('[1,2]')
  })
})

/**
 * A server whose connections are never accepted: a child process listens with the smallest backlog
 * and blocks its own event loop; the test fills the backlog, so the kernel leaves further
 * connections unanswered. Killed after the test.
 */
async function startUnacceptingServer(): Promise<string> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:net').createServer(); s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
        console.log(s.address().port); const until = Date.now() + 30000; while (Date.now() < until) {} })`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const sockets: Socket[] = []
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy()
    child.kill('SIGKILL')
  })
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (data: Buffer) => resolve(Number(String(data).trim())))
    child.once('exit', () => reject(new Error('the unaccepting server exited')))
  })
  // Fill the backlog: connect until one connection is left unanswered (bounded: 16 tries).
  for (let i = 0; i < 16; i++) {
    const socket = connect(port, '127.0.0.1')
    sockets.push(socket)
    const connected = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 200)
      socket.once('connect', () => (clearTimeout(timer), resolve(true)))
      socket.once('error', () => (clearTimeout(timer), resolve(false)))
    })
    if (!connected) return `http://127.0.0.1:${port}`
  }
  throw new Error('the backlog never filled')
}
