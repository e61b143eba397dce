/**
 * The Lua scripts of the Redis record store (`redis-records.ts`): each write is one script, so that
 * it is atomic across replicas (two creates of one key: one is `created`, the other `exists`).
 *
 * Every script takes the keys of one collection, a resource's records in one session (or in the data
 * without a session): KEYS[1] `meta` (a hash: `owned`, `seq` the creation counter, `n\n<scope>`
 * records per scope, `hi\n<scope>` the highest integer key of a scope), KEYS[2] `rec` (scope\nkey →
 * the record as JSON), KEYS[3] `ord` (a sorted set of scope\nkey by creation), KEYS[4] `sessions`
 * (session names by last write, ms). A collection not yet `owned` is the seed's: a write answers
 * `FORK`, the store copies the seed in (`fork`) and writes again.
 */

/** Shared by the scripts: integer keys compared as text (beyond 2^53), the collection's bookkeeping. */
const COMMON = `
local function isint(s) return string.match(s, '^%-?%d+$') ~= nil end
local function cmpint(a, b)
  local na, nb = string.sub(a, 1, 1) == '-', string.sub(b, 1, 1) == '-'
  if na ~= nb then if na then return -1 else return 1 end end
  local sa = na and string.sub(a, 2) or a
  local sb = nb and string.sub(b, 2) or b
  local r = 0
  if #sa ~= #sb then r = (#sa < #sb) and -1 or 1 elseif sa ~= sb then r = (sa < sb) and -1 or 1 end
  if na then return -r end
  return r
end
local function incr(s)
  local digits, carry = {}, 1
  for i = #s, 1, -1 do
    local d = string.byte(s, i) - 48 + carry
    carry = (d == 10) and 1 or 0
    digits[i] = string.char(48 + d % 10)
  end
  local out = table.concat(digits)
  if carry == 1 then out = '1' .. out end
  return out
end
local function touch(ttl, now, session)
  if session == '' then return end
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
  redis.call('ZADD', KEYS[4], now, session)
end
local function added(scope, key, field)
  local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
  redis.call('ZADD', KEYS[3], seq, field)
  redis.call('HINCRBY', KEYS[1], 'n\\n' .. scope, 1)
  if isint(key) then
    local hi = redis.call('HGET', KEYS[1], 'hi\\n' .. scope) or '0'
    if cmpint(key, hi) > 0 then redis.call('HSET', KEYS[1], 'hi\\n' .. scope, key) end
  end
end
`

/** ARGV: field, json, limit, ttl, now, session. A record that has its key: `created`, `exists`, `full` or `FORK`. */
export const CREATE_KEYED = `${COMMON}
if redis.call('HEXISTS', KEYS[1], 'owned') == 0 then return 'FORK' end
local field = ARGV[1]
if redis.call('HEXISTS', KEYS[2], field) == 1 then return 'exists' end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then return 'full' end
redis.call('HSET', KEYS[2], field, ARGV[2])
local nl = string.find(field, '\\n', 1, true)
added(string.sub(field, 1, nl - 1), string.sub(field, nl + 1), field)
touch(ARGV[4], ARGV[5], ARGV[6])
return 'created'
`

/**
 * ARGV: scope, kind (integer, uuid, string), head, tail, limit, ttl, now, session, uuid. A record
 * without its key gets the next integer of its scope, the uuid given, or \`r<n>\` not yet taken; its
 * JSON is head .. key .. tail. Answers the key, \`full\` or \`FORK\`.
 */
export const CREATE_UNKEYED = `${COMMON}
if redis.call('HEXISTS', KEYS[1], 'owned') == 0 then return {'FORK'} end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[5]) then return {'full'} end
local scope, kind = ARGV[1], ARGV[2]
local key, literal
if kind == 'integer' then
  key = incr(redis.call('HGET', KEYS[1], 'hi\\n' .. scope) or '0')
  literal = key
elseif kind == 'uuid' then
  key = ARGV[9]
  literal = '"' .. key .. '"'
else
  local n = tonumber(redis.call('HGET', KEYS[1], 'n\\n' .. scope) or '0') + 1
  while redis.call('HEXISTS', KEYS[2], scope .. '\\n' .. 'r' .. n) == 1 do n = n + 1 end
  key = 'r' .. n
  literal = '"' .. key .. '"'
end
local field = scope .. '\\n' .. key
if redis.call('HEXISTS', KEYS[2], field) == 1 then return {'taken'} end
redis.call('HSET', KEYS[2], field, ARGV[3] .. literal .. ARGV[4])
added(scope, key, field)
touch(ARGV[6], ARGV[7], ARGV[8])
return {'created', key}
`

