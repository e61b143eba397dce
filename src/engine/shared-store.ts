import type { Logger } from '../common/log.js'
import type { ResolvedOptions } from '../common/config.js'
import type { RecordSets, RecordStore } from '../state/record-store.js'
import type { Resource } from '../state/resource.js'

/**
 * A store shared by every replica that names it (`--store redis://…`, #32): the state a replica
 * would otherwise keep alone. Opened once per server (a reload of the description keeps it), by the
 * platform adapter that knows the client (`src/redis/`), never on the in-memory path.
 */
export interface SharedStore {
  /** The store's URL without its password: what messages name. */
  readonly where: string
  /** The records of a stateful engine, kept in the store under its resources' names. */
  openRecords(setup: SharedRecordsSetup): RecordStore
  /** The rule and stub counts (`times`, `sequence`), shared by every replica. */
  openCounts(): SharedCounts
  /** Ends the connection (the server's close). */
  close(): Promise<void>
}

/**
 * How often each rule and stub has answered, kept in the shared store so that `times` and `sequence`
 * count over every replica: each answer of a counted rule is claimed there, atomically, before it is given.
 */
export interface SharedCounts {
  /**
   * Counts one answer of `rule` (its label) in the session, unless it has given `times` already: the
   * count before this one (the step of a sequence), or -1 when its `times` are used up.
   */
  claim(rule: string, session: string | undefined, times: number | undefined): Promise<number>
  /** Gives one claimed answer back: it was not given after all (a 406 found after the choice). */
  release(rule: string, session: string | undefined): Promise<void>
  /** Every count, or one session's. */
  reset(session?: string): Promise<void>
}

/** What the shared records of one version of the description are made with. */
export interface SharedRecordsSetup {
  resources: readonly Resource[]
  /** The seed, already checked: what a session's data starts from, and `reset` restores. */
  seed: RecordSets
  /** Records per resource and session (`--state-limit`). */
  limit: number
  /** Sessions with data of their own, at most: the least recently written go first. */
  maxSessions: number
}

/** Opens the store the options name; rejects with a `StartupError` (`store_unreachable`) naming its URL. */
export type OpenSharedStore = (options: ResolvedOptions, prefix: string, logger: Logger) => Promise<SharedStore>
