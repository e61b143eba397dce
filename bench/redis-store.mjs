#!/usr/bin/env node
// The shared store (#32, `--store redis://…`) beside the in-memory default, on a real redis-server this
// script starts on a free loopback port (Debian's `redis-server`, no persistence), in alternating turns:
// - valid: POST /plants of the Plant Store, no --stateful: the plain valid path, which the store must
//   leave as it is (its target: ≥ 0.98 × memory);
// - create: the same with --stateful, a new id each request (one Lua script a create on Redis);
// - read: GET /plants/{1..50} of garden.yaml with --stateful, 1,000 plants seeded (target: ≥ 0.5 × memory);
// - replicas: the create load on one replica against the same load split over two replicas on one Redis
//   (half the connections each);
// - the scenario propagation window: a switch (`PUT /__mock/scenario`) through replica A, timed until
//   it returns, each followed at once by a request through replica B that must get the new scenario's
//   answer (the misses are counted: the admin call returns only once every replica has applied it).
// CPU per request is the mock's process group (user + system, /proc); Redis's own CPU is given apart.
//
//   node bench/redis-store.mjs [--rounds 2] [--seconds 5] [--connections 50] [--switches 200] [--no-build]
//
// autocannon runs in this process: on a two-core machine the load generator, the mock and Redis share
// the cores, so the ratios are what to read, not the absolute figures.
import { spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import {
  adoptChild,
  cpuSeconds,
  killAll,
  load,
  median,
  probe,
  startServer,
  statusSummary,
  table,
  timeToFirst200,
} from './harness.mjs'
import { GARDEN, STATEFUL_PATHS, STATE_LIMIT } from './stateful.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    switches: { type: 'string', default: '200' },
    'no-build': { type: 'boolean', default: false },
  },
})
const rounds = Number(values.rounds)
const seconds = Number(values.seconds)
const connections = Number(values.connections)
const switches = Number(values.switches)

const HEADERS = { 'content-type': 'application/json', authorization: 'Bearer bench-token' }
const valid = { method: 'POST', path: '/plants', headers: HEADERS, body: '{"id":1,"name":"Fern","tag":"houseplant"}' }
const [create, read] = ['create', 'read'].map((key) => STATEFUL_PATHS.find((path) => path.key === key))
const statefulOf = (path) => path.servers.find((server) => server.role === 'stateful')
const STATEFUL = ['--stateful', '--state-limit', String(STATE_LIMIT)]

const PATHS = [
  { key: 'valid', args: ['--quiet'], target: () => valid, probe: () => valid },
  { key: 'create', args: ['--quiet', ...STATEFUL], target: create.target, probe: statefulOf(create).probe },
  {
    key: 'read',
    args: ['--quiet', '--spec', GARDEN, ...STATEFUL],
    target: read.target,
    probe: statefulOf(read).probe,
    prepare: statefulOf(read).prepare,
  },
]

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/** A redis-server on a free loopback port, no persistence; its pid for its CPU. */
async function startRedis() {
  const port = await freePort()
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
      detached: true,
    },
  )
  adoptChild(child)
  const started = Date.now()
  while (Date.now() - started < 10_000) {
    const ready = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' })
    if (ready.stdout?.trim() === 'PONG') return { url: `redis://127.0.0.1:${port}/0`, pid: child.pid, port }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('redis-server did not answer PING within 10 s (is the Debian package redis-server installed?)')
}

let prefixes = 0
const storeArgs = (redis, prefix = `bench-${process.pid}-${++prefixes}`) => [
  '--store',
  redis.url,
  '--store-prefix',
  prefix,
]

async function startMock(name, args) {
  return startServer(name, process.execPath, [join(root, 'dist/cli.js'), '--port', '0', ...args], { cwd: root })
}

/** One load against one or more servers at once (connections split evenly): req/s summed, CPU per request of the mocks and of Redis. */
async function measure(servers, path, redis) {
  for (const server of servers) await timeToFirst200(server, path.probe())
  await path.prepare?.(servers[0])
  // A second of load first, so that neither store is measured before the JIT has compiled its path.
  await Promise.all(
    servers.map((server) => load(server, path.target(), { connections: connections / servers.length, seconds: 1 })),
  )
  const cpuBefore = servers.map(cpuSeconds)
  const redisBefore = redis ? cpuSeconds({ pid: redis.pid }) : 0
  const results = await Promise.all(
    servers.map((server) => load(server, path.target(), { connections: connections / servers.length, seconds })),
  )
  const cpu = servers.reduce((sum, server, index) => sum + cpuSeconds(server) - cpuBefore[index], 0)
  const redisCpu = redis ? cpuSeconds({ pid: redis.pid }) - redisBefore : 0
  const requests = results.reduce((sum, result) => sum + result.requests.total, 0)
  return {
    rps: results.reduce((sum, result) => sum + result.requests.average, 0),
    cpuUs: (cpu / requests) * 1e6,
    redisUs: (redisCpu / requests) * 1e6,
    statuses: results.map(statusSummary).join(' | '),
  }
}

