#!/usr/bin/env node
// `--workers` (issue #19, "Scale on one machine"): the mock with --workers 1 and --workers 2 under the
// same autocannon load, in alternating turns (the order flips every round), on three paths:
// - valid: POST /plants of the Plant Store, a valid body (the path bench/run.mjs measures);
// - create: the same with --stateful, a new id each request: every create is a round trip to the
//   primary's store under --workers 2 (the IPC cost), an in-process call under --workers 1;
// - read: GET /plants/{1..50} of garden.yaml with --stateful, 1,000 plants seeded: a round trip each.
//
//   node bench/workers.mjs [--rounds 2] [--seconds 5] [--connections 50] [--no-build]
//
// autocannon runs in this process, so on a two-core machine the load generator shares the cores
// with the workers: the figures say what a second worker gains there, not on a larger machine.
import { spawnSync } from 'node:child_process'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { killAll, load, median, startServer, statusSummary, table, timeToFirst200 } from './harness.mjs'
import { STATEFUL_PATHS } from './stateful.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    'no-build': { type: 'boolean', default: false },
  },
})
const rounds = Number(values.rounds)
const seconds = Number(values.seconds)
const connections = Number(values.connections)

const HEADERS = { 'content-type': 'application/json', authorization: 'Bearer bench-token' }
const valid = { method: 'POST', path: '/plants', headers: HEADERS, body: '{"id":1,"name":"Fern","tag":"houseplant"}' }
const [create, read] = ['create', 'read'].map((key) => STATEFUL_PATHS.find((path) => path.key === key))
const statefulOf = (path) => path.servers.find((server) => server.role === 'stateful')

const PATHS = [
  { key: 'valid', args: ['--quiet'], target: () => valid, probe: () => valid },
  {
    key: 'create',
    args: ['--quiet', '--stateful', '--state-limit', '10000000'],
    target: create.target,
    probe: statefulOf(create).probe,
  },
  {
    key: 'read',
    args: ['--quiet', '--spec', 'test/descriptions/stateful/garden.yaml', '--stateful', '--state-limit', '10000000'],
    target: read.target,
    probe: statefulOf(read).probe,
    prepare: statefulOf(read).prepare,
  },
]

async function measure(path, workers) {
  const name = `${path.key} --workers ${workers}`
  const server = await startServer(
    name,
    process.execPath,
    [join(root, 'dist/cli.js'), '--port', '0', ...path.args, '--workers', String(workers)],
    { cwd: root },
  )
  try {
    await timeToFirst200(server, path.probe())
    await path.prepare?.(server)
    const result = await load(server, path.target(), { connections, seconds })
    return { rps: result.requests.average, p99: result.exactLatency.p99, statuses: statusSummary(result) }
  } finally {
    await server.stop()
  }
}

async function main() {
  if (!values['no-build']) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
  const results = new Map()
  for (let round = 0; round < rounds; round++) {
    for (const path of PATHS) {
      const order = round % 2 === 0 ? [1, 2] : [2, 1]
      for (const workers of order) {
        const measured = await measure(path, workers)
        const key = `${path.key}:${workers}`
        results.set(key, [...(results.get(key) ?? []), measured])
        console.log(
          `round ${round + 1} ${path.key} --workers ${workers}: ${Math.round(measured.rps)} req/s, p99 ${measured.p99.toFixed(1)} ms (${measured.statuses})`,
        )
      }
    }
  }
  const rows = PATHS.map(({ key }) => {
    const one = median(results.get(`${key}:1`).map((r) => r.rps))
    const two = median(results.get(`${key}:2`).map((r) => r.rps))
    return [key, String(Math.round(one)), String(Math.round(two)), (two / one).toFixed(2)]
  })
  console.log(`\nmedian req/s over ${rounds} round(s), ${seconds} s each, ${connections} connections`)
  console.log(table(['path', '--workers 1', '--workers 2', '2 ÷ 1'], rows))
}

main().then(
  () => killAll(),
  async (error) => {
    console.error(error)
    await killAll()
    process.exitCode = 1
  },
)
