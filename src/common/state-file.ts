import type { Logger } from './log.js'

/**
 * The state file (`--state-file data.json`): stateful mode's records kept across restarts, read once at
 * start-up and written after changes. Keeping a file is the platform's (`Platform.stateFile`); Node's is
 * `src/node/state-file.ts` and `src/node/state-writer.ts`.
 */
export interface StateFile {
  /**
   * The document the file holds; `undefined` when there is no file. A file that cannot be read, or that
   * is not a `StateDocument`, is a `StartupError` (`state_file_unreadable`, `state_file_invalid`) naming
   * the file and what is wrong; it is never overwritten.
   */
  read(path: string): Promise<StateDocument | undefined>
  /** Writes `snapshot()`, the document's JSON text, to the file after changes, always whole. */
  createWriter(path: string, snapshot: () => string, logger: Logger): StateWriter
}

/**
 * What the state file holds: the data without a session, and each session's. Records are plain JSON
 * objects; read back, an integer beyond 2^53 (or a number a float would round) is a `LosslessNumber`
 * holding its literal, every other number a number.
 */
export interface StateDocument {
  version: 1
  /** resource name → records */
  data: Record<string, unknown[]>
  /** session name → resource name → records */
  sessions: Record<string, Record<string, unknown[]>>
}

export interface StateWriter {
  /** The data changed: written within `maxDelayMs` of the first change not yet written, changes coalesced. */
  changed(): void
  /** Writes now if anything is unwritten, and waits for any write in progress. A failure is logged, not thrown. */
  flush(): Promise<void>
  /** The same, synchronously (for process exit paths); a write in progress is superseded, not waited for. */
  flushSync(): void
  /** Stops the timer (after a final flush by the caller); a later change is written only by a flush. */
  close(): void
}
