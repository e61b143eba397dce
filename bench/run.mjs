#!/usr/bin/env node
// `npm run bench`: builds the mock, then measures it against a bare node:http server (and Prism,
// when @stoplight/prism-cli is installed) under the same autocannon load, in alternating turns.
//
//   npm run bench                      3 rounds × 4 paths × 5 s, 50 connections, then the targets of issue
//                                      #19 judged on them (bench/hot-path-targets.mjs); then the generation
//                                      bomb (another client's p99, #34); then stateful mode (create and
//                                      read, beside stateless) and memory per 10,000 records
//   npm run bench -- --quick           1 round, 2 s per load: a smoke run
//   npm run bench -- --stateful        stateful mode only (bench/stateful.mjs): create and read against
//                                      bare and stateless, then memory per 10,000 records
//   npm run bench -- --memory          memory per 10,000 records only (in process, --expose-gc)
//   npm run bench -- --rules           conditional rules only (bench/rules.mjs): valid POST /plants with
//                                      0, 10, 100 non-matching rules (and 100 mixing body, headers, query)
//                                      against bare; about 5 × (seconds + 1) s a round, so not in the
//                                      default run (in --all)
//   npm run bench -- --gap             where the gap to the Hono + Ajv reference goes (bench/gap.mjs, #34
//                                      §6): valid POST /plants against bare, the reference, the mock with
//                                      default flags, --quiet, --journal-size 0, both, and the mock's floor
//                                      (bench/mock-floor-server.mjs: its server without the pipeline), then
//                                      the CPU a request by part; about 7 × (seconds + 3) s a round (in --all)
//   npm run bench -- --proxy           proxy mode only (bench/proxy.mjs): valid POST /plants straight at
//                                      a node:http upstream, through the mock in proxy mode in front of it,
//                                      and at the mock in mock mode; proxy req/s ÷ direct req/s against
//                                      issue #18's target (≥ 0.70), then direct and proxy again in front of
//                                      an upstream that waits 5 ms; about 5 × (seconds + 1.5) s a round,
//                                      so not in the default run (in --all)
//   npm run bench -- --peers           the peers of issue #19 (bench/peers.mjs): valid POST /plants against
//                                      the mock, bare, Prism, Mockoon CLI, WireMock and Scalar's mock server,
//                                      installed on demand from bench/peers/ into .cache/peers/ (npm ci); not
//                                      in the default run nor in --all
//   npm run bench -- --streams         streamed answers (bench/streams.mjs): CPU per SSE item and time to
//                                      first byte against a bare node:http SSE writer (#31)
//   npm run bench -- --instructions    CPU instructions a request, counted by valgrind's callgrind (bench/
//                                      instructions.mjs): bare, the Hono + Ajv reference (bench/hono-ajv-
//                                      server.mjs) and the mock on the four paths, then where the mock's go;
//                                      holds on a busy machine where timings do not; needs valgrind; about
//                                      10 min, so not in the default run (in --all)
//   npm run bench -- --bomb            the generation bomb only (bench/generation-bomb.mjs): another client's
//                                      p99 while one body takes seconds of CPU to make (#34; in the default run)
//   npm run bench -- --in-process      stateful and stateless CPU per request through app.request
//   npm run bench -- --scale           start-up, RSS and routing throughput for 10/100/1000 operations
//   npm run bench -- --profile         CPU profile of the mock under the valid-path load, summarised
//   npm run bench -- --all             comparison, stateful mode, memory, in process, rules, proxy, then scale
//   npm run bench -- --soak            mixed valid and invalid traffic, 100 connections × 60 s: errors,
//                                      status classes, RSS every 5 s, pass/fail (exit 1 on fail)
// Options: --rounds N  --seconds S  --connections C  --no-prism  --no-build  --json FILE
//          --dashboards N (with --instructions: the mock again with N journal streams open, #29;
//          alone: CPU per valid request under load with N streams open against none, bench/dashboards.mjs)
//          --top N (profile rows)  --profile-path valid|invalid|noauth|prefer|create|read
//          (create, read: the stateful paths of bench/stateful.mjs)
//
// Everything listens on 127.0.0.1 with a port the OS picks (--port 0 / -p 0, read from the
// "listening on" line); every load is bounded in time; every child is killed on the way out.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { generateSpec, urlOf } from './generate-spec.mjs'
import { BOMB_PATHS, otherClientDuringBomb } from './generation-bomb.mjs'
import {
  cpuSeconds,
  killAll,
  load,
  median,
  probe,
  rssMiB,
  sleep,
  startServer,
  statusSummary,
  statusesOf,
  table,
  timeToFirst200,
} from './harness.mjs'
import { summariseProfile } from './profile-summary.mjs'
import { hotPathTargets } from './hot-path-targets.mjs'
import { proxyCompare } from './proxy.mjs'
import { instructionCounts } from './instructions.mjs'
import { dashboardsUnderLoad } from './dashboards.mjs'
import { streamsCompare } from './streams.mjs'
import { peersCompare } from './peers.mjs'
import { rulesCompare } from './rules.mjs'
import { gapCompare } from './gap.mjs'
import { STATEFUL_PROFILE_PATHS, statefulCompare, statefulInProcess, statefulMemory } from './stateful.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const PRISM_BIN = join(root, 'node_modules/@stoplight/prism-cli/dist/index.js')

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    scale: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    all: { type: 'boolean', default: false },
    soak: { type: 'boolean', default: false },
    bomb: { type: 'boolean', default: false },
    stateful: { type: 'boolean', default: false },
    memory: { type: 'boolean', default: false },
    'in-process': { type: 'boolean', default: false },
    dashboards: { type: 'string', default: '0' },
    streams: { type: 'boolean', default: false },
    rules: { type: 'boolean', default: false },
    gap: { type: 'boolean', default: false },
    proxy: { type: 'boolean', default: false },
    peers: { type: 'boolean', default: false },
    instructions: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string' },
    'no-prism': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    json: { type: 'string' },
    top: { type: 'string', default: '15' },
    'profile-path': { type: 'string', default: 'valid' },
  },
})
const settings = {
  rounds: Number(args.rounds ?? (args.quick ? 1 : 3)),
  seconds: Number(args.seconds ?? (args.soak ? 60 : args.quick ? 2 : 5)),
  warmupSeconds: args.quick ? 0.5 : 1,
  connections: Number(args.connections ?? (args.soak ? 100 : 50)),
  prism: !args['no-prism'] && existsSync(PRISM_BIN),
}
for (const [name, value] of Object.entries(settings)) {
  if (typeof value === 'number' && !(value > 0)) throw new Error(`--${name} must be a positive number`)
}