/**
 * ARGV: field, expected (the JSON read before, '' when there was none), json, limit, ttl, now,
 * session. Writes only if the record is still what was read: \`ok\`, \`changed\` (read again),
 * \`full\` or \`FORK\`. Replace and merge, whose new record is made from the old one.
 */
export const COMPARE_AND_SET = `${COMMON}
if redis.call('HEXISTS', KEYS[1], 'owned') == 0 then return 'FORK' end
local field, expected = ARGV[1], ARGV[2]
local current = redis.call('HGET', KEYS[2], field)
if expected == '' then
  if current then return 'changed' end
  if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[4]) then return 'full' end
  redis.call('HSET', KEYS[2], field, ARGV[3])
  local nl = string.find(field, '\\n', 1, true)
  added(string.sub(field, 1, nl - 1), string.sub(field, nl + 1), field)
else
  if current ~= expected then return 'changed' end
  redis.call('HSET', KEYS[2], field, ARGV[3])
end
touch(ARGV[5], ARGV[6], ARGV[7])
return 'ok'
`

/** ARGV: field, ttl, now, session. The removed record's JSON, \`false\` (nil) when there was none, or \`FORK\`. */
export const REMOVE = `${COMMON}
if redis.call('HEXISTS', KEYS[1], 'owned') == 0 then return {'FORK'} end
local field = ARGV[1]
local current = redis.call('HGET', KEYS[2], field)
if not current then return {'missing'} end
redis.call('HDEL', KEYS[2], field)
redis.call('ZREM', KEYS[3], field)
local nl = string.find(field, '\\n', 1, true)
local scope, key = string.sub(field, 1, nl - 1), string.sub(field, nl + 1)
redis.call('HINCRBY', KEYS[1], 'n\\n' .. scope, -1)
if isint(key) and redis.call('HGET', KEYS[1], 'hi\\n' .. scope) == key then
  -- The highest gone, the next one is the highest left, as in memory.
  local hi = '0'
  for _, member in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    if string.sub(member, 1, #scope + 1) == scope .. '\\n' then
      local other = string.sub(member, #scope + 2)
      if isint(other) and cmpint(other, hi) > 0 then hi = other end
    end
  end
  redis.call('HSET', KEYS[1], 'hi\\n' .. scope, hi)
end
touch(ARGV[2], ARGV[3], ARGV[4])
return {'removed', current}
`

/**
 * ARGV: field, ttl, now, session. \`{0}\` for a collection still the seed's, else \`{1, json}\` or
 * \`{1}\` when there is none. A read uses the session as a write does: it is kept longest.
 */
export const READ = `${COMMON}
if redis.call('HEXISTS', KEYS[1], 'owned') == 0 then return {0} end
touch(ARGV[2], ARGV[3], ARGV[4])
return {1, redis.call('HGET', KEYS[2], ARGV[1])}
`

/**
 * ARGV: scope ('' with \`all\` = '1': every scope), ttl, now, session. \`{0}\` for the seed's, else
 * \`{1, field, json, …}\` in creation order.
 */
export const LIST = `${COMMON}
if redis.call('HEXISTS', KEYS[1], 'owned') == 0 then return {0} end
touch(ARGV[3], ARGV[4], ARGV[5])
local scope, all = ARGV[1] .. '\\n', ARGV[2] == '1'
local fields = {}
for _, member in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
  if all or string.sub(member, 1, #scope) == scope then fields[#fields + 1] = member end
end
local out = {1}
for i = 1, #fields, 1000 do
  local chunk = {}
  for j = i, math.min(i + 999, #fields) do chunk[#chunk + 1] = fields[j] end
  local values = redis.call('HMGET', KEYS[2], unpack(chunk))
  for j = 1, #chunk do
    if values[j] then out[#out + 1] = chunk[j]; out[#out + 1] = values[j] end
  end
end
return out
`

