#!/usr/bin/env node
// The baseline of the stateful read rows of `npm run bench`: a bare node:http server doing the least
// the mock does for GET /plants/{plantId} of test/descriptions/stateful/garden.yaml with --stateful.
// It checks the bearer header, looks the id up in a Map of 1,000 plants (the records the bench seeds
// the mock with) and replies with the record as JSON, or a 404. Same statuses and bodies as the mock.
//
//   node bench/bare-read-server.mjs [--port 0]      prints "bare-read listening on http://127.0.0.1:PORT"
import { createServer } from 'node:http'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } })

/** What the bench seeds: plants 1 to 1,000 (see `SEEDED_PLANTS` in bench/stateful.mjs). */
const plants = new Map()
for (let id = 1; id <= 1000; id++) plants.set(String(id), { id, name: `Fern ${id}`, tag: 'houseplant' })

const UNAUTHORIZED = JSON.stringify({
  error: 401,
  message: 'This operation needs an "Authorization: Bearer <token>" header.',
})
const NOT_FOUND = JSON.stringify({ error: 404, message: 'Not found.' })

function send(res, status, body, headers) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers })
  res.end(body)
}

const server = createServer((req, res) => {
  const match = req.method === 'GET' ? /^\/plants\/(\d+)$/.exec(req.url ?? '') : null
  if (!match) return send(res, 404, NOT_FOUND)
  const auth = req.headers.authorization
  if (!auth || !/^bearer \S/i.test(auth)) return send(res, 401, UNAUTHORIZED, { 'www-authenticate': 'Bearer' })
  const plant = plants.get(match[1])
  if (!plant) return send(res, 404, JSON.stringify({ error: 404, message: `There is no plant with id ${match[1]}.` }))
  send(res, 200, JSON.stringify(plant))
})

server.listen(Number(values.port), '127.0.0.1', () => {
  console.log(`bare-read listening on http://127.0.0.1:${server.address().port}`)
})
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close(() => process.exit(0))
    server.closeAllConnections()
  })
}
