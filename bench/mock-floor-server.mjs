#!/usr/bin/env node
// The floor under the mock's request path (#34 §6): the mock's own process, heap and server, with the
// pipeline taken out. It starts as the command line does (its heap cap, the embedded description loaded
// by startMockServer, listening on a port of its own that no load reaches), then listens again with the
// mock's server module (`listen`: its limits, connection caps and in-flight set), and answers every
// request on that port through the server's own lane with the mock's body reader (`NodeConnection`),
// a JSON.parse and the mock's writer (`writeReply`), one fixed reply made once as bytes.
//
// What it leaves out is what the mock does on top: route, credentials, validation, the scenario and
// Prefer, the answer's choice and render, the journal, the coverage and the request line. The
// difference between it and `dist/cli.js` is what those cost (bench/gap.mjs).
//
//   node bench/mock-floor-server.mjs [--port 0]   prints "mock-floor listening on http://127.0.0.1:PORT"
import { parseArgs } from 'node:util'
import { growYoungGenerationToCap, keepHeapSmall } from '../dist/command-line/small-heap.js'

keepHeapSmall()
const { startMockServer } = await import('../dist/index.js')
const { listen } = await import('../dist/node/server.js')
const { NodeConnection } = await import('../dist/node/node-connection.js')
const { writeReply } = await import('../dist/node/write-reply.js')
const { utf8Bytes } = await import('../dist/internal/bytes.js')

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } })

const body = utf8Bytes('{"name":"Fern"}')
const reply = {
  status: 200,
  headers: { 'content-type': 'application/json', 'content-length': String(body.byteLength) },
  body,
}
const malformed = { status: 400, headers: { 'content-type': 'application/json' }, body: '{"error":400}' }
const parses = (bytes) => {
  try {
    JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'))
    return true
  } catch {
    return false
  }
}
const MAX_BODY_BYTES = 1024 * 1024

const mock = await startMockServer({ port: 0, host: '127.0.0.1', quiet: true })
growYoungGenerationToCap()
const floor = await listen(
  { fetch: () => new Response('not taken', { status: 500 }) },
  {
    port: Number(values.port),
    host: '127.0.0.1',
    take(incoming, outgoing) {
      new NodeConnection(incoming).readBody(MAX_BODY_BYTES).then(
        (bytes) => writeReply(outgoing, parses(bytes) ? reply : malformed),
        () => outgoing.destroy(),
      )
      return true
    },
  },
)
console.log(`mock-floor listening on ${floor.url}`)
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    void Promise.all([floor.close(), mock.close()]).then(() => process.exit(0))
  })
}
