-- The `windowsMany` operation, for every strategy: `windows` for several channels' series in one call.
--   ARGV[OP_ARGS…] = the channels (channels.lua's channelList), then W, W window lengths in seconds, then
--   per channel S and its S series.
--   Returns per channel what `windows` returns for each of its series, one after the other; or 'sweep' for a
--   channel past the first with pending requests past their deadline, which only that channel's own sweep
--   turns into failures: the caller reads it with `windows`.
-- provides: windowsMany
-- requires: OP_ARGS, now, prefix, channelList, timeoutsDue, appendWindows
local function windowsMany()
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
