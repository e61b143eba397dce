import type { OpenSharedStore } from '../engine/shared-store.js'

/**
 * Opens the shared store `--store` names (#32). The Redis client is imported here, on first use: a
 * mock without `--store` loads none of it, and its memory path stays as it was.
 */
export const openStore: OpenSharedStore = async (options, prefix, logger) =>
  (await import('../redis/open-redis-store.js')).openRedisStore(options, prefix, logger)
