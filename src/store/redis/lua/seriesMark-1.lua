-- The dims series each channel was seen with, for the other processes of a fleet (listSeries): each channel's
-- sorted set `seen` (series → last seen ms) takes its series at now; when one is new, it drops those past the dedup
-- horizon and, beyond the most a channel keeps, its oldest; the set expires with the horizon, so a quiet channel
-- leaves none.
-- KEYS[1]   the first channel's prefix (includes/channels.lua)
-- ARGV[1]   now ms
-- ARGV[2]   the dedup horizon ms
-- ARGV[3]   series a channel keeps at most
-- ARGV[4…]  the channels (includes/channels.lua), then per channel S and its S series (S ≥ 1)
-- returns   the number of channels marked
--@include channels.lua
local now, horizon, keep = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local list = { channelList(4) }
local prefixes, at = list[1], list[3]
for c = 1, #prefixes do
  local key = prefixes[c] .. 'seen'
  local count = tonumber(ARGV[at])
  local members = {}
  for s = 1, count do
    members[2 * s - 1] = now
    members[2 * s] = ARGV[at + s]
  end
  -- GT: a process whose clock runs behind never moves a series' last sighting back.
  local added = redis.call('ZADD', key, 'GT', unpack(members))
  -- Only a new series grows the set: the common mark, of series already there, costs two commands, not four.
  -- Readers skip marks past the horizon (seriesList-1.lua), so those left until the next new series are harmless.
  if added > 0 then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. (now - horizon))
    redis.call('ZREMRANGEBYRANK', key, 0, -(keep + 1))
  end
  redis.call('PEXPIRE', key, horizon)
  at = at + count + 1
end
return #prefixes
