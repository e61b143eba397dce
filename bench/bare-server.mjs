#!/usr/bin/env node
// The baseline of `npm run bench`: a bare node:http server doing the least the mock does for
// POST /plants of openapi.yaml. It reads the body, parses it, checks the bearer header and
// NewPlant's fields by hand, and replies with fixed JSON. Same statuses and near-identical bodies
// as the mock, so that the difference measured is the mock's machinery, not the work.
//
//   node bench/bare-server.mjs [--port 0]      prints "bare listening on http://127.0.0.1:PORT"
import { createServer } from 'node:http'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } })

const OK = JSON.stringify({ name: 'Monstera deliciosa', tag: 'houseplant' })
const FORCED_400 = JSON.stringify({ error: 400, message: 'The plant could not be added.' })
const UNAUTHORIZED = JSON.stringify({
  error: 401,
  message: 'This operation needs an "Authorization: Bearer <token>" header.',
})
const NOT_FOUND = JSON.stringify({ error: 404, message: 'Not found.' })
const UNSUPPORTED = JSON.stringify({ error: 415, message: 'Send application/json.' })

function send(res, status, body, headers) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers })
  res.end(body)
}

/** NewPlant: { id: integer (int64), name: string, tag?: string }, checked by hand. */
function problemsOf(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return ['body must be an object']
  const problems = []
  if (typeof value.name !== 'string')
    problems.push(value.name === undefined ? 'body.name is required' : 'body.name must be a string')
  if (value.tag !== undefined && typeof value.tag !== 'string') problems.push('body.tag must be a string')
  if (value.id === undefined) problems.push('body.id is required')
  else if (!Number.isInteger(value.id)) problems.push('body.id must be an integer')
  return problems
}

const server = createServer((req, res) => {
  // A query string is allowed (bench/rules.mjs sends one for its query conditions), and not read.
  if (req.method !== 'POST' || (req.url !== '/plants' && !req.url.startsWith('/plants?')))
    return send(res, 404, NOT_FOUND)
  const auth = req.headers.authorization
  if (!auth || !/^bearer \S/i.test(auth)) return send(res, 401, UNAUTHORIZED, { 'www-authenticate': 'Bearer' })
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return send(res, 415, UNSUPPORTED)
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    let value
    try {
      value = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch (error) {
      return send(res, 400, JSON.stringify({ error: 400, message: `body is not valid JSON (${error.message})` }))
    }
    const problems = problemsOf(value)
    if (problems.length) {
      return send(
        res,
        400,
        JSON.stringify({ error: 400, message: `The request does not match the description: ${problems.join('; ')}.` }),
      )
    }
    if (/\bcode=400\b/.test(req.headers.prefer ?? '')) return send(res, 400, FORCED_400)
    send(res, 200, OK)
  })
})

server.listen(Number(values.port), '127.0.0.1', () => {
  console.log(`bare listening on http://127.0.0.1:${server.address().port}`)
})
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close(() => process.exit(0))
    server.closeAllConnections()
  })
}
