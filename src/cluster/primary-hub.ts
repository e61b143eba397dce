import type { Worker } from 'node:cluster'
import type { Logger } from '../common/log.js'
import { type Call, IPC_TIMEOUT_MS, type Run, type ToPrimary, type ToWorker } from './messages.js'
import type { WireRequest, WireResponse } from '../relay/wire.js'

/** One worker as the primary knows it: its slot (0 to N-1, kept by its replacement) and whether it answers yet. */
export interface Member {
  worker: Worker
  slot: number
  serving: boolean
}

/** Bytes of admin writes kept for workers that start later (a replacement): beyond, the oldest are dropped. */
const LOG_BYTES = 64 * 1024 * 1024
/** Writes a worker that starts later need not see: they empty journals it does not have yet. */
const NOT_LOGGED = /^\/__mock\/(requests|deliveries)$/

/**
 * The primary's switchboard: answers the workers' calls (data, admin writes, gathers) and asks
 * workers to run things, each wait bounded. Admin writes go through one queue, so that every worker
 * applies them in the same order (stub ids agree); a worker that starts later (a replacement) first
 * applies every earlier write from the log, in the same queue, and only then answers requests.
 * Chosen over keeping scenarios and stubs in the primary: the request path reads them synchronously,
 * and a round trip per request cost more than the writes, which are rare, cost to broadcast.
 */
export function createHub(logger: Logger, records: ((payload: string) => string | undefined) | undefined) {
  const members = new Map<number, Member>()
  const pending = new Map<number, { member: Member; resolve(value: unknown): void; reject(error: Error): void }>()
  const log: Array<{ request: WireRequest; bytes: number }> = []
  let logBytes = 0
  let nextId = 1
  let queue = Promise.resolve()
  const enqueue = (job: () => Promise<void>): void => void (queue = queue.then(job, job))

  /** Asks one worker; rejects after `IPC_TIMEOUT_MS` or when it ends. */
  const runOn = (member: Member, run: Run): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++
      const timer = setTimeout(() => {
        pending.delete(id)
        reject(new Error(`worker ${member.worker.process.pid} did not answer within ${IPC_TIMEOUT_MS / 1000} s`))
      }, IPC_TIMEOUT_MS)
      const settle = (done: (value: any) => void) => (value: unknown) => (clearTimeout(timer), done(value))
      pending.set(id, { member, resolve: settle(resolve), reject: settle(reject) })
      if (!member.worker.isConnected())
        return pending.get(id)!.reject(new Error(`worker ${member.worker.process.pid} is gone`))
      member.worker.send({ t: 'run', id, ...run } satisfies ToWorker)
    })
  const serving = () => [...members.values()].filter((member) => member.serving)

  const reply = (member: Member, id: number, answer: Promise<unknown>): void =>
    void answer.then(
      (value) => member.worker.isConnected() && member.worker.send({ t: 'reply', id, value } satisfies ToWorker),
      (error: Error) =>
        member.worker.isConnected() &&
        member.worker.send({ t: 'reply', id, error: error.message, status: 503 } satisfies ToWorker),
    )

  /** Every serving worker applies the write; the one that received it answers. */
  const write = (origin: Member, request: WireRequest): Promise<unknown> =>
    new Promise((resolve, reject) => {
      enqueue(async () => {
        const targets = serving()
        const results = await Promise.allSettled(
          targets.map((member) => runOn(member, { kind: 'apply', request, echo: member !== origin })),
        )
        const failed = results.flatMap((result) =>
          result.status === 'rejected' ? [(result.reason as Error).message] : [],
        )
        const own = results[targets.indexOf(origin)]
        if (failed.length || own?.status !== 'fulfilled')
          return reject(
            new Error(
              `The admin change reached ${targets.length - failed.length} of ${targets.length} workers: ${failed.join('; ')}.`,
            ),
          )
        const answer = own.value as WireResponse
        if (answer.status < 300) keep(request)
        resolve(answer)
      })
    })

  const keep = (request: WireRequest) => {
    if (NOT_LOGGED.test(new URL(request.url).pathname)) return
    const bytes = request.url.length + (request.body?.length ?? 0) + 512
    log.push({ request, bytes })
    logBytes += bytes
    if (logBytes > LOG_BYTES)
      logger.warn('admin changes beyond 64 MiB are kept no longer: a worker started from now on misses the oldest.')
    while (logBytes > LOG_BYTES) logBytes -= log.shift()!.bytes
  }

  /** The other serving workers' answers, each with its slot. */
  const gather = async (origin: Member, call: Extract<Call, { kind: 'gather' }>) => {
    const others = serving().filter((member) => member !== origin)
    const values = await Promise.all(others.map((member) => runOn(member, { kind: 'gather', gather: call.gather })))
    return values.map((value, i) => ({ slot: others[i]!.slot, value }))
  }

  /** A worker that listens: it applies the writes so far, then serves. */
  const admit = (member: Member, serving: () => void) =>
    enqueue(async () => {
      try {
        for (const { request } of log) await runOn(member, { kind: 'apply', request, echo: true })
        await runOn(member, { kind: 'serve' })
        member.serving = true
        serving()
      } catch (error) {
        logger.error(
          `worker ${member.worker.process.pid} could not catch up (${(error as Error).message}); stopping it.`,
        )
        member.worker.kill('SIGKILL')
      }
    })

  return {
    members,
    admit,
    /** A worker's message other than its start-up ones. */
    handle(member: Member, message: ToPrimary) {
      if (message.t === 'done') {
        const waiting = pending.get(message.id)
        pending.delete(message.id)
        if (message.error === undefined) waiting?.resolve(message.value)
        else waiting?.reject(new Error(message.error))
      } else if (message.t === 'call') {
        if (message.kind === 'records')
          reply(
            member,
            message.id,
            records
              ? Promise.resolve().then(() => records(message.payload))
              : Promise.reject(new Error('the mock is not stateful')),
          )
        else if (message.kind === 'write') reply(member, message.id, write(member, message.request))
        else reply(member, message.id, gather(member, message))
      }
    },
    /**
     * At shutdown, while every worker still serves: one of them (the first started, which prints)
     * writes the coverage of all and checks `--coverage-min`; the exit code it answers.
     */
    finishCoverage: async (): Promise<number> => {
      const [first] = serving().sort((a, b) => a.slot - b.slot)
      if (first === undefined) throw new Error('no worker is serving')
      return (await runOn(first, { kind: 'finish-coverage' })) as number
    },
    /** A worker ended: what it was asked fails at once. */
    forget(member: Member) {
      members.delete(member.worker.id)
      for (const [id, waiting] of pending)
        if (waiting.member === member) {
          pending.delete(id)
          waiting.reject(new Error(`worker ${member.worker.process.pid} ended`))
        }
    },
  }
}

export type Hub = ReturnType<typeof createHub>
