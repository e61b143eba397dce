#!/usr/bin/env node
// Which schema sampler makes response bodies that our own validator accepts more often, on real
// descriptions: `openapi-sampler` (Redocly, a devDependency for this bench) against `@stoplight/json-schema-sampler`
// (Prism's static mode). APIs.guru's corpus (bench/corpus/, cached in .cache/corpus/), each description
// loaded as the mock loads it (dist/: loadSpec, int64 marks, the response view without writeOnly);
// every JSON response schema (distinct per description, `$ref` chains followed as compileAt does)
// sampled once by each, then judged as the mock judges a body: the description's Ajv (createAjv,
// compileAt) and the undeclared-field walk (findUndeclaredFields). A body passes when both accept it.
//
//   npm run bench:sampler -- [--sample N] [--seed S] [--only SUBSTRING] [--max-seconds S]
//                            [--max-schemas N] [--description-seconds S] [--call-seconds S] [--ticks N]
//                            [--enable-patterns] [--fold-allof-annotations] [--json] [--json-file FILE]
//
// Options as asked of each: openapi-sampler `{skipWriteOnly, quiet}`; json-schema-sampler
// `{skipWriteOnly, quiet, ticks: 2500}` (Prism's static mode passes 2500 ticks). The two flags in
// the second line are diagnostics, off by default (see their comments below).
//
// One worker thread does the work, one description at a time, so a sampler that never returns (or
// eats the heap) is stopped and counted, and the run goes on with a fresh worker.
import { cpSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'

const SAMPLERS = ['openapi-sampler', '@stoplight/json-schema-sampler']
const SHORT = {
  'openapi-sampler': 'openapi-sampler 1.7.10',
  '@stoplight/json-schema-sampler': '@stoplight/json-schema-sampler 0.3.0',
}

// ---------------------------------------------------------------------------------------------
// Main thread: selection, the worker's leash, the tallies, the report

async function main() {
  const { values: args } = parseArgs({
    options: {
      sample: { type: 'string', default: '300' },
      seed: { type: 'string', default: '1' },
      only: { type: 'string' },
      'max-seconds': { type: 'string', default: '600' },
      // Distinct response schemas judged per description at most (microsoft.com/graph.json has thousands).
      'max-schemas': { type: 'string', default: '1000' },
      // Time a description may take; checked between sampler calls (the worker stops there).
      'description-seconds': { type: 'string', default: '60' },
      // One sampler call, or one judgement, longer than this is a hang: the worker is ended.
      'call-seconds': { type: 'string', default: '30' },
      // Prism's static mode gives json-schema-sampler 2500 ticks (its default is 1000).
      ticks: { type: 'string', default: '2500' },
      // Diagnostics (off by default, the plain comparison): openapi-sampler's own `enablePatterns`
      // option (strings from `pattern`; json-schema-sampler has none), and samplers given a copy of the
      // description where allOf parts that only annotate (`{description: ...}`) are dropped: both
      // samplers let such a part's plain sample ("string", 0, []) replace the constrained one.
      'enable-patterns': { type: 'boolean', default: false },
      'fold-allof-annotations': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      // Also write the JSON report to this file (the table still goes to stdout).
      'json-file': { type: 'string' },
    },
  })
  const int = (name, min) => {
    const n = Number(args[name])
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}`)
    return n
  }
  const opts = {
    sample: int('sample', 1),
    seed: int('seed', 0),
    only: args.only,
    maxSeconds: int('max-seconds', 1),
    maxSchemas: int('max-schemas', 1),
    descriptionSeconds: int('description-seconds', 1),
    callSeconds: int('call-seconds', 1),
    ticks: int('ticks', 1),
    enablePatterns: args['enable-patterns'],
    foldAllOfAnnotations: args['fold-allof-annotations'],
  }
  const corpus = await import('./corpus/corpus.mjs')
  corpus.ensureBuilt()
  const dist = snapshotOfDist(corpus.root, corpus.cacheDir)
  const entries = corpus.selectDescriptions({
    source: 'apis-guru',
    sample: opts.sample,
    seed: opts.seed,
    only: opts.only,
  })
  corpus.ensureExtracted(
    'apis-guru',
    entries.map((e) => e.rel),
  )
  const log = (m) => process.stderr.write(`[sampler] ${m}\n`)
  log(
    `${entries.length} description(s) of apis-guru (sample ${opts.sample}, seed ${opts.seed}${opts.only ? `, only ${opts.only}` : ''}); cap ${opts.maxSeconds} s`,
  )

  const tally = newTally()
  const t0 = Date.now()
  const deadline = t0 + opts.maxSeconds * 1000
  let worker
  let i = 0
  for (; i < entries.length && Date.now() < deadline; i++) {
    const entry = entries[i]
    worker ??= startWorker(dist, opts)
    const outcome = await runDescription(worker, corpus.fileOf('apis-guru', entry.rel), opts, tally)
    if (outcome.kill) {
      await worker.terminate().catch(() => {})
      worker = undefined
    }
    const d = { description: entry.rel, ...outcome.summary }
    tally.descriptions.push(d)
    log(
      `${String(i + 1).padStart(4)}/${entries.length} ${entry.rel}: ${d.outcome}${d.schemas !== undefined ? `, ${d.schemas} schema(s)` : ''}${d.note ? ` (${d.note})` : ''} ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    )
  }
  if (worker) await worker.terminate().catch(() => {})
  const report = summarise(tally, {
    ...opts,
    selected: entries.length,
    visited: i,
    wallMs: Date.now() - t0,
    stoppedByCap: i < entries.length,
  })
  if (args['json-file']) writeFileSync(args['json-file'], JSON.stringify(report, null, 1) + '\n')
  if (args.json) process.stdout.write(JSON.stringify(report, null, 1) + '\n')
  else process.stdout.write(formatMarkdown(report) + '\n')
}

