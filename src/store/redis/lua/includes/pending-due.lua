-- Whether channels have pending requests, and whether one has timeouts due. A due timeout is a failure
-- that only its channel's own call writes (outcome.lua's sweepTimeouts): a read finding one there says
-- 'sweep' instead of counting without it.
-- provides: anyPendingIn, timeoutsDue
-- requires: int, now
-- One EXISTS for all the channels, where a sweep per channel would read each channel's set.
local function anyPendingIn(prefixes)
  local keys = {}
  for c = 1, #prefixes do keys[c] = prefixes[c] .. 'pend' end
  return redis.call('EXISTS', unpack(keys)) > 0
end

local function timeoutsDue(channelPrefix)
  return #redis.call('ZRANGEBYSCORE', channelPrefix .. 'pend', '-inf', int(now), 'LIMIT', 0, 1) > 0
end
