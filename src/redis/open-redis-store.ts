import { Redis } from 'ioredis'
import type { ResolvedOptions } from '../common/config.js'
import type { Logger } from '../common/log.js'
import type { OpenSharedStore, SharedStore } from '../engine/shared-store.js'
import { errors, isMockError, startupErrors } from '../errors/index.js'
import { type RedisCommands, defineCommands } from './redis-commands.js'
import { createRedisRecords } from './redis-records.js'
import { createRedisCounts } from './redis-counts.js'

/** How long start-up waits for Redis to answer before refusing to start. */
const CONNECT_MS = 5000
/**
 * How long one command may take: past it the request that needed it answers 503, never hangs.
 * Commands are never queued while Redis is away (`enableOfflineQueue: false`): they fail at once.
 */
const COMMAND_MS = 2000
/** Reconnection: 100 ms after the loss, doubling, at most every 5 s. */
const BACKOFF_FIRST_MS = 100
const BACKOFF_MAX_MS = 5000

/** The store as the Redis adapter's own parts see it: the client, the keys' prefix, and how a failed command becomes a 503. */
export interface RedisStore extends SharedStore {
  readonly redis: Redis & RedisCommands
  readonly prefix: string
  readonly sessionTtlMs: number
  /** Turns a failed command into the 503 the client gets (`storeUnavailable`). */
  guard<T>(work: Promise<T>): Promise<T>
  /** Runs at close, before the connection ends (a replica leaving). */
  onClose(close: () => Promise<void>): void
}

/**
 * Opens the Redis the options name (`--store redis://…`, #32): connected and answering PING before
 * the server listens, else a `store_unreachable` start-up error naming the URL. A connection lost
 * later is logged once, reconnected with backoff, and logged again once back; meanwhile the calls
 * that need it fail at once with a 503 (`storeUnavailable`).
 */
export const openRedisStore: OpenSharedStore = async (options: ResolvedOptions, prefix: string, logger: Logger) => {
  const url = options.store!
  const where = withoutPassword(url)
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: COMMAND_MS,
    connectTimeout: CONNECT_MS,
    retryStrategy: (times) => Math.min(BACKOFF_FIRST_MS * 2 ** (times - 1), BACKOFF_MAX_MS),
  })
  let up = false
  let lastError = ''
  redis.on('error', (error: Error) => void (lastError = error.message))
  await connect(redis, where, () => lastError)
  up = true
  redis.on('close', () => {
    if (!up) return
    up = false
    logger.warn(
      `lost the store at ${where}${lastError ? ` (${lastError})` : ''}; reconnecting, and answering 503 to requests that need it meanwhile`,
    )
  })
  redis.on('ready', () => {
    if (up) return
    up = true
    logger.info(`the store at ${where} is back`)
  })
  const commands = defineCommands(redis)
  const guard = async <T>(work: Promise<T>): Promise<T> => {
    try {
      return await work
    } catch (error) {
      if (isMockError(error)) throw error
      throw errors.storeUnavailable(where, up ? reasonOf(error as Error) : 'the connection is lost')
    }
  }
  const closing: Array<() => Promise<void>> = []
  const store: RedisStore = {
    where,
    redis: commands,
    prefix,
    sessionTtlMs: options.sessionTtlMs,
    guard,
    onClose: (close) => void closing.push(close),
    openCounts: () => createRedisCounts(store),
    openRecords: (setup) =>
      createRedisRecords({ redis: commands, prefix, sessionTtlMs: options.sessionTtlMs, guard }, setup),
    async close() {
      await Promise.all(closing.splice(0).map((close) => close()))
      up = false
      redis.removeAllListeners('close')
      await Promise.race([redis.quit().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000).unref())])
      redis.disconnect()
    },
  }
  return store
}

/** Connects and PINGs within `CONNECT_MS`; else stops trying and throws `store_unreachable`. */
async function connect(redis: Redis, where: string, lastError: () => string): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      redis.connect().then(() => redis.ping()),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CONNECT_MS / 1000} s`)), CONNECT_MS)
      }),
    ])
  } catch (error) {
    redis.disconnect()
    throw startupErrors.storeUnreachable(where, lastError() || (error as Error).message)
  } finally {
    clearTimeout(timer)
  }
}

function reasonOf(error: Error): string {
  if (/timed? ?out/i.test(error.message)) return `no answer within ${COMMAND_MS / 1000} s`
  return error.message
}

/** The URL as messages and logs show it: a password is never written. */
function withoutPassword(text: string): string {
  const url = new URL(text)
  if (url.password) url.password = '***'
  return url.toString()
}