/** A copy of dist/ for this run, as the corpus runner makes one: a rebuild meanwhile must not be half-loaded by a fresh worker. */
function snapshotOfDist(root, cacheDir) {
  const target = join(cacheDir, 'snapshots', `sampler-${process.pid}`, 'dist')
  rmSync(dirname(target), { recursive: true, force: true })
  cpSync(join(root, 'dist'), target, { recursive: true })
  process.once('exit', () => rmSync(dirname(target), { recursive: true, force: true }))
  return target
}

function startWorker(dist, opts) {
  const worker = new Worker(fileURLToPath(import.meta.url), {
    workerData: {
      dist: pathToFileURL(dist).href,
      ticks: opts.ticks,
      enablePatterns: opts.enablePatterns,
      foldAllOfAnnotations: opts.foldAllOfAnnotations,
      maxSchemas: opts.maxSchemas,
      descriptionMs: opts.descriptionSeconds * 1000,
    },
    resourceLimits: { maxOldGenerationSizeMb: 3072, stackSizeMb: 8 },
    // Whatever a sampler prints goes to stderr: stdout carries only the report.
    stdout: true,
    stderr: true,
  })
  worker.stdout.pipe(process.stderr)
  worker.stderr.pipe(process.stderr)
  return worker
}

/** Sends one description to the worker; resolves when it reports `done`, dies, or stalls. */
function runDescription(worker, file, opts, tally) {
  return new Promise((resolve) => {
    let current
    let settled = false
    let stall
    const finish = (result) => {
      if (settled) return
      settled = true
      clearTimeout(stall)
      worker.off('message', onMessage)
      worker.off('error', onError)
      worker.off('exit', onExit)
      resolve(result)
    }
    const watch = () => {
      clearTimeout(stall)
      stall = setTimeout(() => {
        // The call in progress never returned: it counts against its sampler (a hang), and the worker goes.
        if (current?.sampler) recordHang(tally, current, `no return within ${opts.callSeconds} s`)
        finish({
          kill: true,
          summary: {
            ...partial,
            outcome: 'stalled',
            note: current ? `${current.step} ${current.sampler ?? ''} at ${current.pointer}` : 'loading',
          },
        })
      }, opts.callSeconds * 1000)
    }
    const partial = { schemas: 0 }
    const onMessage = (m) => {
      watch()
      if (m.type === 'step') current = m
      else if (m.type === 'schema') {
        partial.schemas++
        record(tally, m)
      } else if (m.type === 'done') finish({ summary: { ...partial, ...m.summary } })
    }
    const onError = (e) => {
      if (current?.sampler) recordHang(tally, current, `worker died: ${e.code ?? ''} ${e.message}`.trim())
      finish({
        kill: true,
        summary: {
          ...partial,
          outcome: 'worker-died',
          note: `${e.code ?? ''} ${String(e.message).slice(0, 200)}${current ? `; during ${current.step} ${current.sampler ?? ''} at ${current.pointer}` : ''}`,
        },
      })
    }
    const onExit = (code) =>
      finish({ kill: true, summary: { ...partial, outcome: 'worker-exited', note: `code ${code}` } })
    worker.on('message', onMessage)
    worker.on('error', onError)
    worker.on('exit', onExit)
    watch()
    worker.postMessage({ file })
  })
}

