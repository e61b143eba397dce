import { PerformanceObserver } from 'node:perf_hooks'
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8'

/**
 * The young generation's size at most, both semi-spaces (two of 4 MiB), where V8 would grow it to
 * 32 MiB under load: after 30 s of valid `POST /plants` at 50 connections, the mock's RSS read
 * 126–146 MiB with V8's sizes and 90–99 MiB with these (BENCHMARKS.md, "RSS", #34 §5).
 */
export const YOUNG_GENERATION_BYTES = 8 * 1024 * 1024

/**
 * How far the old generation grows past what the last mark-compact kept before the next one, in
 * percent. V8 lets a small heap grow to up to four times its live size (some 15 MiB here), and under
 * load the young generation's survivors fill it with garbage before a mark-compact runs.
 */
export const HEAP_GROWING_PERCENT = 50

/** The V8 flags a user may pass (`node --max-semi-space-size=16 dist/cli.js`): theirs win. */
const USERS_FLAGS = /--(max[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor|heap[-_]growing[-_]percent)\b/

/** Whether `keepHeapSmall` applied its flags: not when the user passed V8 flags of their own. */
let applied = false

/**
 * Keeps the command line's heap within the 100 MB (#34 §5) without node flags of the user's
 * own: `npx plant-store-mock`, `npm start` and the docker image run `node dist/cli.js` as it is.
 * Called before the other modules are evaluated (`cli.ts`, which then loads `run-cli.ts`); then, once the mock
 * listens, `growYoungGenerationToCap`.
 *
 * V8 sizes its young generation when the process starts (`--max-semi-space-size` cannot be set from
 * JavaScript), but reads the factor it grows it by each time it grows it: here 1 (no growth) while
 * the mock starts. Growing by 2 meanwhile, it reached 16 MiB within the start-up's synchronous work,
 * before any observer of the garbage collections could run.
 *
 * Only the command line calls this: a program that embeds the mock (`startMockServer`) keeps its own heap.
 */
export function keepHeapSmall(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): void {
  if (USERS_FLAGS.test(`${execArgv.join(' ')} ${nodeOptions}`)) return
  applied = true
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
  setFlagsFromString('--semi-space-growth-factor=1')
}

/**
 * Once the mock listens: after each garbage collection (a `gc` performance observer, every few
 * hundred requests under load), the factor that takes the young generation to
 * `YOUNG_GENERATION_BYTES` in one step while it is smaller, and 1 once it is there. When V8 shrinks
 * it again (little allocation for a while), it grows back to the cap.
 */
export function growYoungGenerationToCap(): void {
  if (!applied) return
  let factor = 1
  const capYoungGeneration = () => {
    const bytes = youngGenerationBytes()
    // Whole factors: semi-spaces are sized in MiB, doubled from 1 (Node 20, 64-bit).
    const next = bytes > 0 ? Math.max(1, Math.floor(YOUNG_GENERATION_BYTES / bytes)) : 1
    if (next === factor) return
    factor = next
    setFlagsFromString(`--semi-space-growth-factor=${next}`)
  }
  capYoungGeneration()
  new PerformanceObserver(capYoungGeneration).observe({ entryTypes: ['gc'] })
}

/** Both semi-spaces, as V8 reports its `new_space`. */
function youngGenerationBytes(): number {
  for (const space of getHeapSpaceStatistics()) if (space.space_name === 'new_space') return space.space_size
  return 0
}
