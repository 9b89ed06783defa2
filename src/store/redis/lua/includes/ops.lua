-- The read operations of a channel script. The full script turns its channel's due timeouts into failures
-- first; a reads-only script answers 'sweep' instead (buckets-read-1.lua).
--   windows  ARGV[11] = series, ARGV[12…] = window lengths in seconds.
--            Returns success, failure, started, pending for each window.
--   windows-many  ARGV[11…] = the channels (header.lua's channelList), then W, W window lengths in
--            seconds, then per channel S and its S series.
--            Returns per channel what `windows` returns for each of its series, one after the other; or
--            'sweep' for a channel past the first with pending requests past their deadline, which only
--            that channel's own call turns into failures (outcome.lua's keys are KEYS[1]'s): the caller
--            reads it with `windows`.
--   lastn    ARGV[11] = series, ARGV[12] = n. Returns success, failure among the newest n.
--   failures ARGV[11] = from (ms), ARGV[12] = limit. Returns `<id>\t<code>`, at, … newest first.
--   minutes  ARGV[11] = series, ARGV[12] = first minute, ARGV[13] = last minute (epoch minutes).
--            Returns success, failure, started for each minute.
-- provides: (nothing)
-- requires: op, OP_ARGS, now, readTerminal, sumTally, PENDING_TALLY, STARTED, OPEN_PENDING, readLastN, readFailures,
--           readMinuteTerminal, minuteTally, prefix, channelList, timeoutsDue
-- A series' counts for windows from each of `fromSecs` to `toSec`, appended to `out`.
local function appendWindows(out, series, fromSecs, toSec)
  for _, fromSec in ipairs(fromSecs) do
    local success, failure = readTerminal(series, fromSec, toSec)
    out[#out + 1] = success
    out[#out + 1] = failure
    local started, open = sumTally(PENDING_TALLY, series, fromSec, toSec, STARTED, OPEN_PENDING)
    out[#out + 1] = started
    out[#out + 1] = open
  end
  return out
end

if op == 'windows' then
  local toSec, fromSecs = math.floor(now / 1000), {}
  for k = OP_ARGS + 1, #ARGV do fromSecs[#fromSecs + 1] = toSec - tonumber(ARGV[k]) + 1 end
  return appendWindows({}, ARGV[OP_ARGS], fromSecs, toSec)
end

if op == 'windows-many' then
  local prefixes, _, first = channelList(OP_ARGS)
  local toSec, windowCount, fromSecs = math.floor(now / 1000), tonumber(ARGV[first]), {}
  for w = 1, windowCount do fromSecs[w] = toSec - tonumber(ARGV[first + w]) + 1 end
  local out, k = {}, first + windowCount + 1
  for c = 1, #prefixes do
    -- Every read include builds its keys from `prefix` when called, so re-pointing it reads channel c.
    prefix = prefixes[c]
    local seriesCount = tonumber(ARGV[k])
    if c > 1 and timeoutsDue(prefix) then
      out[c] = 'sweep'
    else
      local counts = {}
      for j = 1, seriesCount do appendWindows(counts, ARGV[k + j], fromSecs, toSec) end
      out[c] = counts
    end
    k = k + seriesCount + 1
  end
  return out
end

if op == 'lastn' then
  local success, failure = readLastN(ARGV[OP_ARGS], tonumber(ARGV[OP_ARGS + 1]))
  return { success, failure }
end

if op == 'failures' then
  return readFailures(tonumber(ARGV[OP_ARGS]), tonumber(ARGV[OP_ARGS + 1]))
end

if op == 'minutes' then
  local series, out = ARGV[OP_ARGS], {}
  for minute = tonumber(ARGV[OP_ARGS + 1]), tonumber(ARGV[OP_ARGS + 2]) do
    local success, failure = readMinuteTerminal(series, minute)
    out[#out + 1] = success
    out[#out + 1] = failure
    out[#out + 1] = minuteTally(PENDING_TALLY, series, minute)[STARTED]
  end
  return out
end

return redis.error_reply('unknown op ' .. tostring(op))