// ---------------------------------------------------------------------------------------------
// Tallies

function newTally() {
  const per = () => ({
    tried: 0,
    pass: 0,
    ajvValid: 0,
    undeclared: 0,
    stubOnly: 0,
    throws: 0,
    hangs: 0,
    timesUs: [],
    totalUs: 0,
    bytes: 0,
    keywords: new Map(),
    formats: new Map(),
    throwGroups: new Map(),
    examples: new Map(),
  })
  return {
    descriptions: [],
    mediaTypes: 0,
    schemas: 0,
    notCompiled: 0,
    notCompiledGroups: new Map(),
    both: { bothPass: 0, bothFail: 0, onlyFirst: 0, onlySecond: 0, onlyFirstExamples: [], onlySecondExamples: [] },
    samplers: Object.fromEntries(SAMPLERS.map((s) => [s, per()])),
  }
}

const bump = (map, key, by = 1) => map.set(key, (map.get(key) ?? 0) + by)

function record(tally, m) {
  tally.mediaTypes += m.mediaTypes
  if (m.notCompiled) {
    tally.notCompiled++
    bump(tally.notCompiledGroups, normalise(m.notCompiled))
    return
  }
  tally.schemas++
  for (const name of SAMPLERS) {
    const r = m.results[name]
    const t = tally.samplers[name]
    t.tried++
    if (r.us !== undefined) {
      t.timesUs.push(r.us)
      t.totalUs += r.us
    }
    if (r.threw) {
      t.throws++
      bump(t.throwGroups, normalise(r.threw))
      keep(t.examples, `(threw) ${normalise(r.threw)}`, {
        description: m.description,
        pointer: m.pointer,
        message: r.threw,
      })
      continue
    }
    t.bytes += r.bytes ?? 0
    if (r.ajvValid) t.ajvValid++
    if (r.undeclared) t.undeclared++
    if (r.stubOnly) t.stubOnly++
    if (r.pass) t.pass++
    for (const k of r.keywords ?? []) bump(t.keywords, k)
    for (const f of r.formats ?? []) bump(t.formats, f)
    for (const e of r.examples ?? [])
      keep(t.examples, e.keyword, { description: m.description, pointer: m.pointer, ...e })
  }
  const [a, b] = SAMPLERS.map((s) => m.results[s].pass === true)
  const both = tally.both
  if (a && b) both.bothPass++
  else if (!a && !b) both.bothFail++
  else if (a) {
    both.onlyFirst++
    if (both.onlyFirstExamples.length < 15)
      both.onlyFirstExamples.push({ description: m.description, pointer: m.pointer, other: m.results[SAMPLERS[1]].why })
  } else {
    both.onlySecond++
    if (both.onlySecondExamples.length < 15)
      both.onlySecondExamples.push({
        description: m.description,
        pointer: m.pointer,
        other: m.results[SAMPLERS[0]].why,
      })
  }
}

/** A call that never returned: the schema is counted for both samplers; the one stuck fails, the other is unknown (counted as failing too). */
function recordHang(tally, current, why) {
  tally.schemas++
  for (const name of SAMPLERS) {
    const t = tally.samplers[name]
    t.tried++
    if (name === current.sampler && current.step === 'sample') {
      t.hangs++
      t.throws++
      bump(t.throwGroups, `(hang) ${why}`)
      keep(t.examples, `(hang)`, { description: current.description, pointer: current.pointer, message: why })
    }
  }
  tally.both.bothFail++
}

function keep(map, key, example) {
  const list = map.get(key) ?? []
  if (list.length < 3) list.push(example)
  map.set(key, list)
}

/** Error text with names, numbers and pointers taken out, so that throws of one cause group together. */
function normalise(text) {
  return String(text)
    .replace(/"[^"]*"/g, '"…"')
    .replace(/'[^']*'/g, "'…'")
    .replace(/#?\/[\w~%./{}:-]*/g, '<pointer>')
    .replace(/\b\d+(\.\d+)?\b/g, 'N')
    .slice(0, 160)
}

const quantile = (sorted, q) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] : undefined
const pct = (a, b) => (b ? Math.round((1000 * a) / b) / 10 : 0)
const top = (map, n) => [...map.entries()].sort((x, y) => y[1] - x[1]).slice(0, n)

