/**
 * The thread bodies are made in off the main thread (`generation-thread.ts`, #34): an engine of its
 * own from the same options, made once, then each job's body made with the whole budget, measured
 * in this thread's own CPU time (the process's would count the main thread's work too).
 */
import { readFileSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { silentLogger } from '../common/log.js'
import { type Engine, createEngine } from '../engine/engine.js'
import { isMockError } from '../errors/index.js'
import { madeBodyOf } from '../responses/made-body.js'
import type { ThreadAnswer, ThreadJob } from './generation-thread.js'
import { nodePlatform } from './node-platform.js'

const engine: Promise<Engine> = createEngine(workerData.options, silentLogger, {
  platform: { ...nodePlatform, cpuTime: threadCpuTime() },
})
// A failure to load is every job's answer.
engine.catch(() => {})

parentPort!.on('message', async ({ id, job }: ThreadJob) => {
  let answer: ThreadAnswer
  try {
    const { operations, errorContext } = await engine
    const response = operations[job.operation]?.responses.declared.find((declared) => declared.code === job.code)
    const media = response?.media?.find((declared) => declared.mediaType === job.mediaType)
    if (!media) throw new Error(`no ${job.code} ${job.mediaType} response in operation ${job.operation}`)
    const made = madeBodyOf(job.code, media, errorContext, job.sampled)
    answer = {
      id,
      made: { body: made.body, violations: made.violations?.map(({ path, message }) => ({ path, message })) },
    }
  } catch (error) {
    answer = isMockError(error)
      ? { id, error: { status: error.status, kind: error.kind, message: error.message } }
      : { id, error: { status: 500, kind: 'generation_failed', message: String((error as Error)?.message ?? error) } }
  }
  parentPort!.postMessage(answer)
})

/**
 * This thread's CPU time in ms, from `/proc/thread-self/stat` (Linux; clock ticks of 10 ms, enough
 * for a budget of seconds); elsewhere `undefined`, and the budget runs on the wall clock.
 */
function threadCpuTime(): (() => number) | undefined {
  const read = () => {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  }
  try {
    read()
    return read
  } catch {
    return undefined
  }
}
