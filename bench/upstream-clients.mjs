#!/usr/bin/env node
// Which HTTP client the proxy should call its upstream with (#18): CPU per request of `node:http`
// with a keep-alive agent and of undici's `Pool`, each keeping 50 requests in flight against the
// proxy bench's upstream (bench/proxy.mjs --child upstream), in alternating turns of 3 s, 3 rounds.
//
//   node bench/upstream-clients.mjs
//
// The upstream runs as a child on 127.0.0.1, port 0; it is stopped at the end. Every request must
// come back 200 with the upstream's body, or the run stops.
import { Agent, request } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Pool } from 'undici'
import { startServer } from './harness.mjs'
import { UPSTREAM_ANSWER } from './proxy.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const BODY = Buffer.from(JSON.stringify({ id: 1, name: 'Fern', tag: 'houseplant' }))
const HEADERS = { 'content-type': 'application/json', authorization: 'Bearer bench-token' }
const IN_FLIGHT = 50
const SECONDS = 3
const ROUNDS = 3

function check(status, body) {
  if (status !== 200 || body.toString() !== UPSTREAM_ANSWER) throw new Error(`upstream answered ${status} ${body}`)
}

function clients(url) {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 })
  const pool = new Pool(url.origin, { connections: 256 })
  return {
    'node:http + keep-alive agent': () =>
      new Promise((resolve, reject) => {
        const req = request(
          { hostname: url.hostname, port: url.port, path: '/plants', method: 'POST', headers: HEADERS, agent },
          (res) => {
            const chunks = []
            res.on('data', (chunk) => chunks.push(chunk))
            res.on('end', () => resolve(check(res.statusCode, Buffer.concat(chunks))))
            res.on('error', reject)
          },
        )
        req.on('error', reject)
        req.end(BODY)
      }),
    'undici Pool.request': async () => {
      const { statusCode, body } = await pool.request({ path: '/plants', method: 'POST', headers: HEADERS, body: BODY })
      const chunks = []
      for await (const chunk of body) chunks.push(chunk)
      check(statusCode, Buffer.concat(chunks))
    },
    close: () => (agent.destroy(), pool.destroy()),
  }
}

/** Requests done and client CPU µs per request, IN_FLIGHT at a time for `seconds`. */
async function load(call, seconds) {
  let done = 0
  const end = performance.now() + seconds * 1000
  const before = process.cpuUsage()
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < end) {
        await call()
        done++
      }
    }),
  )
  const cpu = process.cpuUsage(before)
  return { rps: done / seconds, micros: (cpu.user + cpu.system) / done }
}

const upstream = await startServer('upstream', process.execPath, [
  join(here, 'proxy.mjs'),
  '--child',
  'upstream',
  '--port',
  '0',
])
try {
  const { close, ...calls } = clients(new URL(upstream.url))
  for (const call of Object.values(calls)) await load(call, 1)
  for (let round = 1; round <= ROUNDS; round++)
    for (const [name, call] of Object.entries(calls)) {
      const { rps, micros } = await load(call, SECONDS)
      console.log(
        `round ${round}  ${name.padEnd(28)} ${Math.round(rps).toLocaleString('en').padStart(7)} req/s  ${micros.toFixed(1)} µs of client CPU a request`,
      )
    }
  await close()
} finally {
  await upstream.stop()
}