function summarise(tally, opts) {
  const descriptions = tally.descriptions
  const outcomes = {}
  for (const d of descriptions) outcomes[d.outcome] = (outcomes[d.outcome] ?? 0) + 1
  const samplers = {}
  for (const name of SAMPLERS) {
    const t = tally.samplers[name]
    const times = [...t.timesUs].sort((a, b) => a - b)
    samplers[name] = {
      tried: t.tried,
      pass: t.pass,
      passPct: pct(t.pass, t.tried),
      ajvValid: t.ajvValid,
      withUndeclaredFields: t.undeclared,
      failingOnlyOnEmptyStubs: t.stubOnly,
      throws: t.throws,
      hangs: t.hangs,
      totalMs: Math.round(t.totalUs / 1000),
      medianUs: times.length ? Math.round(quantile(times, 0.5) * 10) / 10 : undefined,
      p90Us: times.length ? Math.round(quantile(times, 0.9)) : undefined,
      maxUs: times.length ? Math.round(times.at(-1)) : undefined,
      outputMB: Math.round((t.bytes / 2 ** 20) * 10) / 10,
      topKeywords: top(t.keywords, 10).map(([keyword, bodies]) => ({ keyword, bodies })),
      topFormats: top(t.formats, 10).map(([format, bodies]) => ({ format, bodies })),
      throwGroups: top(t.throwGroups, 10).map(([cause, count]) => ({ cause, count })),
      examples: Object.fromEntries(t.examples),
    }
  }
  return {
    sampler: SHORT,
    options: {
      sample: opts.sample,
      seed: opts.seed,
      only: opts.only,
      maxSeconds: opts.maxSeconds,
      maxSchemas: opts.maxSchemas,
      descriptionSeconds: opts.descriptionSeconds,
      callSeconds: opts.callSeconds,
      ticks: opts.ticks,
      enablePatterns: opts.enablePatterns,
      foldAllOfAnnotations: opts.foldAllOfAnnotations,
    },
    wallMs: opts.wallMs,
    selected: opts.selected,
    visited: opts.visited,
    stoppedByCap: opts.stoppedByCap,
    outcomes,
    mediaTypes: tally.mediaTypes,
    schemas: tally.schemas,
    notCompiled: tally.notCompiled,
    notCompiledGroups: top(tally.notCompiledGroups, 5).map(([cause, count]) => ({ cause, count })),
    truncated: descriptions.filter((d) => d.truncated).map((d) => ({ description: d.description, why: d.truncated })),
    problemDescriptions: descriptions
      .filter((d) => d.outcome !== 'ok')
      .map((d) => ({ description: d.description, outcome: d.outcome, note: d.note })),
    samplers,
    disagreement: tally.both,
  }
}

