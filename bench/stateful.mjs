#!/usr/bin/env node
// Stateful mode in `npm run bench` (issue #15): the create and read paths with `--stateful` beside the
// same paths without it, each as a ratio to a bare node:http server measured in the same round, and
// the memory records take. bench/run.mjs calls the three parts; this file runs its own children:
//
//   node --expose-gc bench/stateful.mjs --child memory [--records 10000] [--steps 5]
//   node bench/stateful.mjs --child in-process [--requests 20000] [--turns 3]
//
// Servers and loads (50 connections, --quiet on every mock so that only the request path differs):
// - create: POST /plants of the Plant Store (openapi.yaml), every request with a new id (1,000,000
//   and up, one counter for the whole bench run), against bare-server.mjs, the mock, and the mock with
//   `--stateful --state-limit 10000000` (the default limit, 10,000 records, would refuse creates
//   within the first second). The stateless rows get the same request stream, so that autocannon's
//   cost of building each request is the same in every row. The store grows during the run: that is
//   part of the cost measured.
// - read: GET /plants/{1..50} (round robin) of test/descriptions/stateful/garden.yaml, against
//   bare-read-server.mjs, the mock on garden.yaml, and the mock on garden.yaml with --stateful,
//   seeded with 1,000 plants through PUT /__mock/state/plants.
import { spawnSync } from 'node:child_process'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { median, startServer, table, timeToFirst200 } from './harness.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const GARDEN = 'test/descriptions/stateful/garden.yaml'
/** `--state-limit` of the stateful servers: far beyond what a bench run creates (about 20,000 a second). */
export const STATE_LIMIT = 10_000_000
/** Records the read path is seeded with (bare-read-server.mjs holds the same). */
export const SEEDED_PLANTS = Array.from({ length: 1000 }, (_, i) => ({
  id: i + 1,
  name: `Fern ${i + 1}`,
  tag: 'houseplant',
}))
const READ_IDS = 50

const HEADERS = { 'content-type': 'application/json', authorization: 'Bearer bench-token' }
const STATEFUL_ARGS = ['--stateful', '--state-limit', String(STATE_LIMIT)]

/** Ids for creates: one counter for every load of the run, so that no two requests share one. */
let nextId = 1_000_000
const newPlantBody = () => `{"id":${nextId++},"name":"Fern","tag":"houseplant"}`
const createTarget = () => ({
  requests: [
    {
      method: 'POST',
      path: '/plants',
      headers: HEADERS,
      setupRequest: (request) => ({ ...request, body: newPlantBody() }),
    },
  ],
})
const readTarget = () => ({
  requests: Array.from({ length: READ_IDS }, (_, i) => ({ method: 'GET', path: `/plants/${i + 1}`, headers: HEADERS })),
})

/** A request that answers 200 once the server is up (a create gets a new id every time it is sent). */
const createProbe = () => ({ method: 'POST', path: '/plants', headers: HEADERS, body: newPlantBody() })
const readProbe = () => ({ method: 'GET', path: '/plants/1', headers: HEADERS })
const gardenProbe = () => ({ method: 'GET', path: '/status' })

/** Puts the seed plants in a stateful garden mock, and checks that one reads back. */
async function seedGarden(server) {
  const put = await fetch(`${server.url}/__mock/state/plants`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(SEEDED_PLANTS),
    signal: AbortSignal.timeout(10_000),
  })
  if (put.status !== 200) throw new Error(`${server.name}: seeding answered ${put.status}: ${await put.text()}`)
  const read = await fetch(`${server.url}/plants/1`, { headers: HEADERS, signal: AbortSignal.timeout(10_000) })
  const body = await read.text()
  if (read.status !== 200 || JSON.parse(body).name !== 'Fern 1')
    throw new Error(`${server.name}: GET /plants/1 after seeding answered ${read.status} ${body}`)
}