// ---------------------------------------------------------------------------------------------
// The four request shapes, against POST /plants of openapi.yaml.

const JSON_HEADERS = { 'content-type': 'application/json' }
const AUTH = { authorization: 'Bearer bench-token' }
const VALID_BODY = JSON.stringify({ id: 1, name: 'Fern', tag: 'houseplant' })
const PATHS = [
  {
    key: 'valid',
    label: 'valid POST /plants',
    expect: 200,
    method: 'POST',
    path: '/plants',
    headers: { ...JSON_HEADERS, ...AUTH },
    body: VALID_BODY,
  },
  {
    key: 'invalid',
    label: 'invalid body',
    expect: 400,
    method: 'POST',
    path: '/plants',
    headers: { ...JSON_HEADERS, ...AUTH },
    body: JSON.stringify({ name: 42, tag: 'x' }),
  },
  {
    key: 'noauth',
    label: 'no credentials',
    expect: 401,
    method: 'POST',
    path: '/plants',
    headers: JSON_HEADERS,
    body: VALID_BODY,
  },
  {
    key: 'prefer',
    label: 'Prefer: code=400',
    expect: 400,
    method: 'POST',
    path: '/plants',
    headers: { ...JSON_HEADERS, ...AUTH, prefer: 'code=400' },
    body: VALID_BODY,
  },
]

