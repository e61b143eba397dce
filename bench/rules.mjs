// Conditional rules in `npm run bench -- --rules` (issue #16): the valid path of POST /plants of the
// Plant Store with 0, 10 and 100 rules on addPlant in the default scenario, none of which matches the
// request, so that every request checks all of them and then gets the usual 200 (the worst case).
// Each mock row is a ratio to a bare node:http server measured in the same round, and to the mock
// without rules.
//
// Servers (50 connections, --quiet on every mock so that only the request path differs):
// - bare: bench/bare-server.mjs (reads neither the query nor the extra header).
// - rules-0: the mock with a copy of ./fixtures (its scenarios.yaml gives `default` no rules).
// - rules-10, rules-100: the same copy with `default: rules: addPlant:` appended, rule i being
//   `when: { body: { "$.name": { equals: "no-match-<i>" } } }, status: 400`.
// - rules-100-mixed: 100 rules whose one condition is, by i % 3, on the body ($.name), a header
//   (x-bench-rule) or the query (variant), each `equals: "no-match-<i>"`.
// Every row gets the same request, POST /plants?variant=bench with `x-bench-rule: bench` and the
// usual body, so that the header and the query a mixed rule reads are there (and differ).
// Before the load, each server is checked: the usual request answers 200, and one that meets only its
// last rule answers 400 (so all its rules were read, in order).
//
// The fixtures copies live in one folder from os.tmpdir() + mkdtemp, removed at the end.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, probe, startServer, table, timeToFirst200 } from './harness.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

const HEADERS = {
  'content-type': 'application/json',
  authorization: 'Bearer bench-token',
  'x-bench-rule': 'bench',
}
const PATH = '/plants?variant=bench'
const BODY = JSON.stringify({ id: 1, name: 'Fern', tag: 'houseplant' })
const TARGET = { method: 'POST', path: PATH, headers: HEADERS, body: BODY }

/** Overhead of 100 rules (body) over none, in CPU per request, that issue #16 allows. */
const TARGET_OVERHEAD = 0.2

/** Where rule i of a mixed set looks, and the request that meets it (and only it). */
const LOCATIONS = ['body', 'headers', 'query']
function conditionOf(i, mixed) {
  const value = JSON.stringify(`no-match-${i}`)
  switch (mixed ? LOCATIONS[i % 3] : 'body') {
    case 'headers':
      return `{ headers: { x-bench-rule: { equals: ${value} } } }`
    case 'query':
      return `{ query: { variant: { equals: ${value} } } }`
    default:
      return `{ body: { "$.name": { equals: ${value} } } }`
  }
}
function requestMeeting(i, mixed) {
  const what = `no-match-${i}`
  switch (mixed ? LOCATIONS[i % 3] : 'body') {
    case 'headers':
      return { ...TARGET, headers: { ...HEADERS, 'x-bench-rule': what } }
    case 'query':
      return { ...TARGET, path: `/plants?variant=${what}` }
    default:
      return { ...TARGET, body: JSON.stringify({ id: 1, name: what, tag: 'houseplant' }) }
  }
}

/** The rows: a rule count and whether the rules mix locations. */
export const RULE_ROWS = [
  { key: 'rules-0', rules: 0, mixed: false, label: '0 rules' },
  { key: 'rules-10', rules: 10, mixed: false, label: '10 rules, body' },
  { key: 'rules-100', rules: 100, mixed: false, label: '100 rules, body' },
  { key: 'rules-100-mixed', rules: 100, mixed: true, label: '100 rules, body/headers/query' },
]

/** `default:` with `count` rules on addPlant, as YAML to append to fixtures/scenarios.yaml. */
export function defaultRulesYaml(count, mixed) {
  if (count === 0) return ''
  const lines = ['', '# Added by bench/rules.mjs: rules that the bench request never meets.', 'default:', '  rules:']
  lines.push('    addPlant:')
  for (let i = 0; i < count; i++) lines.push(`      - when: ${conditionOf(i, mixed)}`, '        status: 400')
  return `${lines.join('\n')}\n`
}

/** A copy of ./fixtures per row under `dir`, with its rules appended to scenarios.yaml. */
function writeFixtures(dir) {
  const original = readFileSync(join(root, 'fixtures/scenarios.yaml'), 'utf8')
  if (/^default:/m.test(original))
    throw new Error('fixtures/scenarios.yaml already defines default: the bench cannot add its rules beside it')
  const folders = {}
  for (const row of RULE_ROWS) {
    const folder = join(dir, row.key)
    cpSync(join(root, 'fixtures'), folder, { recursive: true })
    writeFileSync(join(folder, 'scenarios.yaml'), original + defaultRulesYaml(row.rules, row.mixed))
    folders[row.key] = folder
  }
  return folders
}

/** The usual request answers 200; one that meets only the last rule answers 400. */
async function checkRules(server, row) {
  const usual = await probe(server.url + TARGET.path, TARGET)
  if (usual !== 200) throw new Error(`${server.name}: the bench request answered ${usual}, not 200`)
  if (row.rules === 0) return
  const last = requestMeeting(row.rules - 1, row.mixed)
  const met = await probe(server.url + last.path, last)
  if (met !== 400)
    throw new Error(`${server.name}: a request meeting rule ${row.rules} answered ${met}, not 400 (rules not read?)`)
}

