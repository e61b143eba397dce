#!/usr/bin/env node
// Scalar's mock server set up for Node as its own documentation does: createMockServer() from
// @scalar/mock-server on the description, served by @hono/node-server. Run from .cache/peers/,
// where bench/peers.mjs copies this file beside the installed packages. Nothing is logged per request
// (Scalar's example adds an onRequest logger by hand; the library itself logs none).
//
//   node scalar-mock.mjs openapi.yaml     prints "scalar listening on http://127.0.0.1:PORT"
import { readFileSync } from 'node:fs'
import { serve } from '@hono/node-server'
import { createMockServer } from '@scalar/mock-server'

const app = await createMockServer({ specification: readFileSync(process.argv[2], 'utf8') })
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, ({ port }) =>
  console.log(`scalar listening on http://127.0.0.1:${port}`),
)
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close(() => process.exit(0))
    server.closeAllConnections()
  })
}
