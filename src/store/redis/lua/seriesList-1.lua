-- The dims series each channel was seen with since a time, whichever process marked them (seriesMark-1.lua).
-- KEYS[1]   the first channel's prefix (includes/channels.lua)
-- ARGV[1]   since ms
-- ARGV[2…]  the channels (includes/channels.lua)
-- returns   per channel its series and their last seen ms, one after the other, oldest first
--@include channels.lua
local prefixes = channelList(2)
local seen = {}
for c = 1, #prefixes do
  seen[c] = redis.call('ZRANGEBYSCORE', prefixes[c] .. 'seen', ARGV[1], '+inf', 'WITHSCORES')
end
return seen