function formatMarkdown(r) {
  const [A, B] = SAMPLERS
  const a = r.samplers[A]
  const b = r.samplers[B]
  const lines = []
  lines.push(
    `Sampler comparison: apis-guru, sample ${r.options.sample}, seed ${r.options.seed}${r.options.only ? `, only ${r.options.only}` : ''}; ` +
      `${r.visited} / ${r.selected} description(s) visited in ${(r.wallMs / 1000).toFixed(0)} s${r.stoppedByCap ? ` (stopped by --max-seconds ${r.options.maxSeconds})` : ''}.`,
  )
  const variants = [
    r.options.enablePatterns && 'openapi-sampler with enablePatterns',
    r.options.foldAllOfAnnotations && 'samplers given annotation-only allOf parts folded away',
  ].filter(Boolean)
  lines.push(
    `Options: openapi-sampler {skipWriteOnly, quiet${r.options.enablePatterns ? ', enablePatterns' : ''}}, json-schema-sampler {skipWriteOnly, quiet, ticks: ${r.options.ticks}}${variants.length ? `; DIAGNOSTIC: ${variants.join(', ')}` : ''}.`,
  )
  lines.push(
    `Descriptions: ${Object.entries(r.outcomes)
      .map(([k, v]) => `${k} ${v}`)
      .join(
        ', ',
      )}. JSON response media types with a schema: ${r.mediaTypes}; distinct schemas judged: ${r.schemas}; not compilable by our Ajv (skipped): ${r.notCompiled}.`,
  )
  lines.push('')
  lines.push(
    '| sampler | schemas tried | pass | pass % | Ajv-valid | with undeclared fields | throws (hangs) | total sampling ms | median µs/body | p90 µs/body | output MB |',
  )
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const name of SAMPLERS) {
    const s = r.samplers[name]
    lines.push(
      `| ${r.sampler[name]} | ${s.tried} | ${s.pass} | ${s.passPct} | ${s.ajvValid} | ${s.withUndeclaredFields} | ${s.throws} (${s.hangs}) | ${s.totalMs} | ${s.medianUs ?? '-'} | ${s.p90Us ?? '-'} | ${s.outputMB} |`,
    )
  }
  const d = r.disagreement
  lines.push('')
  lines.push(
    `Failing only through \`required\` on an empty-object stub (circular \`$ref\` / depth cut): ${SAMPLERS.map((n) => `${n} ${r.samplers[n].failingOnlyOnEmptyStubs}`).join(', ')}.`,
  )
  lines.push(
    `Both pass ${d.bothPass}, both fail ${d.bothFail}; only ${A} passes ${d.onlyFirst}; only ${B} passes ${d.onlySecond}.`,
  )
  lines.push('')
  lines.push('Most common failing Ajv keywords (bodies with at least one such error):')
  lines.push('')
  lines.push(`| # | ${A} | bodies | ${B} | bodies |`)
  lines.push('|---:|---|---:|---|---:|')
  for (let i = 0; i < 10; i++) {
    const x = a.topKeywords[i]
    const y = b.topKeywords[i]
    if (!x && !y) break
    lines.push(
      `| ${i + 1} | ${x ? `\`${x.keyword}\`` : ''} | ${x?.bodies ?? ''} | ${y ? `\`${y.keyword}\`` : ''} | ${y?.bodies ?? ''} |`,
    )
  }
  lines.push('')
  lines.push('Failing formats (bodies):')
  for (const name of SAMPLERS)
    lines.push(`- ${name}: ${r.samplers[name].topFormats.map((f) => `${f.format} ${f.bodies}`).join(', ') || 'none'}`)
  lines.push('')
  lines.push('Throws by cause:')
  for (const name of SAMPLERS)
    lines.push(`- ${name}: ${r.samplers[name].throwGroups.map((g) => `[${g.count}] ${g.cause}`).join('; ') || 'none'}`)
  if (r.notCompiledGroups.length)
    lines.push('', `Not compilable: ${r.notCompiledGroups.map((g) => `[${g.count}] ${g.cause}`).join('; ')}`)
  if (r.truncated.length)
    lines.push(
      '',
      `Descriptions cut short (--max-schemas / --description-seconds): ${r.truncated.map((t) => `${t.description} (${t.why})`).join(', ')}`,
    )
  if (r.problemDescriptions.length) {
    lines.push('', 'Descriptions not judged in full:')
    for (const p of r.problemDescriptions.slice(0, 30))
      lines.push(`- ${p.description}: ${p.outcome}${p.note ? ` (${String(p.note).slice(0, 200)})` : ''}`)
    if (r.problemDescriptions.length > 30) lines.push(`- ... ${r.problemDescriptions.length - 30} more`)
  }
  return lines.join('\n')
}

// ---------------------------------------------------------------------------------------------
// Worker: load, sample, judge

async function workerMain() {
  const { dist, ticks, maxSchemas, descriptionMs, enablePatterns, foldAllOfAnnotations } = workerData
  const at = (p) => new URL(p, dist.endsWith('/') ? dist : `${dist}/`).href
  const [
    { loadSpec },
    { describeOperations },
    { deriveReadWriteViews },
    { nodeAt },
    ajvModule,
    { findUndeclaredFields },
    { kindOf },
    { walkSchemas },
    { ANNOTATIONS },
    { nodePlatform },
  ] = await Promise.all([
    import(at('openapi/load-spec.js')),
    import(at('openapi/operations.js')),
    import(at('openapi/read-write-only.js')),
    import(at('openapi/resolve-ref.js')),
    import(at('validation/create-ajv.js')),
    import(at('responses/undeclared-fields.js')),
    import(at('responses/serialize-body.js')),
    import(at('openapi/walk.js')),
    import(at('openapi/normalize-schemas.js')),
    import(at('node/node-platform.js')),
  ])
  const { createAjv, addDescription, compileAt, markExactIntegers, schemaRootOf, EXACT_INT64_KEYWORD } = ajvModule
  const require = createRequire(import.meta.url)
  const openapiSampler = require('openapi-sampler')
  const stoplightSampler = require('@stoplight/json-schema-sampler')
  const call = {
    'openapi-sampler': (schema, document) =>
      openapiSampler.sample(
        schema,
        { skipWriteOnly: true, quiet: true, ...(enablePatterns && { enablePatterns: true }) },
        document,
      ),
    '@stoplight/json-schema-sampler': (schema, document) =>
      stoplightSampler.sample(schema, { skipWriteOnly: true, quiet: true, ticks }, document),
  }

  parentPort.on('message', async ({ file }) => {
    const description = file.split('/package/api/')[1] ?? file
    const send = (m) => parentPort.postMessage(m)
    const step = (m) => send({ type: 'step', description, ...m })
    // Shared with judgeSchema and judge below.
    let view
    let ajv
    // What the samplers are given: the response view, or (diagnostic) a copy with annotation-only allOf parts gone.
    let sampled
    try {
      step({ step: 'load' })
      let spec
      try {
        spec = await loadSpec(file, { files: nodePlatform.files })
      } catch (e) {
        return send({
          type: 'done',
          summary: {
            outcome: e?.name === 'StartupError' ? 'refused' : 'load-error',
            note: String(e?.message ?? e).slice(0, 200),
          },
        })
      }
      markExactIntegers(spec.document)
      view = deriveReadWriteViews(spec.document).response
      try {
        // As the engine adds it: `$id` in example data (akeneo.com, box.com) is retried without.
        ajv = addDescription(createAjv(), { path: file, document: view })
      } catch (e) {
        return send({ type: 'done', summary: { outcome: 'ajv-refused', note: String(e?.message ?? e).slice(0, 200) } })
      }
      sampled = foldAllOfAnnotations
        ? foldAnnotationParts(structuredClone(view), walkSchemas, new Set([...ANNOTATIONS, '$comment']))
        : view
      let operations
      try {
        operations = describeOperations(spec)
      } catch (e) {
        return send({ type: 'done', summary: { outcome: 'refused', note: String(e?.message ?? e).slice(0, 200) } })
      }
      // Distinct schemas (by the pointer compileAt compiles), with how many media types use each.
      const schemas = new Map()
      for (const op of operations) {
        for (const response of op.responses) {
          for (const content of response.content) {
            if (!content.schemaPointer || kindOf(content.mediaType) !== 'json') continue
            const root = schemaRootOf(view, content.schemaPointer)
            const seen = schemas.get(root)
            if (seen) seen.mediaTypes++
            else schemas.set(root, { pointer: content.schemaPointer, mediaTypes: 1 })
          }
        }
      }
      const started = performance.now()
      let truncated
      let index = 0
      for (const [root, { pointer, mediaTypes }] of schemas) {
        if (index >= maxSchemas) {
          truncated = `${schemas.size - index} of ${schemas.size} schemas left out by --max-schemas`
          break
        }
        if (performance.now() - started > descriptionMs) {
          truncated = `${schemas.size - index} of ${schemas.size} schemas left out by --description-seconds`
          break
        }
        send({ type: 'schema', description, ...judgeSchema(root, pointer, mediaTypes, index) })
        index++
      }
      send({ type: 'done', summary: { outcome: 'ok', truncated } })
    } catch (e) {
      send({ type: 'done', summary: { outcome: 'runner-error', note: String(e?.stack ?? e).slice(0, 400) } })
    }

    function judgeSchema(root, pointer, mediaTypes, index) {
      step({ step: 'compile', pointer })
      let validate
      try {
        validate = compileAt(ajv, pointer)
      } catch (e) {
        return { pointer, mediaTypes, notCompiled: String(e?.message ?? e) }
      }
      const schema = nodeAt(view, pointer)
      const input = nodeAt(sampled, pointer)
      const results = {}
      // Alternate who goes first, so neither always meets a cold cache.
      const order = index % 2 ? [...SAMPLERS].reverse() : SAMPLERS
      for (const name of order) {
        step({ step: 'sample', sampler: name, pointer })
        let value
        const t = performance.now()
        try {
          value = call[name](input, sampled)
        } catch (e) {
          const what =
            e instanceof stoplightSampler.SchemaSizeExceededError
              ? `SchemaSizeExceededError (its ${ticks} ticks spent)`
              : `${e?.name ?? 'Error'}: ${String(e?.message ?? e).slice(0, 300)}`
          results[name] = { us: (performance.now() - t) * 1000, threw: what, why: 'threw' }
          continue
        }
        const us = (performance.now() - t) * 1000
        step({ step: 'judge', sampler: name, pointer })
        results[name] = { us, ...judge(validate, schema, value) }
      }
      return { pointer, root, mediaTypes, results }
    }

    /** The body as it goes over the wire (JSON text, parsed back), judged by Ajv and by the undeclared-field walk. */
    function judge(validate, schema, value) {
      let text
      try {
        text = JSON.stringify(value)
      } catch (e) {
        return {
          pass: false,
          keywords: ['(not serialisable)'],
          why: 'not serialisable',
          examples: [{ keyword: '(not serialisable)', message: String(e?.message) }],
        }
      }
      if (text === undefined)
        return {
          pass: false,
          keywords: ['(no JSON value)'],
          why: 'no value',
          examples: [{ keyword: '(no JSON value)', message: `sampler returned ${String(value)}` }],
        }
      const body = JSON.parse(text)
      const ajvValid = validate(body) === true
      const errors = ajvValid ? [] : (validate.errors ?? [])
      const wrongType = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath))
      const keywords = new Set()
      const formats = new Set()
      const examples = []
      for (const e of errors) {
        // As toViolations: a value of the wrong type breaks its format too; the type error says it all.
        if ((e.keyword === 'format' || e.keyword === EXACT_INT64_KEYWORD) && wrongType.has(e.instancePath)) continue
        const keyword = e.keyword
        if (keyword === 'format') formats.add(String(e.params?.format))
        if (!keywords.has(keyword)) {
          keywords.add(keyword)
          examples.push({
            keyword,
            instancePath: e.instancePath,
            schemaPath: e.schemaPath,
            message: e.message,
            params: e.params,
            value: snippet(valueAt(body, e.instancePath)),
          })
        }
      }
      const undeclared = findUndeclaredFields(view, schema, body)
      if (undeclared.length) {
        keywords.add('(undeclared field)')
        examples.push({ keyword: '(undeclared field)', message: undeclared.slice(0, 3).join(', ') })
      }
      const pass = ajvValid && undeclared.length === 0
      // A body whose only faults are `required` properties missing from an empty object: the stub a
      // sampler puts where it stops (a circular $ref, its maximum depth), not a wrong value.
      const leaves = errors.filter((e) => !COMPOSITE.has(e.keyword))
      const stubOnly =
        !pass &&
        undeclared.length === 0 &&
        leaves.length > 0 &&
        leaves.every((e) => e.keyword === 'required' && isEmptyObject(valueAt(body, e.instancePath)))
      return {
        pass,
        ajvValid,
        undeclared: undeclared.length > 0,
        stubOnly,
        bytes: text.length,
        keywords: [...keywords],
        formats: [...formats],
        examples,
        why: pass ? undefined : [...keywords].join(','),
      }
    }
  })
}

/**
 * Drops allOf parts that only annotate (an allOf left empty goes too); the document is a copy.
 * `annotations`: the mock's own (`normalize-schemas.ts`), and `$comment`.
 */
function foldAnnotationParts(document, walkSchemas, annotations) {
  walkSchemas(document, (schema) => {
    if (!Array.isArray(schema.allOf)) return
    const kept = schema.allOf.filter(
      (part) =>
        !(
          part &&
          typeof part === 'object' &&
          !Array.isArray(part) &&
          Object.keys(part).every((k) => annotations.has(k))
        ),
    )
    if (kept.length === schema.allOf.length) return
    if (kept.length) schema.allOf = kept
    else delete schema.allOf
  })
  return document
}

/** Keywords whose errors only repeat those of their parts. */
const COMPOSITE = new Set(['anyOf', 'oneOf', 'allOf', 'if', 'then', 'else', 'not'])

const isEmptyObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0

function valueAt(body, instancePath) {
  let node = body
  for (const token of instancePath.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined
    node = node[token.replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  return node
}

function snippet(value) {
  const text = JSON.stringify(value)
  return text === undefined ? undefined : text.length > 160 ? `${text.slice(0, 160)}…` : text
}

// Last, once every declaration above is initialised (top-level await would meet them uninitialised).
if (isMainThread) await main()
else await workerMain()
