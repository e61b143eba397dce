// `npm run bench -- --instructions`: what a request costs in CPU instructions, counted by valgrind's
// callgrind rather than timed, so that the figure holds on a machine shared with other work (#19).
// The wall-clock ratios of `npm run bench` moved by ±30 % between runs on the 2-core machine with a
// load average of 9; instruction counts of the same build move by about 2 %.
//
// Each server runs under callgrind with counting off (`--instr-atstart=no`). One keep-alive connection
// sends the warm-up requests (the same connection throughout: a new one makes V8 optimise Node's stream
// code again, and the counts would hold that compiling), counting is switched on for `count` requests
// of one path, then off, and the counts are dumped; then the next path. V8 runs `--single-threaded`
// (its compiler and GC threads in the counted thread) and writes `--perf-basic-prof` names for the JIT
// code, so that the costliest functions can be named.
//
// Needs valgrind (Debian: `apt-get install valgrind`). Bounded: each request times out after 60 s, a
// server that does not listen within 180 s is a failure, every child is killed on the way out.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer, table } from './harness.mjs'

/**
 * Instructions per request of each server on each path, and where the mock's go (valid path).
 * `servers`: `[{ name, args }]`, args of `node` after its own flags.
 */
export async function instructionCounts({ servers, paths, warm = 12_000, count = 10_000, root, fmt }) {
  if (!hasValgrind()) {
    console.log('\n## Instructions per request: skipped (valgrind is not installed: apt-get install valgrind)')
    return { skipped: 'valgrind not installed' }
  }
  console.log(
    `\n## Instructions per request (callgrind): ${warm.toLocaleString('en-US')} warm-up requests a path on one ` +
      `keep-alive connection, then ${count.toLocaleString('en-US')} counted; two servers at a time`,
  )
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-mock-instructions-'))
  const results = {}
  try {
    // Two at a time: the machine has two cores, and counts do not depend on sharing them.
    for (let i = 0; i < servers.length; i += 2)
      await Promise.all(
        servers.slice(i, i + 2).map(async (spec) => {
          results[spec.name] = await countServer(spec, paths, { warm, count, dir, root })
        }),
      )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const bare = results[servers[0].name]
  // Without a mark-compact or compiling: whether they fell among the counted requests is chance (see MAJOR_GC).
  const counted = (name, key) => results[name].perPath[key]
  const header = [
    'server',
    ...paths.map((p) => `${p.key} instr/req`),
    ...paths.map((p) => `${p.key} × ${servers[0].name}`),
    'with a mark-compact or compiling',
  ]
  const rows = servers.map(({ name }) => [
    name,
    ...paths.map((p) => fmt(counted(name, p.key).steady)),
    ...paths.map((p) => (counted(name, p.key).steady / bare.perPath[p.key].steady).toFixed(2)),
    paths
      .filter((p) => counted(name, p.key).instructions > counted(name, p.key).steady * 1.01)
      .map((p) => `${p.key}: ${fmt(counted(name, p.key).instructions)} with it`)
      .join(', ') || 'none',
  ])
  console.log(table(header, rows))
  for (const { name } of servers.slice(1)) {
    const valid = results[name].perPath[paths[0].key]
    console.log(`\n${name}, ${paths[0].label}: instructions a request by kind of code`)
    console.log(
      table(
        ['kind', 'instr/req', 'share'],
        valid.byKind.map(([kind, n]) => [kind, fmt(n), `${((100 * n) / valid.instructions).toFixed(1)} %`]),
      ),
    )
    console.log(`\n${name}, ${paths[0].label}: costliest functions, own instructions (callees apart)`)
    console.log(
      table(
        ['instr/req', 'function'],
        valid.top.map(([fn, n]) => [fmt(n), fn]),
      ),
    )
  }
  return results
}

function hasValgrind() {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' })
    execFileSync('callgrind_control', ['--help'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

async function countServer(spec, paths, { warm, count, dir, root }) {
  const out = join(dir, `${spec.name}.callgrind`)
  const server = await startServer(
    spec.name,
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}`,
      process.execPath,
      '--single-threaded',
      '--perf-basic-prof',
      // The log --perf-basic-prof also writes goes with the dumps, not into the working directory.
      '--no-logfile-per-isolate',
      `--logfile=${join(dir, `${spec.name}.v8.log`)}`,
      ...spec.args,
    ],
    { cwd: root, timeoutMs: 180_000 },
  )
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const control = (...args) => execFileSync('callgrind_control', [...args, String(server.pid)], { stdio: 'ignore' })
  const streams = await openStreams(server.url, spec.dashboards ?? 0)
  try {
    for (const target of paths) await send(server.url, target, agent, warm)
    const perPath = {}
    for (const [i, target] of paths.entries()) {
      control('--instr=on')
      const statuses = await send(server.url, target, agent, count)
      control('--instr=off')
      control(`--dump=${target.key}`)
      if (!statuses.every((s) => s === target.expect))
        throw new Error(
          `${spec.name}: ${target.key} answered ${[...new Set(statuses)].join(', ')}, not ${target.expect}`,
        )
      perPath[target.key] = { part: i + 1 }
    }
    await server.stop()
    // V8 writes the map where perf looks for it, /tmp, whatever the working directory.
    const map = `/tmp/perf-${server.pid}.map`
    const names = jitNames(map)
    rmSync(map, { force: true })
    for (const target of paths) {
      const part = readdirSync(dir).find((f) => f === `${spec.name}.callgrind.${perPath[target.key].part}`)
      if (!part) throw new Error(`${spec.name}: callgrind wrote no dump for ${target.key}`)
      perPath[target.key] = summarise(readFileSync(join(dir, part), 'utf8'), names, count, root)
    }
    return { perPath }
  } finally {
    agent.destroy()
    for (const stream of streams) stream.destroy()
    await server.stop()
  }
}

/**
 * `n` journal streams (`GET /__mock/requests/stream?view=summary`), as `n` open dashboards hold them, each read and
 * its bytes counted; their cost is counted with the requests' (the events are built a tick after each).
 */
async function openStreams(url, n) {
  const streams = []
  for (let i = 0; i < n; i++)
    streams.push(
      await new Promise((resolve, reject) => {
        const req = request(`${url}/__mock/requests/stream?view=summary`, { timeout: 60_000 }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`journal stream answered ${res.statusCode}`))
          res.on('data', () => {})
          resolve(req)
        })
        req.on('timeout', () => req.destroy(new Error('no journal stream within 60 s')))
        req.on('error', (error) => (error.code === 'ECONNRESET' ? undefined : reject(error)))
        req.end()
      }),
    )
  return streams
}

/** `n` requests one after another on the agent's one connection; their statuses. */
async function send(url, target, agent, n) {
  const statuses = []
  for (let i = 0; i < n; i++) statuses.push(await once(url, target, agent))
  return statuses
}

function once(url, target, agent) {
  return new Promise((resolve, reject) => {
    const req = request(
      url + target.path,
      { method: target.method, headers: target.headers, agent, timeout: 60_000 },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode))
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error(`no answer within 60 s`)))
    req.on('error', reject)
    req.end(target.body)
  })
}

/** JIT code address ranges and their names, from V8's `--perf-basic-prof` map. */
function jitNames(file) {
  if (!existsSync(file)) return { nameOf: () => '(JIT code)' }
  const ranges = []
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line)
    if (m) ranges.push([parseInt(m[1], 16), parseInt(m[2], 16), m[3]])
  }
  ranges.sort((a, b) => a[0] - b[0])
  return {
    nameOf(address) {
      let lo = 0
      let hi = ranges.length - 1
      let best = -1
      while (lo <= hi) {
        const mid = (lo + hi) >> 1
        if (ranges[mid][0] <= address) {
          best = mid
          lo = mid + 1
        } else hi = mid - 1
      }
      return best >= 0 && address < ranges[best][0] + ranges[best][1] ? ranges[best][2] : '(JIT code)'
    },
  }
}

/**
 * One callgrind dump: its total, and its own (exclusive) instructions by function and by kind of code.
 * The format names a function once, `fn=(id) name`, then by `(id)`; a `calls=` line is followed by
 * the cost of that call, which is the callee's and not counted here.
 */
function summarise(text, names, count, root) {
  const fnNames = new Map()
  const objects = new Map()
  const own = new Map()
  let object = ''
  let fn = '(none)'
  let callCost = false
  for (const line of text.split('\n')) {
    let m
    if ((m = /^c?ob=\((\d+)\)(?: (.*))?$/.exec(line))) {
      if (m[2]) objects.set(m[1], m[2])
      if (line.startsWith('ob=')) object = objects.get(m[1]) ?? ''
    } else if ((m = /^c?fn=\((\d+)\)(?: (.*))?$/.exec(line))) {
      if (m[2]) fnNames.set(m[1], m[2])
      if (line.startsWith('fn=')) fn = nameOf(fnNames.get(m[1]), object, names, root)
    } else if (line.startsWith('calls=')) callCost = true
    else if ((m = /^[+\-*]?[0-9a-fx]*\s+(\d+)$/.exec(line))) {
      if (callCost) callCost = false
      else own.set(fn, (own.get(fn) ?? 0) + Number(m[1]))
    }
  }
  const total = [...own.values()].reduce((a, b) => a + b, 0)
  const kinds = new Map()
  for (const [name, n] of own) kinds.set(kindOf(name), (kinds.get(kindOf(name)) ?? 0) + n)
  const perRequest = (entries) => [...entries].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, Math.round(n / count)])
  const transient = (kinds.get(MAJOR_GC_KIND) ?? 0) + (kinds.get(COMPILER_KIND) ?? 0)
  return {
    instructions: Math.round(total / count),
    steady: Math.round((total - transient) / count),
    byKind: perRequest(kinds),
    top: perRequest(own).slice(0, 25),
  }
}

function nameOf(raw = '(unknown)', object, names, root) {
  if (/^0x[0-9a-f]+$/.test(raw)) {
    const js = names.nameOf(parseInt(raw, 16))
    // `JS:*answerDescribed file:///…/dist/pipeline/answer.js:43:31` → `answerDescribed dist/pipeline/answer.js:43`
    return js
      .replace(/^[A-Za-z]+:[~*^+]?/, '')
      .replace(`file://${root}/`, '')
      .replace(/ .*?node_modules\//, ' ')
      .replace(/:\d+$/, '')
  }
  return /\/node$/.test(object) || object === '' ? `[node] ${raw}` : `[${object.split('/').pop()}] ${raw}`
}

/**
 * Two costs fall among the counted requests by chance, and are shown apart: a mark-compact (a major
 * GC) comes every few tens of thousands of requests, when the old generation (the journal's entries,
 * mostly) has grown, and one adds some 40k instructions to each counted request; and V8 may still
 * optimise (or optimise again, after warming the other paths) a function while they run, some 10k each.
 * The headline figures leave both out; the last column gives the total where they were there.
 */
const MAJOR_GC = /MarkCompact|Marking|MarkBit|LiveObject|Compactor|RecordMigrated|ShouldVisit|Evacuator|Worklist/
const MAJOR_GC_KIND = 'V8 garbage collector: mark-compact'
const COMPILER_KIND = 'V8 optimising compiler'

/** The kind of code a function is, for the summary: whose work the instructions are. */
function kindOf(name) {
  if (name.startsWith('[')) {
    if (MAJOR_GC.test(name)) return MAJOR_GC_KIND
    if (/Scaveng|Heap::|Sweep|Evacuat|IteratePointers|heap::|RecordWrite|SizeFromMap/.test(name))
      return 'V8 garbage collector: scavenges, write barriers'
    if (/compiler::|Compile/.test(name)) return COMPILER_KIND
    if (/Builtins_/.test(name)) return 'V8 builtins (property access, promises, strings)'
    if (/v8::/.test(name)) return 'V8 runtime (C++: API calls, JSON, objects)'
    return 'Node C++, libuv, libc'
  }
  if (/ dist\//.test(name)) return 'the mock (dist/)'
  if (/ (hono|@hono)\//.test(name)) return 'hono, @hono/node-server'
  if (/ ajv\//.test(name)) return 'ajv'
  if (/ node:/.test(name)) return 'Node (JavaScript)'
  return 'other JavaScript (packages, generated validators)'
}
