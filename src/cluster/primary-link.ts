import type { RelayLink } from '../relay/relay-link.js'
import { clusterErrors } from './cluster-errors.js'
import { type Call, IPC_TIMEOUT_MS, type Run, type ToPrimary, type ToWorker, isMessage } from './messages.js'

/** A worker's side of the channel: asks the primary (`call`), and answers what the primary asks it (`onRun`). */
export interface PrimaryLink extends RelayLink {
  /** Resolves with the primary's answer; rejects with a 503 `MockError` when it does not come in time or the primary is gone. */
  call(call: Call, what: string): Promise<unknown>
  /** The worker's answer to each `run` of the primary; a throw is sent back as its message. */
  onRun(handler: (run: Run) => Promise<unknown>): void
  send(message: ToPrimary): void
}

interface Waiting {
  resolve(value: unknown): void
  reject(error: Error): void
  timer: NodeJS.Timeout
}

export function createPrimaryLink(timeoutMs = IPC_TIMEOUT_MS): PrimaryLink {
  let nextId = 1
  const waiting = new Map<number, Waiting>()
  let handler: ((run: Run) => Promise<unknown>) | undefined
  const send = (message: ToPrimary) => {
    if (process.connected) process.send!(message)
  }
  process.on('message', (message: unknown) => {
    if (!isMessage<ToWorker>(message)) return
    if (message.t === 'reply') return settle(message)
    if (message.t === 'run') void answerRun(message)
  })
  // The primary gone: nothing waiting will be answered.
  process.on('disconnect', () => {
    for (const [id, entry] of waiting) {
      waiting.delete(id)
      clearTimeout(entry.timer)
      entry.reject(clusterErrors.gone('the call'))
    }
  })

  function settle(reply: Extract<ToWorker, { t: 'reply' }>) {
    const entry = waiting.get(reply.id)
    if (!entry) return
    waiting.delete(reply.id)
    clearTimeout(entry.timer)
    if (reply.error === undefined) entry.resolve(reply.value)
    else entry.reject(clusterErrors.failed('The call', reply.error, reply.status))
  }

  async function answerRun({ id, t: _t, ...run }: Extract<ToWorker, { t: 'run' }>) {
    try {
      send({ t: 'done', id, value: await handler!(run as Run) })
    } catch (error) {
      send({ t: 'done', id, error: (error as Error)?.message ?? String(error) })
    }
  }

  return {
    send,
    onRun: (run) => void (handler = run),
    call(call, what) {
      if (!process.connected) return Promise.reject(clusterErrors.gone(what))
      const id = nextId++
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id)
          reject(clusterErrors.noAnswer(what, timeoutMs))
        }, timeoutMs)
        waiting.set(id, { resolve, reject, timer })
        process.send!({ t: 'call', id, ...call } satisfies ToPrimary)
      })
    },
  }
}