const SERVERS = [
  {
    name: 'bare',
    start: () =>
      startServer('bare', process.execPath, [join(root, 'bench/bare-server.mjs'), '--port', '0'], { cwd: root }),
  },
  // The least a Hono server needs to make the same checks (bench/hono-ajv-server.mjs): the mock's target
  // is ≥ 0.9 × its req/s on the valid and invalid paths, with a p99 no worse (#34 §6).
  {
    name: 'hono-ajv',
    start: () =>
      startServer('hono-ajv', process.execPath, [join(root, 'bench/hono-ajv-server.mjs'), '--port', '0'], {
        cwd: root,
      }),
  },
  // Default options: a request line per request goes to stdout (issue #6).
  {
    name: 'mock',
    start: () => startServer('mock', process.execPath, [join(root, 'dist/cli.js'), '--port', '0'], { cwd: root }),
  },
  // The same without request lines: the bare server logs nothing, so this row isolates the request path.
  {
    name: 'mock-quiet',
    start: () =>
      startServer('mock-quiet', process.execPath, [join(root, 'dist/cli.js'), '--port', '0', '--quiet'], { cwd: root }),
  },
  ...(settings.prism
    ? [
        {
          name: 'prism',
          start: () =>
            startServer(
              'prism',
              process.execPath,
              [PRISM_BIN, 'mock', join(root, 'openapi.yaml'), '-p', '0', '-h', '127.0.0.1'],
              { cwd: root, timeoutMs: 120_000 },
            ),
        },
      ]
    : []),
]

// ---------------------------------------------------------------------------------------------

function build() {
  if (args['no-build']) return
  console.log('> npm run build')
  const built = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' })
  if (built.status !== 0) throw new Error(`npm run build failed (${built.signal ?? built.status})`)
}

/** Loads one server with one target and reads its CPU and RSS around the load. */
async function measure(server, target, seconds) {
  const cpuBefore = cpuSeconds(server)
  const result = await load(server, target, { connections: settings.connections, seconds })
  await sleep(250) // let the server finish in-flight work (and Prism flush its request log)
  const cpu = cpuSeconds(server) - cpuBefore
  const requests = result.requests.total
  return {
    rps: result.requests.average,
    p50: result.exactLatency.p50,
    p99: result.exactLatency.p99,
    cpuMicrosPerRequest: requests ? (cpu * 1e6) / requests : Number.NaN,
    rss: rssMiB(server),
    requests,
    statuses: statusesOf(result),
    statusSummary: statusSummary(result),
  }
}

async function warmUp(server, targets) {
  for (const target of targets)
    await load(server, target, { connections: settings.connections, seconds: settings.warmupSeconds })
}

const fmt = {
  int: (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a'),
  ms: (n) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 3 : 1) : 'n/a'),
  one: (n) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a'),
  ratio: (n) => (Number.isFinite(n) ? `(${n.toFixed(2)}×)` : ''),
}
const withRatio = (value, ratio, format) =>
  ratio === undefined ? format(value) : `${format(value)} ${fmt.ratio(ratio)}`.trim()

// ---------------------------------------------------------------------------------------------
// Mode 1: mock vs bare (vs Prism), A B A B.

