-- Strategy `zset`, the classic sorted-set design (docs/storage.md): per series `z:<series>:all` and
-- `z:<series>:succ`, member `<channel>:<requestId>`, score = completion time. The sets are also the
-- dedup state: a member is unique, so a repeated callback is counted once. Sets are trimmed below the
-- retention a bounded number of members per call: one huge ZREMRANGEBYSCORE would block Redis.
-- A failure counted in more series than the channel's own has them in `fs`, member `<id>` then
-- header-writes.lua's seriesSuffix, score = at, within the dedup horizon: a later success takes the failure
-- back from them, whatever dims it carries.
-- This file reads the sets; count-zset-writes.lua claims requests and writes them.
-- provides: zkey, readTerminal, readMinuteTerminal
-- requires: prefix
local function zkey(series, which)
  return prefix .. 'z:' .. series .. ':' .. which
end

local function readTerminal(series, fromSec, toSec)
  local fromMs, toMs = fromSec * 1000, toSec * 1000 + 999
  local all = redis.call('ZCOUNT', zkey(series, 'all'), fromMs, toMs)
  local succ = redis.call('ZCOUNT', zkey(series, 'succ'), fromMs, toMs)
  return succ, all - succ
end

local function readMinuteTerminal(series, minute)
  return readTerminal(series, minute * 60, minute * 60 + 59)
end
