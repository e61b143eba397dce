import type { FetchHandler } from '../relay/relay-link.js'
import type { Engine } from '../engine/engine.js'
import type { LiveMock } from '../admin/mock-handle.js'
import type { RecordStore } from '../state/record-store.js'

/**
 * What a worker of `--workers N` changes in `startMockServer` (src/cluster/worker.ts); a single process
 * passes none. Internal: the library's own server is one process.
 */
export interface ServerHooks {
  /** The data of a stateful engine, instead of one opened in this process (`undefined` without `--stateful`). */
  records?: (engine: Engine) => RecordStore | undefined
  /** Wraps the server's handler: a worker relays admin calls through the primary. `live` is the app in service. */
  wrapFetch?: (handle: FetchHandler, live: () => LiveMock) => FetchHandler
  /**
   * Whether the server's own lane may answer now (`ReloadingApp.take`): while it says no, every
   * request goes to the wrapped handler (a worker holds them there until the primary says serve).
   */
  serving?: () => boolean
}
