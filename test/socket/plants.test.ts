/**
 * POST /plants over a real socket: the shared case table (`test/support/cases.ts`) with global fetch
 * (node:http where fetch cannot send what a case sends), then what only a socket can show: chunked
 * bodies, connections kept alive, requests the HTTP parser refuses.
 */
import {
  type Agent,
  type ClientRequest,
  type IncomingMessage,
  Agent as HttpAgent,
  request as httpRequest,
} from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import {
  cases,
  expectCase,
  expectErrorBody,
  optionsKey,
  plantOfSize,
  type RequestCase,
  sendOverSocket,
} from '../support/cases.js'
import { silentLogger } from '../../src/common/log.js'

const servers = new Map<string, Promise<MockServer>>()

function serverFor(options: RequestCase['options'] = {}): Promise<MockServer> {
  const key = optionsKey(options)
  let server = servers.get(key)
  if (!server) servers.set(key, (server = startMockServer({ port: 0, logger: silentLogger, ...options })))
  return server
}

afterAll(async () => {
  await Promise.all([...servers.values()].map(async (server) => (await server).close()))
})

describe('POST /plants over a socket', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
    const server = await serverFor(testCase.options)
    expectCase(testCase, await sendOverSocket(server.url, testCase.request))
  })
})

interface Answer {
  status: number
  headers: IncomingMessage['headers']
  text: string
  reusedSocket: boolean
}

const auth = { authorization: 'Bearer t', 'content-type': 'application/json' }

/** A POST /plants with node:http, whose body `write` sends as it likes (in pieces, chunked...). */
function postWith(
  server: MockServer,
  agent: Agent | undefined,
  write: (request: ClientRequest) => void,
  headers: Record<string, string> = auth,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${server.url}/plants`, { method: 'POST', agent, headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        resolve({
          status: response.statusCode!,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
          reusedSocket: request.reusedSocket,
        }),
      )
    })
    request.on('error', reject)
    write(request)
  })
}

/** Writes `text` in pieces of `size` bytes with no Content-Length, which makes node:http send it chunked. */
function writeChunked(text: string, size: number) {
  return (request: ClientRequest) => {
    let offset = 0
    const next = () => {
      while (offset < text.length) {
        const piece = text.slice(offset, (offset += size))
        if (!request.write(piece)) return void request.once('drain', next)
      }
      request.end()
    }
    next()
  }
}

/** Sends raw bytes on a fresh connection and returns all that comes back until the server closes it. */
function rawExchange(server: MockServer, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.write(data))
    let received = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (received += chunk))
    socket.on('end', () => resolve(received))
    socket.on('error', reject)
    socket.setTimeout(5000, () => socket.destroy(new Error(`no answer; got so far: ${received}`)))
  })
}

const VALID = '{"id":1,"name":"Fern"}'

describe('POST /plants, over a socket only', () => {
  let limited: MockServer
  let agent: HttpAgent
  beforeAll(async () => {
    limited = await serverFor({ maxBodyBytes: 1024 })
    agent = new HttpAgent({ keepAlive: true, maxSockets: 1 })
  })
  afterAll(() => agent.destroy())

  it('listens on the port it was given by port 0 and says so in its url', async () => {
    expect(limited.port).toBeGreaterThan(0)
    expect(limited.url).toBe(`http://127.0.0.1:${limited.port}`)
  })

  it('a chunked body over maxBodyBytes gets 413 naming the limit', async () => {
    const answer = await postWith(limited, undefined, writeChunked(plantOfSize(8 * 1024), 256))
    expect(answer.status).toBe(413)
    const body = JSON.parse(answer.text)
    expectErrorBody(body, 413)
    expect(body.message).toContain('1024 bytes')
  })

  it('a chunked body within maxBodyBytes is read in full', async () => {
    const answer = await postWith(limited, undefined, writeChunked(plantOfSize(1024), 100))
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.text)).toEqual({ name: JSON.parse(plantOfSize(1024)).name })
  })

  it('a chunked invalid body gets 400 naming the field', async () => {
    const answer = await postWith(limited, undefined, writeChunked('{"id":9223372036854775808,"name":"Fern"}', 7))
    expect(answer.status).toBe(400)
    const body = JSON.parse(answer.text)
    expectErrorBody(body, 400)
    expect(body.message).toContain('body.id must be a signed 64-bit integer')
  })

  it('a body sent in pieces with pauses between them is read in full', async () => {
    const answer = await postWith(limited, undefined, (request) => {
      request.write('{"id":1,')
      setTimeout(() => request.end('"name":"Fern"}'), 50)
    })
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.text)).toEqual({ name: 'Fern' })
  })

  it('two requests on a kept-alive connection share its socket', async () => {
    const first = await postWith(limited, agent, (request) => request.end(VALID))
    const second = await postWith(limited, agent, (request) => request.end(VALID))
    expect([first.status, second.status]).toEqual([200, 200])
    expect(second.reusedSocket).toBe(true)
  })

  it('a kept-alive connection still serves requests after a chunked body got 413', async () => {
    await postWith(limited, agent, (request) => request.end(VALID))
    const refused = await postWith(limited, agent, writeChunked(plantOfSize(8 * 1024), 256))
    expect(refused.status).toBe(413)
    const next = await postWith(limited, agent, (request) => request.end(VALID))
    expect(next.status).toBe(200)
    expect(JSON.parse(next.text)).toEqual({ name: 'Fern' })
  })

  it('a declared Content-Length over the limit gets 413 before the body is sent', async () => {
    const answer = await postWith(
      limited,
      undefined,
      (request) => {
        request.flushHeaders()
        // The body never comes: only the header can have decided.
      },
      { ...auth, 'content-length': '5000' },
    )
    expect(answer.status).toBe(413)
    expectErrorBody(JSON.parse(answer.text), 413)
  })

  it('two different Content-Length headers get 400 from the parser and the server stays up', async () => {
    const answer = await rawExchange(
      limited,
      'POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc',
    )
    expect(answer).toMatch(/^HTTP\/1\.1 400 /)
    const next = await postWith(limited, undefined, (request) => request.end(VALID))
    expect(next.status).toBe(200)
  })

  it('a raw chunked request with Connection: close gets its answer and a closed connection', async () => {
    const answer = await rawExchange(
      limited,
      'POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\n{"id"\r\n0\r\n\r\n',
    )
    expect(answer).toMatch(/^HTTP\/1\.1 400 /)
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
    expectErrorBody(body, 400)
    expect(body.message).toContain('body is not valid JSON')
  })

  it('a client that drops the connection mid-body leaves the server serving', async () => {
    await new Promise<void>((resolve) => {
      const request = httpRequest(`${limited.url}/plants`, {
        method: 'POST',
        headers: { ...auth, 'content-length': '500' },
      })
      request.on('error', () => resolve())
      request.write('{"id":1,')
      setTimeout(() => request.destroy(), 20)
    })
    const next = await postWith(limited, undefined, (request) => request.end(VALID))
    expect(next.status).toBe(200)
  })

  it('a closed server refuses connections', async () => {
    const server = await startMockServer({ port: 0, logger: silentLogger })
    await server.close()
    await expect(fetch(`${server.url}/plants`, { method: 'POST' })).rejects.toThrow()
  })
})
