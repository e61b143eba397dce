import type { Redis } from 'ioredis'
import {
  COMPARE_AND_SET,
  CREATE_KEYED,
  CREATE_UNKEYED,
  DROP,
  FILL,
  LIST,
  READ,
  REMOVE,
  SIZE,
} from './record-scripts.js'
import { APPEND_WRITE, CLAIM_COUNT, DROP_COUNTS, RELEASE_COUNT, RELEASE_SLOT, RENEW_SLOT } from './replica-scripts.js'

/** A script's keys, then its arguments; the answer as the script returns it. */
type Script = (keys: string[], ...args: Array<string | number>) => Promise<unknown>

/** The store's scripts, as commands of the client (ioredis sends each by its SHA once loaded). */
export interface RedisCommands {
  createKeyed: Script
  createUnkeyed: Script
  compareAndSet: Script
  removeRecord: Script
  readRecord: Script
  listRecords: Script
  fillRecords: Script
  dropRecords: Script
  sizeOfRecords: Script
  claimCount: Script
  releaseCount: Script
  dropCounts: Script
  appendWrite: Script
  renewSlot: Script
  releaseSlot: Script
}

/** Keys are passed as the first argument: each script says how many it takes. */
const SCRIPTS: Record<keyof RedisCommands, [keys: number, lua: string]> = {
  createKeyed: [4, CREATE_KEYED],
  createUnkeyed: [4, CREATE_UNKEYED],
  compareAndSet: [4, COMPARE_AND_SET],
  removeRecord: [4, REMOVE],
  readRecord: [4, READ],
  listRecords: [4, LIST],
  fillRecords: [4, FILL],
  dropRecords: [1, DROP],
  sizeOfRecords: [2, SIZE],
  claimCount: [2, CLAIM_COUNT],
  releaseCount: [1, RELEASE_COUNT],
  dropCounts: [1, DROP_COUNTS],
  appendWrite: [2, APPEND_WRITE],
  renewSlot: [1, RENEW_SLOT],
  releaseSlot: [1, RELEASE_SLOT],
}

/** Defines the store's scripts on a client. */
export function defineCommands(redis: Redis): Redis & RedisCommands {
  for (const [name, [numberOfKeys, lua]] of Object.entries(SCRIPTS)) redis.defineCommand(name, { numberOfKeys, lua })
  return redis as Redis & RedisCommands
}