/** Records the server holds, from its health route (`undefined` without --stateful). */
async function recordsHeld(server) {
  try {
    const res = await fetch(`${server.url}/__mock/health`, { signal: AbortSignal.timeout(10_000) })
    return (await res.json()).state?.records
  } catch {
    return undefined
  }
}

const node = (name, script, extra = []) => ({
  name,
  start: () => startServer(name, process.execPath, [join(root, script), '--port', '0', ...extra], { cwd: root }),
})

/** The two paths: each a baseline (bare) and the mock without and with --stateful. */
export const STATEFUL_PATHS = [
  {
    key: 'create',
    label: 'POST /plants, new id each',
    expect: 200,
    target: createTarget,
    servers: [
      { ...node('bare', 'bench/bare-server.mjs'), role: 'bare', probe: createProbe },
      { ...node('stateless', 'dist/cli.js', ['--quiet']), role: 'stateless', probe: createProbe },
      { ...node('stateful', 'dist/cli.js', ['--quiet', ...STATEFUL_ARGS]), role: 'stateful', probe: createProbe },
    ],
  },
  {
    key: 'read',
    label: 'GET /plants/{id} (garden)',
    expect: 200,
    target: readTarget,
    servers: [
      { ...node('bare-read', 'bench/bare-read-server.mjs'), role: 'bare', probe: readProbe },
      { ...node('stateless', 'dist/cli.js', ['--quiet', '--spec', GARDEN]), role: 'stateless', probe: gardenProbe },
      {
        ...node('stateful', 'dist/cli.js', ['--quiet', '--spec', GARDEN, ...STATEFUL_ARGS]),
        role: 'stateful',
        probe: gardenProbe,
        prepare: seedGarden,
      },
    ],
  },
]

/** The mock's server arguments and preparation for `--profile --profile-path create|read`. */
export const STATEFUL_PROFILE_PATHS = {
  create: {
    key: 'create',
    label: 'stateful POST /plants, new id each',
    serverArgs: STATEFUL_ARGS,
    probe: createProbe,
    target: createTarget,
  },
  read: {
    key: 'read',
    label: 'stateful GET /plants/{id} of garden.yaml, 1,000 records seeded',
    serverArgs: ['--spec', GARDEN, ...STATEFUL_ARGS],
    probe: gardenProbe,
    prepare: seedGarden,
    target: readTarget,
  },
}

/**
 * Rounds of: fresh servers, warm-up, then per path each server in turn (the order rotating by
 * round). `measure(server, target, seconds)` and `warmUp(server, targets)` are run.mjs's.
 */