/**
 * Replaces a collection: ARGV ttl, now, session, maxSessions, prefix, then resource names count and
 * names (for dropping the least recently written sessions beyond \`maxSessions\`), then field, json
 * pairs. \`onlyIfNotOwned\` = ARGV[6]: '1' for the copy of the seed (\`fork\`), which another replica may
 * have made first. Answers 'done' or 'owned'.
 */
export const FILL = `${COMMON}
if ARGV[6] == '1' and redis.call('HEXISTS', KEYS[1], 'owned') == 1 then return 'owned' end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'owned', '1', 'seq', '0')
local count = tonumber(ARGV[7])
local i = 8 + count
while i < #ARGV do
  local field = ARGV[i]
  redis.call('HSET', KEYS[2], field, ARGV[i + 1])
  local nl = string.find(field, '\\n', 1, true)
  added(string.sub(field, 1, nl - 1), string.sub(field, nl + 1), field)
  i = i + 2
end
local session = ARGV[3]
touch(ARGV[1], ARGV[2], session)
if session ~= '' then
  -- Sessions idle past their time to live are gone (their keys expired); beyond the budget, the least recently written go.
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[1]))
  local over = redis.call('ZCARD', KEYS[4]) - tonumber(ARGV[4])
  if over > 0 then
    for _, old in ipairs(redis.call('ZRANGE', KEYS[4], 0, over - 1)) do
      local part = ARGV[5] .. ':=' .. #old .. ':' .. old .. ':'
      for r = 8, 7 + count do
        redis.call('DEL', part .. 'meta:' .. ARGV[r], part .. 'rec:' .. ARGV[r], part .. 'ord:' .. ARGV[r])
      end
      redis.call('ZREM', KEYS[4], old)
    end
  end
end
return 'done'
`

/**
 * Drops data: ARGV prefix, which ('all' or 'one'), session (for 'one'), resource count and names.
 * 'all' drops the data without a session and every session's.
 */
export const DROP = `
local prefix = ARGV[1]
local count = tonumber(ARGV[4])
local function dropSession(part)
  for r = 5, 4 + count do
    redis.call('DEL', part .. 'meta:' .. ARGV[r], part .. 'rec:' .. ARGV[r], part .. 'ord:' .. ARGV[r])
  end
end
if ARGV[2] == 'one' then
  dropSession(prefix .. ':=' .. #ARGV[3] .. ':' .. ARGV[3] .. ':')
  redis.call('ZREM', KEYS[1], ARGV[3])
  return 1
end
for _, session in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  dropSession(prefix .. ':=' .. #session .. ':' .. session .. ':')
end
redis.call('DEL', KEYS[1])
dropSession(prefix .. ':-:')
return 1
`

/**
 * ARGV: ttl, now, resource count, then per resource its name and the seed's record count. Sessions
 * (idle ones pruned first) and the records all hold, a collection still the seed's counted as the seed.
 */
export const SIZE = `
local prefix = KEYS[2]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[1]))
local sessions = redis.call('ZRANGE', KEYS[1], 0, -1)
local parts = {prefix .. ':-:'}
for _, session in ipairs(sessions) do parts[#parts + 1] = prefix .. ':=' .. #session .. ':' .. session .. ':' end
local records = 0
local count = tonumber(ARGV[3])
for _, part in ipairs(parts) do
  for r = 0, count - 1 do
    local name, seeded = ARGV[4 + 2 * r], tonumber(ARGV[5 + 2 * r])
    if redis.call('HEXISTS', part .. 'meta:' .. name, 'owned') == 1 then
      records = records + redis.call('HLEN', part .. 'rec:' .. name)
    else
      records = records + seeded
    end
  end
end
return {#sessions, records}
`
