#!/usr/bin/env node
// Proxy mode in `npm run bench -- --proxy` (issue #18): what the mock costs in front of a real backend.
// The issue's target: "proxy throughput against the same upstream called directly, as a ratio in one
// run: the proxy costs less than 30 % of the direct throughput with validation in both directions",
// i.e. proxy req/s ÷ direct req/s ≥ 0.70, the median of the per-round ratios.
//
// The upstream is this file as a child (`node bench/proxy.mjs --child upstream --port 0`): a node:http
// server on 127.0.0.1 that drains the body of POST /plants and answers 200 with a fixed, conforming
// Plant ({"name":"Fern","tag":"fern"}, application/json), keep-alive, nothing else. It counts the
// requests it answers and the connections it accepts (GET /__upstream/count), so that the bench can
// tell that the proxy reached it, and whether the proxy keeps its connections to it alive.
// With `x-bench-break: 1` it answers a Plant that breaks the description (a check, never under load);
// with `x-bench-wait-ms: N` it answers N ms (at most 1000) after the request has arrived.
//
// Rows (50 connections, the usual valid POST /plants with a bearer token, --quiet on both mocks):
// - direct: autocannon straight at the upstream;
// - proxy: at `node dist/cli.js proxy openapi.yaml <upstream> --quiet --port 0` in front of it, which
//   checks each request, forwards it, and checks the upstream's answer against the description;
// - mock: the mock in plain mock mode (no upstream), for reference;
// - direct-db and proxy-db: the first two again, the upstream asked (x-bench-wait-ms: 5) to wait 5 ms
//   before answering, as a backend waits on its database: the proxy's cost in front of one that works.
// Fresh processes every round, a warm-up each, then the rows in an order that rotates by round.
// Before the load, each round checks: the upstream answers 200; the proxy answers 200 with the
// upstream's body and no X-Mock-Violations (so the upstream conforms and the answer was proxied);
// an upstream answer that breaks the description gets X-Mock-Violations through the proxy (answers
// are checked); an invalid request is answered 400 by the proxy and never reaches the upstream
// (requests are checked); the mock answers 200.
//
// Two cores or few: autocannon, the mock and the upstream share them, and the proxy row runs one
// process more than the direct row, so the ratio includes that contention.
import { createServer, request } from 'node:http'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { cpuSeconds, median, startServer, table, timeToFirst200 } from './harness.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const SELF = fileURLToPath(import.meta.url)

/** Proxy req/s ÷ direct req/s that issue #18 asks for (the proxy costs less than 30 %). */
export const TARGET_RATIO = 0.7

const HEADERS = { 'content-type': 'application/json', authorization: 'Bearer bench-token' }
const BODY = JSON.stringify({ id: 1, name: 'Fern', tag: 'houseplant' })
const TARGET = { method: 'POST', path: '/plants', headers: HEADERS, body: BODY }
/** What the upstream answers to POST /plants: a Plant of openapi.yaml. */
export const UPSTREAM_ANSWER = '{"name":"Fern","tag":"fern"}'
/** What it answers with `x-bench-break: 1`: name is required and a string, so this breaks Plant. */
const BROKEN_ANSWER = '{"name":5}'
const COUNT_PATH = '/__upstream/count'
const VIOLATIONS = 'x-mock-violations'

/** How long the upstream waits before answering with `x-bench-wait-ms`, as a backend waits on its database. */
const WAIT_MS = 5
const WAITING = { ...TARGET, headers: { ...HEADERS, 'x-bench-wait-ms': String(WAIT_MS) } }

/**
 * Each row: which process autocannon loads (`server`), with which request, and which row its ratio
 * is to. The target is the first pair: an upstream that does nothing, the proxy's worst case.
 * The `-db` pair asks the same upstream to wait WAIT_MS before answering (a timer, no CPU), as a
 * backend waiting on its database does: what the proxy costs in front of a backend that works.
 */