export async function statefulCompare({ settings, measure, warmUp, fmt, withRatio }) {
  const { rounds, seconds, connections } = settings
  console.log(
    `\n## Stateful mode: ${STATEFUL_PATHS.map((p) => p.key).join(', ')} · bare, stateless and --stateful (--state-limit ${STATE_LIMIT}), all --quiet · ${rounds} round(s) × ${seconds} s · ${connections} connections`,
  )
  /** runs[path][role][round] = one measurement. */
  const runs = Object.fromEntries(
    STATEFUL_PATHS.map((p) => [p.key, Object.fromEntries(p.servers.map((s) => [s.role, []]))]),
  )
  const held = []
  for (let round = 0; round < rounds; round++) {
    for (const path of STATEFUL_PATHS) {
      const live = []
      try {
        for (const spec of path.servers) {
          const server = await spec.start()
          server.role = spec.role
          live.push(server)
          await timeToFirst200(server, spec.probe())
          if (spec.prepare) await spec.prepare(server)
        }
        for (const server of live) await warmUp(server, [path.target()])
        const order = live.map((_, i) => live[(i + round) % live.length])
        for (const server of order) {
          const m = await measure(server, path.target(), seconds)
          runs[path.key][server.role][round] = m
          process.stdout.write(
            `  round ${round + 1} ${path.key.padEnd(6)} ${server.role.padEnd(9)} ${fmt.int(m.rps).padStart(7)} req/s  p50 ${fmt.ms(m.p50)} ms  p99 ${fmt.ms(m.p99)} ms  CPU ${fmt.one(m.cpuMicrosPerRequest)} µs/req  ${m.statusSummary}\n`,
          )
        }
        if (path.key === 'create') {
          const records = await recordsHeld(live.find((s) => s.role === 'stateful'))
          held.push(records)
          process.stdout.write(`  round ${round + 1} create    stateful holds ${fmt.int(records)} records\n`)
        }
      } finally {
        await Promise.all(live.map((server) => server.stop()))
      }
    }
  }

  const perRound = (path, role, over, metric) =>
    median(runs[path][role].map((m, round) => m[metric] / runs[path][over][round][metric]))
  const rows = []
  const verdicts = []
  for (const path of STATEFUL_PATHS) {
    for (const { role } of path.servers) {
      const ms = runs[path.key][role]
      const med = (metric) => median(ms.map((m) => m[metric]))
      const toBare = (metric) => (role === 'bare' ? undefined : perRound(path.key, role, 'bare', metric))
      const statuses = [...new Set(ms.flatMap((m) => m.statuses))]
      rows.push([
        path.label,
        role,
        statuses.join('/') + (statuses.length === 1 && statuses[0] === path.expect ? '' : ` (want ${path.expect})`),
        withRatio(med('rps'), toBare('rps'), fmt.int),
        withRatio(med('p50'), toBare('p50'), fmt.ms),
        withRatio(med('p99'), toBare('p99'), fmt.ms),
        withRatio(med('cpuMicrosPerRequest'), toBare('cpuMicrosPerRequest'), fmt.one),
        fmt.one(med('rss')),
        role === 'stateful' ? `${perRound(path.key, 'stateful', 'stateless', 'rps').toFixed(2)}×` : '',
        role === 'stateful' ? `${perRound(path.key, 'stateful', 'stateless', 'cpuMicrosPerRequest').toFixed(2)}×` : '',
      ])
    }
    const rps = perRound(path.key, 'stateful', 'stateless', 'rps')
    const cpu = perRound(path.key, 'stateful', 'stateless', 'cpuMicrosPerRequest')
    const within = rps >= 0.85 && cpu <= 1.15
    verdicts.push({ path: path.key, rps, cpu, within })
  }
  console.log(
    `\nMedians over ${rounds} round(s); (×) = median of the per-round ratio to bare on the same path; "vs stateless" = median of the per-round ratio of the stateful mock to the stateless one (the same as the ratio of their ratios to bare).\n`,
  )
  console.log(
    table(
      [
        'path',
        'server',
        'status',
        'req/s',
        'p50 ms',
        'p99 ms',
        'CPU µs/req',
        'RSS MiB',
        'req/s vs stateless',
        'CPU vs stateless',
      ],
      rows,
    ),
  )
  console.log(`\nThe stateful create server held ${held.map(fmt.int).join(' / ')} records at the end of each round.`)
  for (const v of verdicts)
    console.log(
      `  ${v.within ? 'WITHIN' : 'MISSED'}  ${v.path}: req/s ${v.rps.toFixed(2)}× stateless (target ≥ 0.85), CPU per request ${v.cpu.toFixed(2)}× (target ≤ 1.15)`,
    )
  return { settings, stateLimit: STATE_LIMIT, runs, held, verdicts }
}

// ---------------------------------------------------------------------------------------------
// Memory per 10,000 records, and CPU per request in process: each in a child of its own.

