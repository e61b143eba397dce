/**
 * The messages between the primary and its workers (`--workers N`), over node:cluster's IPC channel
 * (JSON). A worker asks with `call` and gets one `reply` of the same id; the primary asks a worker
 * with `run` and gets one `done`. Every wait on either side is bounded (`IPC_TIMEOUT_MS`).
 */

import type { RelayCall, Relayed } from '../relay/wire.js'

/** How long either side waits for an answer before giving up with a clear error. */
export const IPC_TIMEOUT_MS = 5000

/** What a worker asks of the primary: an admin write or gather (`RelayCall`), or one RecordStore operation on the primary's store (`[method, ...args]`, lossless JSON). */
export type Call = RelayCall | { kind: 'records'; payload: string }

/** What the primary asks of one worker: an admin write to apply or a gather to answer (`Relayed`), or the steps of its life. */
export type Run =
  | Relayed
  /** Start answering requests: every earlier admin write has been applied. */
  | { kind: 'serve' }
  /** At shutdown, before the stop: write the coverage of every worker and check `--coverage-min`; the exit code. */
  | { kind: 'finish-coverage' }

export type ToPrimary =
  | { t: 'listening'; url: string; title: string; operations: string[] }
  | { t: 'failed'; message: string; code?: string }
  | ({ t: 'call'; id: number } & Call)
  | { t: 'done'; id: number; value?: unknown; error?: string }

export type ToWorker =
  | { t: 'reply'; id: number; value?: unknown; error?: string; status?: number }
  | ({ t: 'run'; id: number } & Run)
  | { t: 'stop' }

/** A message of ours (the channel also carries node:cluster's own). */
export function isMessage<T extends { t: string }>(message: unknown): message is T {
  return typeof message === 'object' && message !== null && typeof (message as { t?: unknown }).t === 'string'
}
