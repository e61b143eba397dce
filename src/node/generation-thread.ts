import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { MockOptions } from '../common/config.js'
import type { GenerationJob, HandedBody, OffThreadGenerator } from '../common/platform.js'
import { MockError, type MockErrorKind } from '../errors/index.js'

/**
 * How long a body may take on the main thread before it is made off it, in ms of CPU: under the 50 ms
 * no other request may wait (#34), with room for what rendering does around it.
 */
export const SLICE_MS = 30
/**
 * The longest a body made off the thread is waited for: the thread first loads the description (GitHub's
 * takes seconds), then has the generation budget (`--generation-ms`, 5 s by default) of its own CPU.
 */
const WAIT_MS = 120_000

/** A job as it crosses to the thread, and its answer. */
export interface ThreadJob {
  id: number
  job: GenerationJob
}
export type ThreadAnswer =
  { id: number; made: HandedBody } | { id: number; error: { status: number; kind: MockErrorKind; message: string } }

const THREAD_FILE = fileURLToPath(new URL('./generation-thread-main.js', import.meta.url))

/**
 * Node's generator off the main thread (#34): one worker thread an engine, started on the first body
 * that outlasts its slice, holding an engine of its own made from the same options (so that the
 * description, fixtures and seeds are the same, and a static body made there is the one the main
 * thread would have made). Bodies are made there one after another; the main thread answers other
 * requests meanwhile. A thread that fails or is stopped rejects what waits on it; the next job starts
 * another. Where the thread's code is not there (the sources run by a test runner, not the build),
 * there is none, and bodies are made on the main thread as before.
 */
export function offThreadGenerator(options: MockOptions): OffThreadGenerator | undefined {
  if (!existsSync(THREAD_FILE)) return undefined
  const given = cloneable(options)
  if (given === undefined) return undefined
  let worker: Worker | undefined
  let nextId = 1
  const waiting = new Map<
    number,
    { resolve(made: HandedBody): void; reject(error: Error): void; timer: NodeJS.Timeout }
  >()
  const failAll = (reason: string) => {
    for (const [id, entry] of waiting) {
      waiting.delete(id)
      clearTimeout(entry.timer)
      entry.reject(
        new MockError(500, 'generation_failed', `The body could not be made off the main thread: ${reason}.`),
      )
    }
  }
  const start = (): Worker => {
    const started = new Worker(THREAD_FILE, { workerData: { options: given } })
    started.on('message', (answer: ThreadAnswer) => {
      const entry = waiting.get(answer.id)
      if (!entry) return
      waiting.delete(answer.id)
      clearTimeout(entry.timer)
      if ('made' in answer) entry.resolve(answer.made)
      else entry.reject(new MockError(answer.error.status, answer.error.kind, answer.error.message))
    })
    started.on('error', (error) => failAll(error.message))
    started.on('exit', (code) => {
      if (worker === started) worker = undefined
      failAll(`its thread ended (exit code ${code})`)
    })
    // Waiting jobs keep the process up through their timers; an idle thread does not.
    started.unref()
    return started
  }
  return {
    sliceMs: SLICE_MS,
    make(job) {
      worker ??= start()
      const id = nextId++
      const thread = worker
      return new Promise<HandedBody>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id)
          // A thread that does not answer in time is stopped; the next job starts another.
          void thread.terminate()
          reject(
            new MockError(
              500,
              'generation_budget',
              `The body was not made within ${WAIT_MS / 1000} s off the main thread.`,
            ),
          )
        }, WAIT_MS)
        waiting.set(id, { resolve, reject, timer })
        thread.postMessage({ id, job } satisfies ThreadJob)
      })
    },
    async close() {
      const thread = worker
      worker = undefined
      await thread?.terminate()
    },
  }
}

/** The options as they cross to the thread: what cannot be cloned (a logger, callbacks) is left behind; `undefined` if something else cannot. */
function cloneable(options: MockOptions): MockOptions | undefined {
  const plain = Object.fromEntries(Object.entries(options).filter(([, value]) => typeof value !== 'function'))
  delete plain.logger
  try {
    return structuredClone(plain) as MockOptions
  } catch {
    return undefined
  }
}