async function compare() {
  const { rounds, seconds } = settings
  console.log(
    `\n## Comparison: ${SERVERS.map((s) => s.name).join(', ')} · ${rounds} round(s) × ${PATHS.length} paths × ${seconds} s · ${settings.connections} connections`,
  )
  /** runs[server][path] = one measurement per round; startup[server] = ms per round. */
  const runs = Object.fromEntries(SERVERS.map((s) => [s.name, Object.fromEntries(PATHS.map((p) => [p.key, []]))]))
  const startup = Object.fromEntries(SERVERS.map((s) => [s.name, []]))
  for (let round = 0; round < rounds; round++) {
    // Fresh processes every round: each round gives one start-up sample, and no round inherits another's heap.
    const live = []
    try {
      for (const spec of SERVERS) {
        const server = await spec.start()
        live.push(server)
        startup[spec.name][round] = await timeToFirst200(server, PATHS[0])
      }
      for (const server of live) await warmUp(server, PATHS)
      // Alternate which server goes first, so that neither always follows the other's load.
      const order = live.map((_, i) => live[(i + round) % live.length])
      for (const target of PATHS) {
        for (const server of order) {
          const m = await measure(server, target, seconds)
          runs[server.name][target.key][round] = m
          process.stdout.write(
            `  round ${round + 1} ${target.key.padEnd(7)} ${server.name.padEnd(5)} ${fmt.int(m.rps).padStart(7)} req/s  p50 ${fmt.ms(m.p50)} ms  p99 ${fmt.ms(m.p99)} ms  ${m.statusSummary}\n`,
          )
        }
      }
    } finally {
      await Promise.all(live.map((server) => server.stop()))
    }
  }

  const ratioOf = (server, path, metric) =>
    median(runs[server][path].map((m, round) => m[metric] / runs.bare[path][round][metric]))
  const startupRatio = (server) => median(startup[server].map((ms, round) => ms / startup.bare[round]))
  const rows = []
  for (const target of PATHS) {
    for (const { name } of SERVERS) {
      const ms = runs[name][target.key]
      const med = (metric) => median(ms.map((m) => m[metric]))
      const r = (metric) => (name === 'bare' ? undefined : ratioOf(name, target.key, metric))
      const statuses = [...new Set(ms.flatMap((m) => m.statuses))]
      rows.push([
        target.label,
        name,
        statuses.join('/') + (statuses.length === 1 && statuses[0] === target.expect ? '' : ` (want ${target.expect})`),
        withRatio(med('rps'), r('rps'), fmt.int),
        withRatio(med('p50'), r('p50'), fmt.ms),
        withRatio(med('p99'), r('p99'), fmt.ms),
        withRatio(med('cpuMicrosPerRequest'), r('cpuMicrosPerRequest'), fmt.one),
        withRatio(med('rss'), r('rss'), fmt.one),
        withRatio(median(startup[name]), name === 'bare' ? undefined : startupRatio(name), fmt.int),
      ])
    }
  }
  console.log(`\nMedians over ${rounds} round(s); (×) = median of the per-round ratio to bare on the same path.\n`)
  console.log(
    table(['path', 'server', 'status', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'RSS MiB', 'start ms'], rows),
  )
  // The mock against the Hono + Ajv reference, round by round (#34 §6).
  const toReference = (server, path, metric) =>
    median(runs[server][path].map((m, round) => m[metric] / runs['hono-ajv'][path][round][metric]))
  const referenceRows = PATHS.flatMap((target) =>
    ['mock', 'mock-quiet'].map((name) => [
      target.label,
      name,
      toReference(name, target.key, 'rps').toFixed(2),
      toReference(name, target.key, 'p99').toFixed(2),
    ]),
  )
  console.log(
    '\nThe mock ÷ the Hono + Ajv reference (median of the per-round ratios; #34 §6 asks ≥ 0.90 req/s, ≤ 1.00 p99, on valid and invalid):\n',
  )
  console.log(table(['path', 'server', 'req/s ÷ hono-ajv', 'p99 ÷ hono-ajv'], referenceRows))
  const targets = hotPathTargets({ paths: PATHS, runs, ratioOf, median, prism: settings.prism })
  const missed = targets.filter((row) => row[3] === 'MISSED').length
  console.log(
    `\nThe targets of issue #19, the mock with default options, from this run (${missed} of ${targets.length} missed):\n`,
  )
  console.log(table(['path', 'target', 'value', ''], targets))
  return { settings, runs, startup, toReference: referenceRows, hotPathTargets: targets }
}