/**
 * Rounds of: fresh servers, warm-up, then each server in turn (the order rotating by round).
 * `measure(server, target, seconds)` and `warmUp(server, targets)` are run.mjs's.
 */
export async function rulesCompare({ settings, measure, warmUp, fmt, withRatio }) {
  const { rounds, seconds, connections } = settings
  console.log(
    `\n## Conditional rules: valid POST /plants with ${RULE_ROWS.map((r) => r.key.slice(6)).join(' / ')} non-matching rules on addPlant (default scenario) · bare and the mock, all --quiet · ${rounds} round(s) × ${seconds} s · ${connections} connections`,
  )
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-mock-rules-'))
  const roles = ['bare', ...RULE_ROWS.map((r) => r.key)]
  /** runs[role][round] = one measurement. */
  const runs = Object.fromEntries(roles.map((role) => [role, []]))
  try {
    const folders = writeFixtures(dir)
    const specs = [
      {
        role: 'bare',
        start: () =>
          startServer('bare', process.execPath, [join(root, 'bench/bare-server.mjs'), '--port', '0'], { cwd: root }),
      },
      ...RULE_ROWS.map((row) => ({
        role: row.key,
        row,
        start: () =>
          startServer(
            row.key,
            process.execPath,
            [join(root, 'dist/cli.js'), '--port', '0', '--quiet', '--fixtures', folders[row.key]],
            { cwd: root },
          ),
      })),
    ]
    for (let round = 0; round < rounds; round++) {
      const live = []
      try {
        for (const spec of specs) {
          const server = await spec.start()
          server.role = spec.role
          live.push(server)
          await timeToFirst200(server, TARGET)
          if (spec.row) await checkRules(server, spec.row)
        }
        for (const server of live) await warmUp(server, [TARGET])
        const order = live.map((_, i) => live[(i + round) % live.length])
        for (const server of order) {
          const m = await measure(server, TARGET, seconds)
          runs[server.role][round] = m
          process.stdout.write(
            `  round ${round + 1} ${server.role.padEnd(15)} ${fmt.int(m.rps).padStart(7)} req/s  p50 ${fmt.ms(m.p50)} ms  p99 ${fmt.ms(m.p99)} ms  CPU ${fmt.one(m.cpuMicrosPerRequest)} µs/req  ${m.statusSummary}\n`,
          )
        }
      } finally {
        await Promise.all(live.map((server) => server.stop()))
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }

  const perRound = (role, over, metric) => median(runs[role].map((m, round) => m[metric] / runs[over][round][metric]))
  const overhead = (role) => perRound(role, 'rules-0', 'cpuMicrosPerRequest') - 1
  const pct = (n) => (Number.isFinite(n) ? `${n >= 0 ? '+' : ''}${(n * 100).toFixed(1)} %` : 'n/a')
  const rows = roles.map((role) => {
    const ms = runs[role]
    const med = (metric) => median(ms.map((m) => m[metric]))
    const toBare = (metric) => (role === 'bare' ? undefined : perRound(role, 'bare', metric))
    const statuses = [...new Set(ms.flatMap((m) => m.statuses))]
    const isRules = role !== 'bare' && role !== 'rules-0'
    return [
      role === 'bare' ? 'bare node:http' : RULE_ROWS.find((r) => r.key === role).label,
      role,
      statuses.join('/') + (statuses.length === 1 && statuses[0] === 200 ? '' : ' (want 200)'),
      withRatio(med('rps'), toBare('rps'), fmt.int),
      withRatio(med('p50'), toBare('p50'), fmt.ms),
      withRatio(med('p99'), toBare('p99'), fmt.ms),
      withRatio(med('cpuMicrosPerRequest'), toBare('cpuMicrosPerRequest'), fmt.one),
      fmt.one(med('rss')),
      isRules ? pct(perRound(role, 'rules-0', 'rps') - 1) : '',
      isRules ? pct(overhead(role)) : '',
    ]
  })
  console.log(
    `\nMedians over ${rounds} round(s); (×) = median of the per-round ratio to bare; "vs 0 rules" = median of the per-round change from the mock without rules (CPU per request: the overhead of the rules).\n`,
  )
  console.log(
    table(
      [
        'rules',
        'server',
        'status',
        'req/s',
        'p50 ms',
        'p99 ms',
        'CPU µs/req',
        'RSS MiB',
        'req/s vs 0 rules',
        'CPU vs 0 rules',
      ],
      rows,
    ),
  )
  const verdicts = RULE_ROWS.filter((r) => r.rules === 100).map((r) => {
    const value = overhead(r.key)
    return { row: r.key, overhead: value, within: value < TARGET_OVERHEAD }
  })
  for (const v of verdicts)
    console.log(
      `  ${v.within ? 'WITHIN' : 'MISSED'}  ${v.row}: CPU per request ${pct(v.overhead)} over 0 rules (target < +${TARGET_OVERHEAD * 100} %)`,
    )
  return {
    settings,
    request: { method: TARGET.method, path: PATH, headers: HEADERS, body: BODY },
    rows: RULE_ROWS,
    runs,
    overheads: Object.fromEntries(RULE_ROWS.filter((r) => r.rules > 0).map((r) => [r.key, overhead(r.key)])),
    verdicts,
  }
}
