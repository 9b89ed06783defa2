-- Moves stream entries that cannot be accepted to the dead-letter stream and acknowledges them, in one step:
-- a consumer killed in between can neither lose an entry (acked, never dead-lettered) nor dead-letter it
-- twice (dead-lettered, then delivered again). Both keys share the shard's hash tag.
-- KEYS[1] the outcome stream
-- KEYS[2] its dead-letter stream
-- ARGV[1] consumer group
-- ARGV[2] approximate length the dead-letter stream is trimmed to
-- ARGV[3…] per entry: id, number of field/value items that follow, then the items
-- returns the number of entries acknowledged (an entry already acked by someone else is not dead-lettered)
local group, maxLen = ARGV[1], ARGV[2]
local acked = 0
local i = 3
while i <= #ARGV do
  local id, count = ARGV[i], tonumber(ARGV[i + 1])
  local items = {}
  for k = 1, count do items[k] = ARGV[i + 1 + k] end
  i = i + 2 + count
  if redis.call('XACK', KEYS[1], group, id) == 1 then
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', maxLen, '*', unpack(items))
    acked = acked + 1
  end
end
return acked
