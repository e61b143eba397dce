/**
 * The journal packs the parser's raw header list joined by a line feed (`src/journal/record-columns.ts`):
 * that holds only while Node's parser never lets a CR or LF into a header name or value. Checked here
 * against Node itself, strict and with `insecureHTTPParser`, so that a Node that changes it fails CI.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { connect, statusOf, within } from '../support/raw-socket.js'

const servers: http.Server[] = []
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))))

async function rawHeadersServer(insecureHTTPParser: boolean): Promise<number> {
  const server = http.createServer({ joinDuplicateHeaders: true, insecureHTTPParser }, (request, response) =>
    response.end(JSON.stringify(request.rawHeaders)),
  )
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

/** The raw header list the server read, or the status it refused the request with. */
async function sendHeader(port: number, line: string): Promise<string[] | number> {
  const connection = await connect(port)
  connection.socket.write(`GET / HTTP/1.1\r\nHost: x\r\n${line}\r\nConnection: close\r\n\r\n`)
  await within(3000, 'the answer', connection.closed)
  const text = connection.received()
  const status = statusOf(text)!
  return status === 200 ? (JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as string[]) : status
}

describe.each([false, true])('Node’s parser, insecureHTTPParser %s', (insecure) => {
  it('refuses a CR or a LF in a header value or name, and joins a folded line with a space', async () => {
    const port = await rawHeadersServer(insecure)
    expect(await sendHeader(port, 'X-A: one\ntwo')).toBe(400)
    expect(await sendHeader(port, 'X-A: one\rtwo')).toBe(400)
    expect(await sendHeader(port, 'X-\nA: one')).toBe(400)
    const folded = await sendHeader(port, 'X-A: one\r\n two')
    if (insecure) expect(folded).toEqual(['Host', 'x', 'X-A', 'one two', 'Connection', 'close'])
    else expect(folded).toBe(400)
  })
})
