// Where the gap to the Hono + Ajv reference goes, in `npm run bench -- --gap` (#34 §6). The valid path
// of POST /plants against seven servers in turn, each round in another order:
// - bare: bench/bare-server.mjs, the least node:http needs;
// - hono-ajv: bench/hono-ajv-server.mjs, the reference §6 measures the mock against;
// - mock: dist/cli.js with default flags (a request line per request, a journal of 1,000);
// - mock-quiet: without the request line (`--quiet`);
// - mock-journal-0: without the journal (`--journal-size 0`; coverage is still counted);
// - mock-quiet-journal-0: without either;
// - mock-floor: bench/mock-floor-server.mjs, the mock's process, heap, server and body reader and
//   writer with the pipeline taken out: it parses the body and answers fixed bytes.
// Each row: req/s, p99 and CPU a request (the server's process group), with the median of the
// per-round ratios to the reference. Then the CPU a request split into what each part of the mock
// costs: the difference between two rows measured in the same rounds (medians of per-round
// differences), beside what §6's target leaves the mock over its floor.
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, startServer, table, timeToFirst200 } from './harness.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const cli = join(root, 'dist/cli.js')

/** §6's target: the mock's req/s at least this share of the reference's. */
const TARGET_SHARE = 0.9

const SERVERS = [
  { role: 'bare', args: [join(root, 'bench/bare-server.mjs'), '--port', '0'] },
  { role: 'hono-ajv', args: [join(root, 'bench/hono-ajv-server.mjs'), '--port', '0'] },
  { role: 'mock', args: [cli, '--port', '0'] },
  { role: 'mock-quiet', args: [cli, '--port', '0', '--quiet'] },
  { role: 'mock-journal-0', args: [cli, '--port', '0', '--journal-size', '0'] },
  { role: 'mock-quiet-journal-0', args: [cli, '--port', '0', '--quiet', '--journal-size', '0'] },
  { role: 'mock-floor', args: [join(root, 'bench/mock-floor-server.mjs'), '--port', '0'] },
]

/** The parts, each as the CPU a request of one row less another's, measured in the same round. */
const PARTS = [
  ['Hono, its router and Ajv (the reference over bare)', 'hono-ajv', 'bare'],
  ["the mock's process and server, no pipeline (floor over bare)", 'mock-floor', 'bare'],
  [
    'the pipeline: route, credentials, validate, choose, render, coverage (quiet, journal 0, over floor)',
    'mock-quiet-journal-0',
    'mock-floor',
  ],
  ['the journal (mock over journal 0)', 'mock', 'mock-journal-0'],
  ['the request line (mock over quiet)', 'mock', 'mock-quiet'],
  ['all the mock does over its floor (mock over floor)', 'mock', 'mock-floor'],
]

export async function gapCompare({ settings, measure, warmUp, fmt, target }) {
  const { rounds, seconds, connections } = settings
  console.log(
    `\n## Where the gap to the Hono + Ajv reference goes (#34 §6): ${target.label} · ${rounds} round(s) × ${seconds} s · ${connections} connections`,
  )
  /** runs[role][round] = one measurement. */
  const runs = Object.fromEntries(SERVERS.map(({ role }) => [role, []]))
  for (let round = 0; round < rounds; round++) {
    const order = SERVERS.map((_, i) => SERVERS[(i + round) % SERVERS.length])
    for (const { role, args } of order) {
      // One server at a time: seven at once would share two cores with the load.
      const server = await startServer(role, process.execPath, args, { cwd: root })
      try {
        await timeToFirst200(server, target)
        await warmUp(server, [target])
        const m = await measure(server, target, seconds)
        runs[role][round] = m
        process.stdout.write(
          `  round ${round + 1} ${role.padEnd(21)} ${fmt.int(m.rps).padStart(7)} req/s  p99 ${fmt.ms(m.p99)} ms  CPU ${fmt.one(m.cpuMicrosPerRequest)} µs/req  ${m.statusSummary}\n`,
        )
      } finally {
        await server.stop()
      }
    }
  }
  const med = (role, metric) => median(runs[role].map((m) => m[metric]))
  const toReference = (role, metric) =>
    median(runs[role].map((m, round) => m[metric] / runs['hono-ajv'][round][metric]))
  const rows = SERVERS.map(({ role }) => [
    role,
    [...new Set(runs[role].flatMap((m) => m.statuses))].join('/'),
    fmt.int(med(role, 'rps')),
    fmt.ms(med(role, 'p99')),
    fmt.one(med(role, 'cpuMicrosPerRequest')),
    toReference(role, 'rps').toFixed(2),
    toReference(role, 'p99').toFixed(2),
  ])
  console.log(`\nMedians over ${rounds} round(s); ÷ hono-ajv = median of the per-round ratios.\n`)
  console.log(table(['server', 'status', 'req/s', 'p99 ms', 'CPU µs/req', 'req/s ÷ hono-ajv', 'p99 ÷ hono-ajv'], rows))

  const cpu = (role, round) => runs[role][round].cpuMicrosPerRequest
  const difference = (role, less) => median(runs[role].map((_, round) => cpu(role, round) - cpu(less, round)))
  const parts = PARTS.map(([label, role, less]) => ({ label, micros: difference(role, less) }))
  // At the target the mock may spend 1 / 0.9 of the reference's CPU a request, while the server is the bottleneck.
  const allowed = median(
    runs['hono-ajv'].map((m, round) => m.cpuMicrosPerRequest / TARGET_SHARE - cpu('mock-floor', round)),
  )
  console.log('\nCPU a request, by part (median of the per-round differences):\n')
  console.log(
    table(
      ['part', 'µs/req'],
      parts.map(({ label, micros }) => [label, fmt.one(micros)]),
    ),
  )
  console.log(
    `\n§6's target (${TARGET_SHARE} × the reference's req/s) leaves the mock ${fmt.one(allowed)} µs a request over its floor; it spends ${fmt.one(parts.at(-1).micros)}.`,
  )
  return {
    target: target.key,
    medians: Object.fromEntries(
      SERVERS.map(({ role }) => [
        role,
        {
          rps: med(role, 'rps'),
          p99: med(role, 'p99'),
          cpuMicrosPerRequest: med(role, 'cpuMicrosPerRequest'),
          rpsToReference: toReference(role, 'rps'),
        },
      ]),
    ),
    parts,
    allowedOverFloor: allowed,
  }
}
