-- Writes of the per-second counters (tally.lua): increments of one call are summed in Lua first, so a
-- batch of thousands of outcomes over a few seconds costs a handful of HINCRBY, not one per outcome.
-- A call that writes counts more than LATE_SECONDS before its own `now` (a late outcome, a pending request
-- resolved or timed out, an upgraded failure) changes the channel's `rev`: a reader that keeps what it read
-- of settled seconds (buckets/windowsDelta-1.lua) must read whole again. Every call that writes counts changes the
-- channel's `wr`: a reader that holds the fresh seconds it read needs no new read of them while it is unchanged.
-- A count is never negative: a removal is taken from the series that counted the outcome (outcome.lua). Should
-- a call ever leave one below zero all the same, it sets the channel's `ng`, and a reader then infers nothing
-- from sums being equal (buckets/windowsDelta-1.lua).
-- provides: tallySecond, tally, flushTallies, resetTallyCursor
-- requires: prefix, int, idiv, now, numberText, keepFrom, retention, retentionTtlSec, SUCCESSES, FAILURES, STARTED,
--           OPEN_PENDING, PENDING_TALLY, PENDING_MARK, REV_KEY, WRITES_KEY, NEGATIVE_MARK, BLOCK_MINUTES, blockKinds,
--           childOf, secondFields, seriesPart
local tallies, tallyKeys, partsOfKey, channelOf = {}, {}, {}, {}
local LATE_SECONDS = 5
local lateBefore = idiv(now, 1000) - LATE_SECONDS
-- Per channel prefix, since one call may write several channels.
local written, pendingWritten, lateWritten = {}, {}, {}

-- What follows the channel prefix in a minute's key and in its block's, the same for every channel of
-- a call: built once per kind, series and minute, so a channel's keys cost one concatenation each.
local writeParts = {}
local function partsOf(kind, series, minute)
  local byMinute = childOf(childOf(writeParts, kind), series)
  local parts = byMinute[minute]
  if not parts then
    local block = idiv(minute, BLOCK_MINUTES)
    parts = { minute = seriesPart(kind, series) .. int(minute), endSec = minute * 60 + 60,
      block = seriesPart(blockKinds[kind], series) .. int(block), blockEndSec = (block + 1) * BLOCK_MINUTES * 60 }
    byMinute[minute] = parts
  end
  return parts
end

-- Outcomes of one call mostly share a few seconds, and those seconds their minute: the key and field
-- names of the last second, and the key of its minute, are kept instead of built again. A quiet
-- channel's call brings one outcome a second, five or so of one minute in the sweep's calls.
local lastKind, lastSeries, lastSec, lastMinute, lastKey, lastOffset
local function tallySecond(kind, series, sec, field, delta)
  if sec ~= lastSec or kind ~= lastKind or series ~= lastSeries then
    local minute = idiv(sec, 60)
    if minute ~= lastMinute or kind ~= lastKind or series ~= lastSeries then
      local parts = partsOf(kind, series, minute)
      lastKind, lastSeries, lastMinute = kind, series, minute
      lastKey = prefix .. parts.minute
      if not tallies[lastKey] then
        tallies[lastKey] = {}
        tallyKeys[#tallyKeys + 1] = lastKey
        partsOfKey[lastKey], channelOf[lastKey] = parts, prefix
        written[prefix] = true
        if kind == PENDING_TALLY then pendingWritten[prefix] = true end
      end
    end
    lastSec, lastOffset = sec, sec - minute * 60
    if sec < lateBefore then lateWritten[prefix] = true end
  end
  local fields = tallies[lastKey]
  local f = secondFields[field][lastOffset]
  fields[f] = (fields[f] or 0) + delta
  fields[field] = (fields[field] or 0) + delta
end

-- The cursor above knows no channel: a call that records several channels resets it between them.
local function resetTallyCursor()
  lastSec, lastMinute = nil, nil
end

local function tally(kind, series, atMs, field, delta)
  if atMs >= keepFrom then tallySecond(kind, series, idiv(atMs, 1000), field, delta) end
end

-- A counter key is kept until its last second leaves the retention (`endSec`, exclusive), plus a minute:
-- the same instant for every write, so its TTL is set once, by the write that creates the key. Every
-- field of a new key is new, so a key is taken as new when an increment of a total (`s`, `f`, `p`, `o`,
-- which every write of a second also changes) answers its own delta; a total that was at 0 gives an
-- EXPIRE too many, never one too few. A write that changes no total (its seconds' deltas sum to 0) sets it.
local IS_TOTAL = { [SUCCESSES] = true, [FAILURES] = true, [STARTED] = true, [OPEN_PENDING] = true }
-- Returns whether a count is left below zero. `sums`, if given, gathers the totals' deltas (a block's).
local function incrementAll(key, fields, endSec, sums)
  local wrote, fresh, totals, negative = false, false, false, false
  for field, delta in pairs(fields) do
    local total = IS_TOTAL[field]
    if total and sums then sums[field] = (sums[field] or 0) + delta end
    if delta ~= 0 then
      local value = redis.call('HINCRBY', key, field, numberText[delta])
      if value < 0 then negative = true end
      if total then totals, fresh = true, fresh or value == delta end
      wrote = true
    end
  end
  if fresh or (wrote and not totals) then
    redis.call('EXPIRE', key, numberText[math.ceil((endSec * 1000 + retention - now) / 1000) + 60])
  end
  return negative
end

-- Each minute's increments, then its block's: the sum of the minutes' totals, gathered per block first.
local function flushTallies()
  local blocks, blockKeys, blockEnd, negative = {}, {}, {}, {}
  for _, key in ipairs(tallyKeys) do
    local parts, channel = partsOfKey[key], channelOf[key]
    local block = channel .. parts.block
    local sums = blocks[block]
    if not sums then
      sums = {}
      blocks[block], blockEnd[block] = sums, parts.blockEndSec
      blockKeys[#blockKeys + 1] = block
    end
    if incrementAll(key, tallies[key], parts.endSec, sums) then negative[channel] = true end
  end
  -- Only the minutes decide the `ng` mark, as before: a block holds their sums.
  for _, block in ipairs(blockKeys) do incrementAll(block, blocks[block], blockEnd[block]) end
  for channel in pairs(negative) do redis.call('SET', channel .. NEGATIVE_MARK, '1', 'EX', numberText[retentionTtlSec]) end
  for channel in pairs(pendingWritten) do redis.call('SET', channel .. PENDING_MARK, '1', 'EX', numberText[retentionTtlSec]) end
  -- Its TTL is set once, when the key is made: a key made again after it expired starts from the call's
  -- clock, not from 1, so a reader never finds the value it saw before the key expired.
  for channel in pairs(written) do
    if redis.call('INCR', channel .. WRITES_KEY) == 1 then redis.call('SET', channel .. WRITES_KEY, int(now), 'EX', numberText[retentionTtlSec]) end
  end
  for channel in pairs(lateWritten) do
    redis.call('INCR', channel .. REV_KEY)
    redis.call('EXPIRE', channel .. REV_KEY, numberText[retentionTtlSec])
  end
end