// ---------------------------------------------------------------------------------------------
// Mode 2: descriptions with 10, 100, 1000 operations.

async function scale() {
  const sizes = [10, 100, 1000]
  const { rounds, seconds } = settings
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-mock-bench-'))
  const servers = [
    {
      name: 'mock',
      start: (spec) =>
        startServer('mock', process.execPath, [join(root, 'dist/cli.js'), '--port', '0', '--spec', spec, '--quiet'], {
          cwd: dir,
          timeoutMs: 120_000,
        }),
    },
    ...(settings.prism
      ? [
          {
            name: 'prism',
            start: (spec) =>
              startServer('prism', process.execPath, [PRISM_BIN, 'mock', spec, '-p', '0', '-h', '127.0.0.1'], {
                cwd: dir,
                timeoutMs: 120_000,
              }),
          },
        ]
      : []),
  ]
  console.log(
    `\n## Scale: ${sizes.join(' / ')} operations · ${servers.map((s) => s.name).join(', ')} · ${rounds} round(s) × ${seconds} s · ${settings.connections} connections`,
  )
  const results = []
  try {
    for (const size of sizes) {
      const file = join(dir, `spec-${size}.json`)
      writeFileSync(file, JSON.stringify(generateSpec(size)))
      const pathCount = size / 2
      // 50 GETs spread evenly over the paths, first to last, so that routing sees the whole table.
      const spread = Array.from({ length: 50 }, (_, k) => Math.round((k * (pathCount - 1)) / 49))
      const rotating = { requests: [...new Set(spread)].map((i) => ({ method: 'GET', path: urlOf(i) })) }
      const last = { method: 'GET', path: urlOf(pathCount - 1) }
      for (const spec of servers) {
        const samples = []
        for (let round = 0; round < rounds; round++) {
          const server = await spec.start(file)
          try {
            const startMs = await timeToFirst200(server, last, { timeoutMs: 120_000 })
            const rssIdle = rssMiB(server)
            await load(server, rotating, { connections: settings.connections, seconds: settings.warmupSeconds })
            samples.push({ startMs, rssIdle, ...(await measure(server, rotating, seconds)) })
          } finally {
            await server.stop()
          }
          const s = samples.at(-1)
          process.stdout.write(
            `  ${String(size).padStart(4)} ops ${spec.name.padEnd(5)} start ${fmt.int(s.startMs)} ms  ${fmt.int(s.rps)} req/s  ${s.statusSummary}\n`,
          )
        }
        const med = (metric) => median(samples.map((s) => s[metric]))
        results.push({ size, server: spec.name, samples })
        results.at(-1).row = [
          String(size),
          spec.name,
          fmt.int(med('startMs')),
          fmt.one(med('rssIdle')),
          fmt.one(med('rss')),
          fmt.int(med('rps')),
          fmt.ms(med('p50')),
          fmt.ms(med('p99')),
          fmt.one(med('cpuMicrosPerRequest')),
          [...new Set(samples.flatMap((s) => s.statuses))].join('/'),
        ]
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  console.log(
    `\nMedians over ${rounds} round(s). start = spawn to first 200 of the last operation; load = 50 GETs over all paths, round robin.\n`,
  )
  console.log(
    table(
      [
        'operations',
        'server',
        'start ms',
        'RSS idle MiB',
        'RSS load MiB',
        'req/s',
        'p50 ms',
        'p99 ms',
        'CPU µs/req',
        'status',
      ],
      results.map((r) => r.row),
    ),
  )
  return results.map(({ size, server, samples }) => ({ size, server, samples }))
}

// ---------------------------------------------------------------------------------------------
// Mode 3: where the mock spends its time on the valid path.

async function profile() {
  const seconds = args.seconds ? settings.seconds : args.quick ? 3 : 10
  const stateful = STATEFUL_PROFILE_PATHS[args['profile-path']]
  const target = stateful ? stateful.target() : PATHS.find((p) => p.key === args['profile-path'])
  if (!target)
    throw new Error(
      `--profile-path must be one of ${[...PATHS.map((p) => p.key), ...Object.keys(STATEFUL_PROFILE_PATHS)].join(', ')}`,
    )
  const label = stateful?.label ?? target.label
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-mock-profile-'))
  console.log(
    `\n## CPU profile: mock under ${seconds} s of ${label} (${args['profile-path']}), ${settings.connections} connections`,
  )
  const server = await startServer(
    'mock',
    process.execPath,
    [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      join(root, 'dist/cli.js'),
      '--port',
      '0',
      '--quiet',
      ...(stateful?.serverArgs ?? []),
    ],
    { cwd: root },
  )
  let result
  try {
    await timeToFirst200(server, stateful ? stateful.probe() : PATHS[0])
    if (stateful?.prepare) await stateful.prepare(server)
    await warmUp(server, [target])
    result = await load(server, target, { connections: settings.connections, seconds })
  } finally {
    await server.stop() // SIGTERM: the mock closes and exits, and V8 writes the profile
  }
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))
  if (!file) throw new Error(`no .cpuprofile in ${dir}`)
  console.log(
    `${fmt.int(result.requests.average)} req/s, ${statusSummary(result)}. Profile (start-up and warm-up included): ${join(dir, file)}\n`,
  )
  console.log(summariseProfile(JSON.parse(readFileSync(join(dir, file), 'utf8')), Number(args.top)))
  return { file: join(dir, file) }
}

// ---------------------------------------------------------------------------------------------
// Mode 4: soak. Mixed valid and invalid traffic for a bounded time; the mock must not fail.

/** One rotation of the soak: every connection cycles through these, so each answer class keeps coming. */
const SOAK_REQUESTS = [
  { method: 'POST', path: '/plants', headers: { ...JSON_HEADERS, ...AUTH }, body: VALID_BODY },
  {
    method: 'POST',
    path: '/plants',
    headers: { ...JSON_HEADERS, ...AUTH },
    body: JSON.stringify({ id: '9223372036854775808', name: 5 }),
  },
  { method: 'POST', path: '/plants', headers: JSON_HEADERS, body: VALID_BODY },
  {
    method: 'POST',
    path: '/plants',
    headers: { ...JSON_HEADERS, ...AUTH, prefer: 'code=400, example=duplicate-id' },
    body: VALID_BODY,
  },
  { method: 'POST', path: '/plants', headers: { ...JSON_HEADERS, ...AUTH, prefer: 'dynamic=true' }, body: VALID_BODY },
  { method: 'POST', path: '/plants', headers: { ...JSON_HEADERS, ...AUTH }, body: '{"id": 1, "name": "Fe' },
  { method: 'POST', path: '/plants', headers: { 'content-type': 'text/plain', ...AUTH }, body: 'Fern' },
  {
    method: 'POST',
    path: '/plants',
    headers: { ...JSON_HEADERS, ...AUTH, 'x-mock-scenario': 'error', 'x-mock-session': 'soak' },
    body: VALID_BODY,
  },
  { method: 'POST', path: '/plants', headers: { ...JSON_HEADERS, ...AUTH, accept: 'text/html' }, body: VALID_BODY },
  {
    method: 'POST',
    path: '/plants',
    headers: { ...JSON_HEADERS, ...AUTH },
    body: JSON.stringify({ id: 1, name: 'x'.repeat(20_000), tag: '__proto__' }),
  },
  { method: 'GET', path: '/plants' },
  { method: 'GET', path: '/no/such/path/%2e%2e' },
  { method: 'GET', path: '/__mock/health' },
]

async function soak() {
  const { seconds, connections } = settings
  const sampleEveryMs = 5000
  console.log(
    `\n## Soak: mock · ${SOAK_REQUESTS.length} request shapes in rotation · ${connections} connections × ${seconds} s · RSS every ${sampleEveryMs / 1000} s`,
  )
  const server = await startServer('mock', process.execPath, [join(root, 'dist/cli.js'), '--port', '0'], { cwd: root })
  try {
    await timeToFirst200(server, PATHS[0])
    await load(server, { requests: SOAK_REQUESTS }, { connections, seconds: 5 }) // warm-up, not counted
    const started = performance.now()
    const samples = [{ t: 0, rss: rssMiB(server) }]
    const sampler = setInterval(
      () => samples.push({ t: Math.round((performance.now() - started) / 1000), rss: rssMiB(server) }),
      sampleEveryMs,
    )
    let result
    try {
      result = await load(server, { requests: SOAK_REQUESTS }, { connections, seconds })
    } finally {
      clearInterval(sampler)
    }
    samples.push({ t: Math.round((performance.now() - started) / 1000), rss: rssMiB(server) })
    const alive = (await probe(`${server.url}/__mock/health`)) === 200
    const counts = {
      requests: result.requests.total,
      '2xx': result['2xx'],
      '4xx': result['4xx'],
      '5xx': result['5xx'],
      other: result['1xx'] + result['3xx'],
      errors: result.errors,
      timeouts: result.timeouts,
    }
    // Flat: the mean of the last three samples is within max(16 MiB, 10 %) of the mean of the first three.
    const mean = (list) => list.reduce((sum, s) => sum + s.rss, 0) / list.length
    const early = mean(samples.slice(0, 3))
    const late = mean(samples.slice(-3))
    const growth = late - early
    const allowed = Math.max(16, early * 0.1)
    const checks = [
      ['0 connection errors and 0 timeouts', counts.errors === 0 && counts.timeouts === 0],
      ['0 answers 5xx', counts['5xx'] === 0],
      ['every answer 2xx or 4xx', counts.other === 0 && counts['2xx'] + counts['4xx'] === counts.requests],
      [`memory flat: late mean − early mean = ${fmt.one(growth)} MiB ≤ ${fmt.one(allowed)} MiB`, growth <= allowed],
      ['still answers /__mock/health after the soak', alive],
    ]
    console.log(
      `\n${fmt.int(result.requests.average)} req/s · p50 ${fmt.ms(result.exactLatency.p50)} ms · p99 ${fmt.ms(result.exactLatency.p99)} ms · ${statusSummary(result)}\n`,
    )
    console.log(
      table(['requests', '2xx', '4xx', '5xx', 'other', 'errors', 'timeouts'], [Object.values(counts).map(fmt.int)]),
    )
    console.log(`\nRSS (MiB) by second: ${samples.map((s) => `${s.t}s ${fmt.one(s.rss)}`).join(' · ')}\n`)
    for (const [label, ok] of checks) console.log(`  ${ok ? 'PASS' : 'FAIL'}  ${label}`)
    const passed = checks.every(([, ok]) => ok)
    console.log(`\nsoak ${passed ? 'PASSED' : 'FAILED'}`)
    if (!passed) process.exitCode = 1
    return {
      settings,
      counts,
      samples,
      growth,
      allowed,
      passed,
      statuses: result.statusCodeStats,
      rps: result.requests.average,
    }
  } finally {
    await server.stop()
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * The other client's wait while one body takes seconds of CPU to make (#34 §1: its p99 under 50 ms):
 * the mock with default flags, `/bomb` asked once and `/ping` every 10 ms until it is answered.
 */
async function generationBomb() {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-mock-bomb-'))
  const spec = join(dir, 'bomb.json')
  writeFileSync(spec, JSON.stringify({ openapi: '3.1.0', info: { title: 'bomb', version: '1' }, paths: BOMB_PATHS }))
  const server = await startServer(
    'mock',
    process.execPath,
    [join(root, 'dist/cli.js'), '--port', '0', '--spec', spec],
    {
      cwd: root,
    },
  )
  try {
    const seen = await otherClientDuringBomb(server.url)
    console.log(
      `\n## The generation bomb (#34): one body of 300,000 items, another client every 10 ms\n\nthe body took ${fmt.int(seen.ms)} ms (status ${seen.statuses.at(-1)}); ${seen.pings} answers to the other client meanwhile, p99 ${fmt.one(seen.p99)} ms (target < 50)\n`,
    )
    return { ms: seen.ms, pings: seen.pings, p99: seen.p99, status: seen.statuses.at(-1) }
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main() {
  build()
  console.log(
    `node ${process.version} · ${settings.prism ? 'Prism found' : args['no-prism'] ? 'Prism skipped (--no-prism)' : 'Prism not installed: skipped'}${args.quick ? ' · quick mode' : ''}`,
  )
  const report = {}
  const otherMode =
    args.scale ||
    args.profile ||
    args.soak ||
    args.stateful ||
    args.memory ||
    args['in-process'] ||
    args.rules ||
    args.gap ||
    args.proxy ||
    args.peers ||
    args.instructions ||
    args.bomb ||
    args.streams ||
    Number(args.dashboards) > 0
  if (args.soak) report.soak = await soak()
  if (args.profile) report.profile = await profile()
  if (args.all || !otherMode) report.compare = await compare()
  const helpers = { settings, measure, warmUp, fmt, withRatio }
  if (args.all || args.bomb || !otherMode) report.bomb = await generationBomb()
  if (args.all || args.stateful || !otherMode) report.stateful = await statefulCompare(helpers)
  if (args.all || args.stateful || args.memory || !otherMode) report.memory = statefulMemory({ fmt })
  if (args.all || args['in-process']) report.inProcess = statefulInProcess({ fmt })
  if (args.all || args.rules) report.rules = await rulesCompare(helpers)
  if (args.all || args.gap) report.gap = await gapCompare({ ...helpers, target: PATHS[0] })
  if (args.all || args.proxy) report.proxy = await proxyCompare(helpers)
  if (args.peers) report.peers = await peersCompare(helpers)
  if (args.streams) report.streams = await streamsCompare({ root, rounds: Number(args.rounds ?? 3), fmt })
  if (Number(args.dashboards) > 0 && !args.instructions)
    report.dashboards = await dashboardsUnderLoad({
      root,
      target: PATHS[0],
      rounds: Number(args.rounds ?? 5),
      seconds: Number(args.seconds ?? 5),
      dashboards: Number(args.dashboards),
      fmt,
    })
  if (args.all || args.instructions)
    report.instructions = await instructionCounts({
      servers: [
        { name: 'bare', args: [join(root, 'bench/bare-server.mjs'), '--port', '0'] },
        { name: 'hono-ajv', args: [join(root, 'bench/hono-ajv-server.mjs'), '--port', '0'] },
        { name: 'mock', args: [join(root, 'dist/cli.js'), '--port', '0'] },
        // `--dashboards N`: the same mock with N journal streams open (the dashboard's), read throughout (#29).
        ...(Number(args.dashboards) > 0
          ? [
              {
                name: `mock+${args.dashboards} dashboards`,
                args: [join(root, 'dist/cli.js'), '--port', '0'],
                dashboards: Number(args.dashboards),
              },
            ]
          : []),
      ],
      paths: PATHS,
      root,
      fmt: fmt.int,
    })
  if (args.all || args.scale) report.scale = await scale()
  if (args.json) writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`)
}

main().then(
  () => killAll(),
  async (error) => {
    console.error(`\nbench failed: ${error?.stack ?? error}`)
    await killAll()
    process.exitCode = 1
  },
)
