-- Counting for strategy `buckets` (count-buckets.lua): outcomes of one call share a few series lists and
-- seconds, so they are gathered per (series list, second) and spread over the series once, at the end.
--
-- The client counts every terminal outcome of the batch as if it were new, gathered per series list
-- and second (clientCounts.ts): most are, and counting them here cost ≈ 0.2 µs of Redis CPU per outcome. The
-- script takes back the count of each one the ledger finds to be a duplicate (outcome.lua,
-- `o.countedByClient`).
-- provides: CLIENT_COUNTS, addClientCounts, countTerminal, flushTerminal
-- requires: keepFrom, idiv, SUCCESS, forgetBefore, tallySecond, TERMINAL_TALLY, SUCCESSES, FAILURES,
--           appendDetail, childOf
local CLIENT_COUNTS = true
local gathered, gatheredList = {}, {}
local cachedList, cachedSec, cachedGathered

local function gatherFor(seriesList, sec)
  if seriesList ~= cachedList or sec ~= cachedSec then
    local bySecond = childOf(gathered, seriesList)
    local g = bySecond[sec]
    if not g then
      g = { series = seriesList, sec = sec, s = 0, f = 0, n = 0 }
      bySecond[sec] = g
      gatheredList[#gatheredList + 1] = g
    end
    cachedList, cachedSec, cachedGathered = seriesList, sec, g
  end
  return cachedGathered
end

-- The client's counts of one series list and second: `records` is their detail, 2 bytes each. They go
-- straight to the tallies and the appends, which gather a call's writes per key themselves: a quiet
-- channel's one count then builds no table of its own. What the script counts itself (countTerminal,
-- the rare duplicates and corrections) is gathered and flushed at the channel's end; a second's detail
-- may then come in two appends, which a read adds up the same.
local function addClientCounts(seriesList, sec, successes, failures, records)
  for _, series in ipairs(seriesList) do
    if successes ~= 0 then tallySecond(TERMINAL_TALLY, series, sec, SUCCESSES, successes) end
    if failures ~= 0 then tallySecond(TERMINAL_TALLY, series, sec, FAILURES, failures) end
    if #records > 0 then appendDetail(series, sec, records) end
  end
end

local function countTerminal(o, status, at, delta)
  if at < keepFrom then return end
  local sec = idiv(at, 1000)
  local g = gatherFor(o.series, sec)
  local success = status == SUCCESS
  if success then g.s = g.s + delta else g.f = g.f + delta end
  if at < forgetBefore then return end -- never among the newest: last-N reads from the horizon on
  local record = (at - sec * 1000) * 4 + (success and 2 or 0) + (delta < 0 and 1 or 0)
  local n = g.n
  g[n + 1], g[n + 2], g.n = idiv(record, 256), record % 256, n + 2
end

local function flushTerminal()
  -- Most channels of a call gathered nothing: new tables for them cost ≈ 1.5 % of a quiet channel's instructions.
  if #gatheredList == 0 then return end
  for _, g in ipairs(gatheredList) do
    local parts = {}
    for i = 1, g.n, 4000 do parts[#parts + 1] = string.char(unpack(g, i, math.min(i + 3999, g.n))) end
    local records = table.concat(parts)
    for _, series in ipairs(g.series) do
      if g.s ~= 0 then tallySecond(TERMINAL_TALLY, series, g.sec, SUCCESSES, g.s) end
      if g.f ~= 0 then tallySecond(TERMINAL_TALLY, series, g.sec, FAILURES, g.f) end
      if #records > 0 then appendDetail(series, g.sec, records) end
    end
  end
  -- Flushed once: a call over several channels flushes each before it moves to the next (buckets/recordMany-1.lua).
  gathered, gatheredList, cachedList, cachedSec, cachedGathered = {}, {}, nil, nil, nil
end