function runChild(nodeArgs, childArgs) {
  const run = spawnSync(process.execPath, [...nodeArgs, fileURLToPath(import.meta.url), ...childArgs], {
    cwd: root,
    encoding: 'utf8',
    timeout: 600_000,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  if (run.status !== 0)
    throw new Error(`bench/stateful.mjs ${childArgs.join(' ')} failed (${run.signal ?? run.status})`)
  return JSON.parse(run.stdout.trim().split('\n').at(-1))
}

/** Heap taken by records made through `app.request` (createApp, --expose-gc), step by step. */
export function statefulMemory({ records = 10_000, steps = 5, fmt }) {
  console.log(
    `\n## Stateful mode: memory per ${fmt.int(records)} records · in process (createApp, stateful, stateLimit ${STATE_LIMIT}) · ${steps} steps · node --expose-gc`,
  )
  const result = runChild(
    ['--expose-gc'],
    ['--child', 'memory', '--records', String(records), '--steps', String(steps)],
  )
  const rows = result.steps.map((s) => [
    `${fmt.int(s.from)} → ${fmt.int(s.to)}`,
    (s.heapBefore / 2 ** 20).toFixed(2),
    (s.heapAfter / 2 ** 20).toFixed(2),
    ((s.heapAfter - s.heapBefore) / 2 ** 20).toFixed(2),
    fmt.int(s.bytesPerRecord),
  ])
  console.log(
    `\nRecords like ${result.example} (${result.exampleBytes} bytes as JSON), created with POST /plants; heapUsed after a full GC (twice), journal cleared before each reading.\n`,
  )
  console.log(table(['records held', 'heap before MiB', 'heap after MiB', 'grown MiB', 'bytes/record'], rows))
  console.log(
    `\n${fmt.int(result.bytesPerRecord)} bytes per record over all ${fmt.int(records * steps)} records (the median step: ${fmt.int(result.medianBytesPerRecord)}): ${((result.bytesPerRecord * 10_000) / 2 ** 20).toFixed(2)} MiB per 10,000 records. Steps differ mostly by whether the store's Map doubles its table within them.`,
  )
  return result
}

/** CPU per request in one process, stateful beside stateless, less noisy than over a socket. */
export function statefulInProcess({ requests = 20_000, turns = 3, fmt }) {
  console.log(
    `\n## Stateful mode in process: app.request, ${fmt.int(requests)} requests after 3,000 warm-up, process.cpuUsage · ${turns} turns`,
  )
  const result = runChild([], ['--child', 'in-process', '--requests', String(requests), '--turns', String(turns)])
  const rows = result.rows.map((r) => [
    r.label,
    r.samples.map((s) => s.toFixed(1)).join(' / '),
    r.median.toFixed(1),
    r.vs ? `${r.vs.toFixed(2)}×` : '',
  ])
  console.log('')
  console.log(table(['path', 'µs/req per turn', 'median µs/req', 'vs stateless'], rows))
  console.log(
    `\nA create without an id (the store assigns the next integer) on garden.yaml, µs per create by records held: ${result.noId.map((b) => `${fmt.int(b.held)}: ${b.micros.toFixed(0)}`).join(' · ')}`,
  )
  return result
}

// ---------------------------------------------------------------------------------------------
// The children.

async function loadApp() {
  return import(pathToFileURL(join(root, 'dist/index.js')).href)
}

async function send(app, path, init, expect) {
  const res = await app.request(path, init)
  await res.arrayBuffer()
  if (res.status !== expect) throw new Error(`${init?.method ?? 'GET'} ${path} answered ${res.status}, not ${expect}`)
}

async function memoryChild({ records, steps }) {
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')
  const { createApp } = await loadApp()
  const app = await createApp({ stateful: true, stateLimit: STATE_LIMIT })
  const bodyOf = (id) => `{"id":${id},"name":"Fern ${id}","tag":"houseplant"}`
  let id = 0
  const create = async (count) => {
    for (let i = 0; i < count; i++)
      await send(app, '/plants', { method: 'POST', headers: HEADERS, body: bodyOf(++id) }, 200)
  }
  const heap = async () => {
    app.mock.clearRequests()
    await new Promise((r) => setImmediate(r))
    globalThis.gc()
    globalThis.gc()
    return process.memoryUsage().heapUsed
  }
  await create(1000) // warm-up: compiled code, caches, the journal's first entries
  const out = []
  for (let step = 0; step < steps; step++) {
    const from = id
    const heapBefore = await heap()
    await create(records)
    const heapAfter = await heap()
    out.push({ from, to: id, heapBefore, heapAfter, bytesPerRecord: (heapAfter - heapBefore) / records })
  }
  const held = app.mock.state.get('plants').length
  if (held !== id) throw new Error(`the store holds ${held} records, not ${id}`)
  return {
    records,
    steps: out,
    bytesPerRecord: (out.at(-1).heapAfter - out[0].heapBefore) / (records * steps),
    medianBytesPerRecord: median(out.map((s) => s.bytesPerRecord)),
    example: bodyOf(1_000_000),
    exampleBytes: Buffer.byteLength(bodyOf(1_000_000)),
  }
}

async function inProcessChild({ requests, turns }) {
  const { createApp } = await loadApp()
  const gardenSpec = join(root, GARDEN)
  let id = 1_000_000
  const newBodyIn = (n) => `{"id":${n},"name":"Fern","tag":"houseplant"}`
  const post = () => ['/plants', { method: 'POST', headers: HEADERS, body: newBodyIn(++id) }, 200]
  let n = 0
  const get = () => [`/plants/${1 + (n++ % READ_IDS)}`, { headers: HEADERS }, 200]
  const paths = [
    { label: 'create, stateless', app: () => createApp({}), request: post },
    { label: 'create, stateful', app: () => createApp({ stateful: true, stateLimit: STATE_LIMIT }), request: post },
    { label: 'read (garden), stateless', app: () => createApp({ spec: gardenSpec }), request: get },
    {
      label: 'read (garden), stateful',
      app: async () => {
        const app = await createApp({ spec: gardenSpec, stateful: true, stateLimit: STATE_LIMIT })
        app.mock.state.set('plants', SEEDED_PLANTS)
        return app
      },
      request: get,
    },
  ]
  const samples = paths.map(() => [])
  for (let turn = 0; turn < turns; turn++) {
    for (const [i, path] of paths.entries()) {
      const app = await path.app()
      for (let k = 0; k < 3000; k++) await send(app, ...path.request())
      const before = process.cpuUsage()
      for (let k = 0; k < requests; k++) await send(app, ...path.request())
      const used = process.cpuUsage(before)
      samples[i].push((used.user + used.system) / requests)
    }
  }
  const rows = paths.map((path, i) => ({ label: path.label, samples: samples[i], median: median(samples[i]) }))
  rows[1].vs = rows[1].median / rows[0].median
  rows[3].vs = rows[3].median / rows[2].median

  // Creates without an id: the cost as the store grows (bounded: 5 batches of 2,000).
  const app = await createApp({ spec: gardenSpec, stateful: true, stateLimit: STATE_LIMIT })
  const noId = []
  for (let batch = 0, held = 0; batch < 5; batch++) {
    const before = process.cpuUsage()
    for (let k = 0; k < 2000; k++)
      await send(app, '/plants', { method: 'POST', headers: HEADERS, body: '{"name":"Fern","tag":"houseplant"}' }, 201)
    const used = process.cpuUsage(before)
    held += 2000
    noId.push({ held, micros: (used.user + used.system) / 2000 })
  }
  return { requests, turns, rows, noId }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      records: { type: 'string', default: '10000' },
      steps: { type: 'string', default: '5' },
      requests: { type: 'string', default: '20000' },
      turns: { type: 'string', default: '3' },
    },
  })
  const bounded = (name, max) => {
    const value = Number(values[name])
    if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`--${name} must be 1 to ${max}`)
    return value
  }
  const run =
    values.child === 'memory'
      ? memoryChild({ records: bounded('records', 1_000_000), steps: bounded('steps', 10) })
      : values.child === 'in-process'
        ? inProcessChild({ requests: bounded('requests', 200_000), turns: bounded('turns', 10) })
        : Promise.reject(new Error('--child memory|in-process'))
  run.then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (error) => {
      process.stderr.write(`${error?.stack ?? error}\n`)
      process.exitCode = 1
    },
  )
}
