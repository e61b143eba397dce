/**
 * `close()` of the mock's server ends keep-alive connections with their last response, at once rather
 * than after the 5 s keep-alive timeout: a response under way when it begins, and one to a request
 * whose head was still arriving, say `Connection: close` (#5, #34 §6 moved this off the request path).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'
import { type ListeningServer, SERVER_LIMITS, listen } from '../../src/node/server.js'
import { type RawConnection, connect, sleep, statusOf, within } from '../support/raw-socket.js'

const sockets: RawConnection[] = []
const servers: ListeningServer[] = []

afterEach(async () => {
  for (const { socket } of sockets.splice(0)) socket.destroy()
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function serve(): Promise<ListeningServer> {
  const app = await createApp({ quiet: true })
  const server = await listen(app, { port: 0, host: '127.0.0.1', limits: SERVER_LIMITS })
  servers.push(server)
  return server
}

async function open(server: ListeningServer): Promise<RawConnection> {
  const connection = await connect(server.port)
  sockets.push(connection)
  return connection
}

const BODY = '{"id":1,"name":"Fern"}'
const head = (extra = '') =>
  `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nAuthorization: Bearer t\r\n` +
  `Content-Type: application/json\r\nContent-Length: ${BODY.length}\r\n${extra}`

async function untilAnswered(connection: RawConnection): Promise<string> {
  await within(
    3000,
    'the answer',
    (async () => {
      while (!/\r\n\r\n\{/.test(connection.received())) await sleep(10)
    })(),
  )
  return connection.received()
}

/** The answer came with `Connection: close`, then the server closed the connection, and `close()` resolved, all within 2 s. */
async function expectEndedWithItsAnswer(
  connection: RawConnection,
  closed: Promise<void>,
  startedAt: number,
): Promise<void> {
  const answer = await untilAnswered(connection)
  expect(statusOf(answer)).toBe(200)
  expect(answer).toMatch(/\r\nConnection: close\r\n/i)
  await within(2000, 'the server closing the connection', connection.closed)
  await within(2000, 'close() to resolve', closed)
  expect(performance.now() - startedAt).toBeLessThan(2000)
}

describe('close() and keep-alive connections', () => {
  it('ends a connection whose response was under way when close() began, with that response', async () => {
    const server = await serve()
    const connection = await open(server)
    connection.socket.write(`${head('Prefer: delay=300\r\n')}\r\n${BODY}`)
    await sleep(100)
    const startedAt = performance.now()
    const closed = server.close()
    await expectEndedWithItsAnswer(connection, closed, startedAt)
  })

  it('ends a connection whose request head was still arriving when close() began', async () => {
    const server = await serve()
    const connection = await open(server)
    connection.socket.write('POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\n')
    await sleep(50)
    const startedAt = performance.now()
    const closed = server.close()
    await sleep(50)
    connection.socket.write(`${head().slice(head().indexOf('Connection:'))}\r\n${BODY}`)
    await expectEndedWithItsAnswer(connection, closed, startedAt)
  })
})
