/** The Lua scripts of the rule counts (`redis-counts.ts`) and of the replicas (`replicas.ts`), defined as commands in `redis-commands.ts`. */

/**
 * KEYS: the session's hits (a hash, rule label → answers given), the sessions with hits (a sorted set
 * by last use). ARGV: the rule, its `times` (-1: none), the session's life in ms, now, the session's
 * member name, the most sessions kept, the prefix of the hashes. Answers the count before this answer,
 * or -1 when the rule's `times` are used up (nothing counted).
 */
export const CLAIM_COUNT = `
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
export const RELEASE_COUNT = `
local count = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if count > 0 then redis.call('HINCRBY', KEYS[1], ARGV[1], -1) end
return count
`

/** KEYS: the sessions with hits. ARGV: the prefix of the hashes, then one session's member name, or none for all. */
export const DROP_COUNTS = `
if ARGV[2] then
  redis.call('DEL', ARGV[1] .. ARGV[2])
  redis.call('ZREM', KEYS[1], ARGV[2])
  return 1
end
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do redis.call('DEL', ARGV[1] .. member) end
redis.call('DEL', KEYS[1])
return 1
`

/**
 * KEYS: the log (a stream), its size in bytes. ARGV: the write, the most bytes kept, the log's life in
 * ms. Appends the write and drops the oldest until the log fits again; answers the write's id.
 */
export const APPEND_WRITE = `
local id = redis.call('XADD', KEYS[1], '*', 'write', ARGV[1])
local total = redis.call('INCRBY', KEYS[2], #ARGV[1])
while total > tonumber(ARGV[2]) do
  local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
  if #oldest == 0 or oldest[1][1] == id then break end
  redis.call('XDEL', KEYS[1], oldest[1][1])
  total = redis.call('INCRBY', KEYS[2], -#oldest[1][2][2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return id
`

/** Keeps the lease while it is this replica's. */
export const RENEW_SLOT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') and 2 or 0`
export const RELEASE_SLOT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`