const ROWS = [
  { role: 'direct', server: 'direct', target: TARGET, label: 'upstream, direct' },
  { role: 'proxy', server: 'proxy', target: TARGET, to: 'direct', label: 'mock in proxy mode → upstream' },
  { role: 'mock', server: 'mock', target: TARGET, to: 'direct', label: 'mock in mock mode (reference)' },
  { role: 'direct-db', server: 'direct', target: WAITING, label: `upstream waiting ${WAIT_MS} ms, direct` },
  {
    role: 'proxy-db',
    server: 'proxy',
    target: WAITING,
    to: 'direct-db',
    label: `mock in proxy mode → upstream waiting ${WAIT_MS} ms`,
  },
]

/**
 * One request on a connection of its own (closed after it, so that the upstream's connection count
 * moves by exactly one per call): its status, headers (a Headers) and body. Bounded in time (5 s).
 */
function send(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: { ...headers, connection: 'close' }, agent: false, timeout: 5000 },
      (res) => {
        const chunks = []
        res.on('data', (chunk) => chunks.push(chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            headers: new Headers(Object.entries(res.headers).map(([k, v]) => [k, [v].flat().join(', ')])),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within 5 s`)))
    req.on('error', reject)
    req.end(body)
  })
}

/** `{ requests, connections }`: requests answered and connections accepted by the upstream so far. */
async function upstreamCounts(upstream) {
  const { status, body } = await send(upstream.url + COUNT_PATH)
  if (status !== 200) throw new Error(`upstream: ${COUNT_PATH} answered ${status}`)
  return JSON.parse(body)
}

/** The checks of one round, before any load (see the top of this file). */
async function check(live) {
  const { direct: upstream, proxy, mock } = live
  const describe = (r) => `${r.status} ${r.headers.get(VIOLATIONS) ?? ''} ${r.body.slice(0, 300)}`.trim()
  const direct = await send(upstream.url + TARGET.path, TARGET)
  if (direct.status !== 200 || direct.body !== UPSTREAM_ANSWER)
    throw new Error(`upstream: POST /plants answered ${describe(direct)}`)

  const before = (await upstreamCounts(upstream)).requests
  const proxied = await send(proxy.url + TARGET.path, TARGET)
  if (proxied.status !== 200 || proxied.headers.has(VIOLATIONS) || proxied.body !== UPSTREAM_ANSWER)
    throw new Error(
      `proxy: POST /plants answered ${describe(proxied)}; want 200, the upstream's body, no ${VIOLATIONS}`,
    )
  if (!/^application\/json\b/.test(proxied.headers.get('content-type') ?? ''))
    throw new Error(`proxy: content-type ${proxied.headers.get('content-type')}, not application/json`)
  const broken = await send(proxy.url + TARGET.path, { ...TARGET, headers: { ...HEADERS, 'x-bench-break': '1' } })
  if (!broken.headers.has(VIOLATIONS))
    throw new Error(`proxy: an upstream answer breaking Plant came back without ${VIOLATIONS}: ${describe(broken)}`)
  const invalid = await send(proxy.url + TARGET.path, { ...TARGET, body: JSON.stringify({ name: 42 }) })
  if (invalid.status !== 400) throw new Error(`proxy: an invalid body answered ${describe(invalid)}, not 400`)
  const reached = (await upstreamCounts(upstream)).requests - before
  if (reached !== 2)
    throw new Error(`proxy: the upstream saw ${reached} of the checks, want 2 (the valid and the broken one)`)

  const mocked = await send(mock.url + TARGET.path, TARGET)
  if (mocked.status !== 200) throw new Error(`mock: POST /plants answered ${describe(mocked)}`)
}

/**
 * Rounds of: fresh upstream, proxy and mock, the checks, warm-up, then each row in turn (the order
 * rotating by round). `measure(server, target, seconds)` and `warmUp(server, targets)` are run.mjs's.
 */
export async function proxyCompare({ settings, measure, warmUp, fmt, withRatio }) {
  const { rounds, seconds, connections } = settings
  console.log(
    `\n## Proxy mode: valid POST /plants straight at a node:http upstream, through the mock in proxy mode, and at the mock in mock mode · ${rounds} round(s) × ${seconds} s · ${connections} connections`,
  )
  /** runs[role][round] = one measurement. */
  const runs = Object.fromEntries(ROWS.map((r) => [r.role, []]))
  for (let round = 0; round < rounds; round++) {
    const live = {}
    try {
      live.direct = await startServer('upstream', process.execPath, [SELF, '--child', 'upstream', '--port', '0'], {
        cwd: root,
      })
      await timeToFirst200(live.direct, TARGET)
      live.proxy = await startServer(
        'proxy',
        process.execPath,
        [join(root, 'dist/cli.js'), 'proxy', 'openapi.yaml', live.direct.url, '--quiet', '--port', '0'],
        { cwd: root },
      )
      live.mock = await startServer(
        'mock',
        process.execPath,
        [join(root, 'dist/cli.js'), 'openapi.yaml', '--quiet', '--port', '0'],
        { cwd: root },
      )
      await timeToFirst200(live.proxy, TARGET)
      await timeToFirst200(live.mock, TARGET)
      await check(live)
      for (const server of ['direct', 'proxy', 'mock']) await warmUp(live[server], [TARGET])
      const order = ROWS.map((_, i) => ROWS[(i + round) % ROWS.length])
      for (const { role, server: name, target } of order) {
        const server = live[name]
        const cpuBefore = cpuSeconds(live.direct)
        const countsBefore = await upstreamCounts(live.direct)
        const m = await measure(server, target, seconds)
        // measure() waited 250 ms after the load: the upstream has answered what the proxy had in flight.
        m.upstreamCpuMicrosPerRequest = m.requests ? ((cpuSeconds(live.direct) - cpuBefore) * 1e6) / m.requests : NaN
        const countsAfter = await upstreamCounts(live.direct)
        m.upstreamRequests = countsAfter.requests - countsBefore.requests
        // Less the one the second count request opened (the first one's was counted before it).
        m.upstreamConnections = countsAfter.connections - countsBefore.connections - 1
        runs[role][round] = m
        process.stdout.write(
          `  round ${round + 1} ${role.padEnd(9)} ${fmt.int(m.rps).padStart(7)} req/s  p50 ${fmt.ms(m.p50)} ms  p99 ${fmt.ms(m.p99)} ms  CPU ${fmt.one(m.cpuMicrosPerRequest)} µs/req (upstream ${fmt.one(m.upstreamCpuMicrosPerRequest)})  upstream saw ${fmt.int(m.upstreamRequests)} req on ${fmt.int(m.upstreamConnections)} new conn  ${m.statusSummary}\n`,
        )
      }
    } finally {
      await Promise.all(Object.values(live).map((server) => server.stop()))
    }
  }

  const toOf = Object.fromEntries(ROWS.map((r) => [r.role, r.to]))
  const perRound = (role, metric) => runs[role].map((m, round) => m[metric] / runs[toOf[role]][round][metric])
  const rows = ROWS.map(({ role, label, to }) => {
    const ms = runs[role]
    const med = (metric) => median(ms.map((m) => m[metric]))
    const r = (metric) => (to === undefined ? undefined : median(perRound(role, metric)))
    const statuses = [...new Set(ms.flatMap((m) => m.statuses))]
    return [
      label,
      role,
      statuses.join('/') + (statuses.length === 1 && statuses[0] === 200 ? '' : ' (want 200)'),
      withRatio(med('rps'), r('rps'), fmt.int),
      withRatio(med('p50'), r('p50'), fmt.ms),
      withRatio(med('p99'), r('p99'), fmt.ms),
      role.startsWith('direct') ? '' : fmt.one(med('cpuMicrosPerRequest')),
      role === 'mock' ? '' : fmt.one(med('upstreamCpuMicrosPerRequest')),
      role === 'mock' ? '' : fmt.int(med('upstreamConnections')),
      fmt.one(med('rss')),
    ]
  })
  console.log(
    `\nMedians over ${rounds} round(s); (×) = median of the per-round ratio to direct. CPU µs/req: of the mock process (proxy and mock rows); upstream: of the upstream process, per request answered to autocannon; upstream new conns: connections the upstream accepted during the load (autocannon's own in the direct row).\n`,
  )
  console.log(
    table(
      [
        'row',
        'server',
        'status',
        'req/s',
        'p50 ms',
        'p99 ms',
        'mock CPU µs/req',
        'upstream CPU µs/req',
        'upstream new conns',
        'RSS MiB',
      ],
      rows,
    ),
  )
  const ratios = perRound('proxy', 'rps')
  const ratio = median(ratios)
  const within = ratio >= TARGET_RATIO
  // Every answer the proxy gave autocannon came from the upstream (the count also holds the few in flight at the end).
  const reached = ['proxy', 'proxy-db'].every((role) => runs[role].every((m) => m.upstreamRequests >= m.requests))
  console.log(
    `\n  proxy vs direct, per round: ${ratios.map((x) => x.toFixed(2)).join(' / ')} → median ${ratio.toFixed(2)}`,
  )
  console.log(
    `  ${within ? 'WITHIN' : 'MISSED'}  proxy req/s ÷ direct req/s = ${ratio.toFixed(2)} (target ≥ ${TARGET_RATIO.toFixed(2)}: the proxy costs < ${Math.round((1 - TARGET_RATIO) * 100)} % of the direct throughput)`,
  )
  const waiting = perRound('proxy-db', 'rps')
  console.log(
    `  in front of an upstream that waits ${WAIT_MS} ms: proxy req/s ÷ direct req/s = ${median(waiting).toFixed(2)} (per round: ${waiting.map((x) => x.toFixed(2)).join(' / ')})`,
  )
  if (!reached) console.log('  WARNING: the upstream saw fewer requests than the proxy answered')
  return {
    settings,
    request: { ...TARGET },
    upstreamAnswer: UPSTREAM_ANSWER,
    runs,
    proxyVsDirect: { perRound: ratios, median: ratio, target: TARGET_RATIO, within },
    waitingUpstream: { waitMs: WAIT_MS, perRound: waiting, median: median(waiting) },
    upstreamReached: reached,
  }
}

// ---------------------------------------------------------------------------------------------
// The child: the upstream.

function upstreamChild(port) {
  const ok = Buffer.from(UPSTREAM_ANSWER)
  const broken = Buffer.from(BROKEN_ANSWER)
  const json = (body) => ({ 'content-type': 'application/json', 'content-length': body.length })
  let answered = 0
  let connections = 0
  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/plants') {
      const body = req.headers['x-bench-break'] === '1' ? broken : ok
      const wait = Number(req.headers['x-bench-wait-ms'] ?? 0)
      const answer = () => {
        answered++
        res.writeHead(200, json(body))
        res.end(body)
      }
      req.on('end', () => (wait > 0 ? setTimeout(answer, Math.min(wait, 1000)) : answer()))
      req.resume()
      return
    }
    req.resume()
    const counting = req.method === 'GET' && req.url === COUNT_PATH
    const body = Buffer.from(counting ? JSON.stringify({ requests: answered, connections }) : '{"error":404}')
    res.writeHead(counting ? 200 : 404, json(body))
    res.end(body)
  })
  server.on('connection', () => connections++)
  // Longer than the idle time between rows, so that the proxy's pooled connections to it stay open.
  server.keepAliveTimeout = 30_000
  server.listen(port, '127.0.0.1', () => {
    console.log(`upstream listening on http://127.0.0.1:${server.address().port}`)
  })
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      server.close(() => process.exit(0))
      server.closeAllConnections()
    })
  }
}

if (process.argv[1] && resolve(process.argv[1]) === SELF) {
  const { values } = parseArgs({ options: { child: { type: 'string' }, port: { type: 'string', default: '0' } } })
  const port = Number(values.port)
  if (values.child !== 'upstream') throw new Error('--child upstream')
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be 0 to 65535')
  upstreamChild(port)
}
