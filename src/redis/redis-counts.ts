import { applyingEcho } from '../relay/relay-link.js'
import type { SharedCounts } from '../engine/shared-store.js'
import type { RedisStore } from './open-redis-store.js'

/** Sessions whose counts are kept at most, as in memory (`rules/rule-counters.ts`): the least recently counted go first. */
const MAX_SESSIONS = 10_000

/**
 * How often each rule and stub has answered, in Redis (#32): what `times` and `sequence` read, so that
 * a `times: 1` stub answers once over all the replicas, and a sequence advances one step per answer
 * whichever replica gives it. Each answer is one script: the count read and raised at once.
 */
export function createRedisCounts(store: RedisStore): SharedCounts {
  const { redis, prefix, guard, sessionTtlMs } = store
  const hashes = `${prefix}:hits:`
  const sessions = `${prefix}:hit-sessions`
  const memberOf = (session: string | undefined) => (session === undefined ? '-' : `=${session}`)
  return {
    async claim(rule, session, times) {
      const member = memberOf(session)
      const count = await guard(
        redis.claimCount(
          [hashes + member, sessions],
          rule,
          times ?? -1,
          sessionTtlMs,
          Date.now(),
          member,
          MAX_SESSIONS,
          hashes,
        ),
      )
      return Number(count)
    },
    async release(rule, session) {
      await guard(redis.releaseCount([hashes + memberOf(session)], rule))
    },
    async reset(session) {
      // A reset another replica received is applied here too: the counts are shared, dropped once.
      if (applyingEcho.getStore()) return
      const one = session === undefined ? [] : [memberOf(session)]
      await guard(redis.dropCounts([sessions], hashes, ...one))
    },
  }
}
