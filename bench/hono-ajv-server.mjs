#!/usr/bin/env node
// A reference point for #19: the least a Hono server needs to answer POST /plants as the mock does.
// Hono on @hono/node-server, the bearer header checked by hand, the body validated by a precompiled
// Ajv validator of NewPlant, a fixed Plant body answered with c.json(). No journal, no request lines,
// no description: what "a Hono + precompiled Ajv prototype" costs, beside bare node:http (#19's text
// says such a prototype measured about 0.85 × bare; `npm run bench` measures it beside the mock, #34 §6).
//
//   node bench/hono-ajv-server.mjs [--port 0]      prints "hono-ajv listening on http://127.0.0.1:PORT"
import { serve } from '@hono/node-server'
import Ajv from 'ajv'
import { Hono } from 'hono'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } })

const validateNewPlant = new Ajv({ allErrors: true }).compile({
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: 'string' } },
})
const OK = { name: 'Monstera deliciosa', tag: 'houseplant' }

const app = new Hono()
app.post('/plants', async (c) => {
  const auth = c.req.header('authorization')
  if (!auth || !/^bearer \S/i.test(auth))
    return c.json({ error: 401, message: 'This operation needs an "Authorization: Bearer <token>" header.' }, 401, {
      'www-authenticate': 'Bearer',
    })
  let value
  try {
    value = await c.req.json()
  } catch (error) {
    return c.json({ error: 400, message: `body is not valid JSON (${error.message})` }, 400)
  }
  if (!validateNewPlant(value)) {
    const problems = validateNewPlant.errors.map((e) => `body${e.instancePath.replaceAll('/', '.')} ${e.message}`)
    return c.json({ error: 400, message: `The request does not match the description: ${problems.join('; ')}.` }, 400)
  }
  if (/\bcode=400\b/.test(c.req.header('prefer') ?? ''))
    return c.json({ error: 400, message: 'The plant could not be added.' }, 400)
  return c.json(OK)
})
app.notFound((c) => c.json({ error: 404, message: 'Not found.' }, 404))

const server = serve({ fetch: app.fetch, port: Number(values.port), hostname: '127.0.0.1' }, (info) => {
  console.log(`hono-ajv listening on http://127.0.0.1:${info.port}`)
})
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close(() => process.exit(0))
    server.closeAllConnections?.()
  })
}
