/**
 * The command line's heap cap (#34 §5, src/command-line/small-heap.ts), in child processes of their own: it
 * sets V8 flags for the whole process. Each child allocates as a loaded mock does, with survivors
 * (a ring of 40 arrays of 64 KiB, as requests in flight are, some 1.3 MiB a turn of the event loop), which makes V8 grow its young generation to
 * 32 MiB by default, and prints the size of its young generation while the mock starts and after.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { YOUNG_GENERATION_BYTES } from '../../src/command-line/small-heap.js'

const smallHeap = fileURLToPath(new URL('../../dist/command-line/small-heap.js', import.meta.url))

/** Runs the workload in a fresh node; `cap`: whether it calls `keepHeapSmall` and `growYoungGenerationToCap`. */
function youngGeneration(node: string, cap: boolean, nodeFlags: string[] = []): { starting: number; loaded: number } {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8'
    import { keepHeapSmall, growYoungGenerationToCap } from ${JSON.stringify(smallHeap)}
    const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size
    const ring = new Array(40)
    const churn = (rounds) => { for (let i = 0; i < rounds; i++) ring[i % ring.length] = new Array(8192).fill(i) }
    if (${cap}) keepHeapSmall()
    churn(20000)
    const starting = young()
    if (${cap}) growYoungGenerationToCap()
    // Turns of the event loop, as requests come: the gc observer runs between them.
    for (let turn = 0; turn < 2000; turn++) { churn(20); await new Promise((resolve) => setImmediate(resolve)) }
    process.stdout.write(JSON.stringify({ starting, loaded: young() }))
  `
  const out = execFileSync(node, [...nodeFlags, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  })
  return JSON.parse(out) as { starting: number; loaded: number }
}

/** This Node, and Node 22 and 24 where npm ci installed them (test/node-versions: Linux x64 only). */
const NODES = [
  { name: process.version, path: process.execPath },
  ...['node22', 'node24']
    .map((name) => ({ name, path: fileURLToPath(new URL(`../../node_modules/${name}/bin/node`, import.meta.url)) }))
    .filter(({ path }) => existsSync(path)),
]

describe.each(NODES)('the command line keeps V8 young generation small on $name (#34 §5)', ({ path }) => {
  it('grows past the cap without it: the workload is one that makes V8 grow it', () => {
    expect(youngGeneration(path, false).loaded).toBeGreaterThan(YOUNG_GENERATION_BYTES)
  })

  it('holds it at its first size while the mock starts, then lets it grow to the cap and no further', () => {
    const { starting, loaded } = youngGeneration(path, true)
    expect(starting).toBeLessThan(YOUNG_GENERATION_BYTES)
    expect(loaded).toBe(YOUNG_GENERATION_BYTES)
  })

  it("leaves the heap alone when the user passes V8's flags of their own", () => {
    const { loaded } = youngGeneration(path, true, ['--max-semi-space-size=16'])
    expect(loaded).toBeGreaterThan(YOUNG_GENERATION_BYTES)
  })
})