async function runPath(path, store, redis) {
  const servers = [
    await startMock(`${path.key} ${store}`, [...path.args, ...(store === 'redis' ? storeArgs(redis) : [])]),
  ]
  try {
    return await measure(servers, path, store === 'redis' ? redis : undefined)
  } finally {
    await Promise.all(servers.map((server) => server.stop()))
  }
}

async function runReplicas(count, redis) {
  const path = PATHS.find((p) => p.key === 'create')
  const prefix = `bench-replicas-${process.pid}-${++prefixes}`
  const servers = []
  for (let n = 0; n < count; n++)
    servers.push(await startMock(`replica ${n + 1}/${count}`, [...path.args, ...storeArgs(redis, prefix)]))
  try {
    return await measure(servers, path, redis)
  } finally {
    await Promise.all(servers.map((server) => server.stop()))
  }
}

/** Switches through A, each followed by a request through B; the time each switch took, and B's misses. */
async function propagation(redis) {
  const prefix = `bench-switch-${process.pid}`
  const [a, b] = [await startMock('A', storeArgs(redis, prefix)), await startMock('B', storeArgs(redis, prefix))]
  try {
    for (const server of [a, b]) await timeToFirst200(server, valid)
    const times = []
    let misses = 0
    for (let n = 0; n < switches; n++) {
      const name = n % 2 ? 'default' : 'error'
      const started = performance.now()
      const switched = await probe(`${a.url}/__mock/scenario`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      })
      times.push(performance.now() - started)
      if (switched !== 200) throw new Error(`the switch answered ${switched}`)
      const answer = await probe(`${b.url}/plants`, valid)
      if (answer !== (name === 'error' ? 400 : 200)) misses++
    }
    times.sort((x, y) => x - y)
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))]
    return { p50: at(0.5), p99: at(0.99), max: times[times.length - 1], misses }
  } finally {
    await Promise.all([a.stop(), b.stop()])
  }
}

async function main() {
  if (!values['no-build']) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
  const redis = await startRedis()
  const results = new Map()
  const note = (key, measured) => results.set(key, [...(results.get(key) ?? []), measured])
  for (let round = 0; round < rounds; round++) {
    for (const path of PATHS) {
      for (const store of round % 2 === 0 ? ['memory', 'redis'] : ['redis', 'memory']) {
        const measured = await runPath(path, store, redis)
        note(`${path.key}:${store}`, measured)
        console.log(
          `round ${round + 1} ${path.key} ${store}: ${Math.round(measured.rps)} req/s, ${measured.cpuUs.toFixed(0)} µs CPU/req (Redis ${measured.redisUs.toFixed(0)}) (${measured.statuses})`,
        )
      }
    }
    for (const count of round % 2 === 0 ? [1, 2] : [2, 1]) {
      const measured = await runReplicas(count, redis)
      note(`replicas:${count}`, measured)
      console.log(
        `round ${round + 1} create on ${count} replica(s): ${Math.round(measured.rps)} req/s (${measured.statuses})`,
      )
    }
  }
  const med = (key, field) => median(results.get(key).map((r) => r[field]))
  const rows = PATHS.map(({ key }) => {
    const [memory, redisRps] = [med(`${key}:memory`, 'rps'), med(`${key}:redis`, 'rps')]
    const [memoryCpu, redisCpu] = [med(`${key}:memory`, 'cpuUs'), med(`${key}:redis`, 'cpuUs')]
    return [
      key,
      String(Math.round(memory)),
      String(Math.round(redisRps)),
      (redisRps / memory).toFixed(2),
      memoryCpu.toFixed(0),
      redisCpu.toFixed(0),
      med(`${key}:redis`, 'redisUs').toFixed(0),
    ]
  })
  console.log(`\nmedian over ${rounds} round(s), ${seconds} s each, ${connections} connections`)
  console.log(
    table(
      [
        'path',
        'memory req/s',
        'redis req/s',
        'redis ÷ memory',
        'memory µs CPU/req',
        'redis µs CPU/req',
        "Redis's own µs/req",
      ],
      rows,
    ),
  )
  const [one, two] = [med('replicas:1', 'rps'), med('replicas:2', 'rps')]
  console.log(
    table(
      ['create, one Redis', '1 replica', '2 replicas', '2 ÷ 1'],
      [['req/s', String(Math.round(one)), String(Math.round(two)), (two / one).toFixed(2)]],
    ),
  )
  const window = await propagation(redis)
  console.log(
    `\nscenario switch through A, ${switches} times: returns in p50 ${window.p50.toFixed(2)} ms, p99 ${window.p99.toFixed(2)} ms (max ${window.max.toFixed(2)}); B's next request missed the switch ${window.misses} time(s)`,
  )
}

main().then(
  () => killAll(),
  async (error) => {
    console.error(error)
    await killAll()
    process.exitCode = 1
  },
)
