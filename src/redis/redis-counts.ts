import { applyingEcho } from '../relay/relay-link.js'
import type { SharedCounts } from '../engine/shared-store.js'
import type { RedisStore } from './open-redis-store.js'

/**
 * KEYS: the session's hits (a hash, rule label → answers given), the sessions with hits (a sorted set
 * by last use). ARGV: the rule, its `times` (-1: none), the session's life in ms, now, the session's
 * member name, the most sessions kept, the prefix of the hashes. Answers the count before this answer,
 * or -1 when the rule's `times` are used up (nothing counted).
 */
const CLAIM = `
local count = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
local times = tonumber(ARGV[2])
if times >= 0 and count >= times then return -1 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
if redis.call('ZCARD', KEYS[2]) > tonumber(ARGV[6]) then
  local oldest = redis.call('ZPOPMIN', KEYS[2])
  redis.call('DEL', ARGV[7] .. oldest[1])
end
return count
`

/** KEYS: the session's hits. ARGV: the rule. One count less, never below 0. */
const RELEASE = `
local count = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if count > 0 then redis.call('HINCRBY', KEYS[1], ARGV[1], -1) end
return count
`

/** KEYS: the sessions with hits. ARGV: the prefix of the hashes, then one session's member name, or none for all. */
const DROP_COUNTS = `
if ARGV[2] then
  redis.call('DEL', ARGV[1] .. ARGV[2])
  redis.call('ZREM', KEYS[1], ARGV[2])
  return 1
end
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do redis.call('DEL', ARGV[1] .. member) end
redis.call('DEL', KEYS[1])
return 1
`

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
        redis.eval(
          CLAIM,
          2,
          hashes + member,
          sessions,
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
      await guard(redis.eval(RELEASE, 1, hashes + memberOf(session), rule))
    },
    async reset(session) {
      // A reset another replica received is applied here too: the counts are shared, dropped once.
      if (applyingEcho.getStore()) return
      const one = session === undefined ? [] : [memberOf(session)]
      await guard(redis.eval(DROP_COUNTS, 1, sessions, hashes, ...one))
    },
  }
}
