#!/usr/bin/env node
// Start-up of the mock against Prism on real descriptions, in one run on this machine: each server
// is spawned as its users run it (the CLI, `prism mock`), and timed from spawn to its "listening
// on" line, then to its first answer to a request; RSS is read from /proc once it answers. The two
// alternate (mock first in odd rounds, Prism first in even ones), one server at a time.
//
//   npm run bench:startup                               # the default list below, 1 round
//   npm run bench:startup -- --rounds 3 apis-guru:stripe.com.json kubernetes:swagger-1.13.json
//
// Descriptions are named as in bench/corpus/ci-sample.txt (`source:path`) and fetched on demand by
// the corpus runner's cache (npm registry only).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ensureBuilt, ensureExtracted, fileOf, root } from './corpus/corpus.mjs'
import { killAll, median, probe, rssMiB, sleep, startServer, table } from './harness.mjs'

const DEFAULT_LIST = [
  'kubernetes:swagger-1.13.json',
  'apis-guru:kubernetes.io.json',
  'apis-guru:github.com/api.github.com.json',
  'apis-guru:stripe.com.json',
  'apis-guru:autotask.net.json',
  'apis-guru:googleapis.com/compute.json',
  'apis-guru:xero.com/xero_accounting.json',
  'apis-guru:microsoft.com/graph.json',
  'readme:3.0/json/petstore.json',
  'readme:2.0/json/petstore.json',
]
const PRISM_BIN = join(root, 'node_modules/@stoplight/prism-cli/dist/index.js')
const LIMIT_MS = 600_000

const { values: args, positionals } = parseArgs({
  options: { rounds: { type: 'string', default: '1' }, 'no-prism': { type: 'boolean', default: false } },
  allowPositionals: true,
})
const rounds = Number(args.rounds)
const entries = (positionals.length ? positionals : DEFAULT_LIST).map((name) => {
  const [source, rel] = name.split(/:(.+)/)
  return { name, source, rel }
})
ensureBuilt()
for (const source of new Set(entries.map((e) => e.source)))
  ensureExtracted(
    source,
    entries.filter((e) => e.source === source).map((e) => e.rel),
  )

const servers = [
  {
    name: 'mock',
    start: (spec) =>
      startServer('mock', process.execPath, [join(root, 'dist/cli.js'), '--port', '0', '--quiet', '--spec', spec], {
        timeoutMs: LIMIT_MS,
      }),
  },
  ...(!args['no-prism'] && existsSync(PRISM_BIN)
    ? [
        {
          name: 'prism',
          start: (spec) =>
            startServer('prism', process.execPath, [PRISM_BIN, 'mock', spec, '-p', '0', '-h', '127.0.0.1'], {
              timeoutMs: LIMIT_MS,
            }),
        },
      ]
    : []),
]

/** Spawn → listening line → first answer (any status) to a request no description declares. */
async function timeStart(server, spec) {
  const started = await server.start(spec)
  const listening = performance.now() - started.spawnedAt
  for (let tries = 0; tries < 2000 && (await probe(`${started.url}/__startup-probe`)) === 0; tries++) await sleep(5)
  const answered = performance.now() - started.spawnedAt
  const rss = rssMiB(started)
  await started.stop()
  return { listening, answered, rss }
}

const rows = []
const measured = []
try {
  for (const entry of entries) {
    const spec = fileOf(entry.source, entry.rel)
    const times = Object.fromEntries(servers.map((s) => [s.name, []]))
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse()
      for (const server of order) {
        try {
          times[server.name].push(await timeStart(server, spec))
        } catch (error) {
          times[server.name].push({ failed: String(error.message).split('\n')[0] })
        }
      }
    }
    const cells = servers.map((s) => {
      const ok = times[s.name].filter((t) => !t.failed)
      if (!ok.length) return { text: `failed: ${times[s.name][0].failed.slice(0, 60)}`, ms: Infinity }
      const ms = median(ok.map((t) => t.answered))
      return { text: `${Math.round(ms)} ms, ${Math.round(median(ok.map((t) => t.rss)))} MiB`, ms }
    })
    const ratio = cells[1] ? (cells[0].ms / cells[1].ms).toFixed(2) : '-'
    rows.push([entry.name, ...cells.map((c) => c.text), ratio])
    measured.push({ name: entry.name, ...Object.fromEntries(servers.map((s, i) => [s.name, cells[i].ms])) })
    console.error(`[startup] ${rows.at(-1).join(' | ')}`)
  }
} finally {
  await killAll()
}
console.log(`node ${process.version} · ${rounds} round(s) · spawn to first answer, median; RSS once answering`)
console.log(table(['description', ...servers.map((s) => s.name), 'mock / prism'], rows))
const slower = measured.filter((m) => m.prism !== undefined && m.mock > m.prism)
if (servers.length > 1)
  console.log(
    slower.length
      ? `slower than Prism: ${slower.map((m) => m.name).join(', ')}`
      : 'the mock started first on every description',
  )
