-- The channels of an operation for several (recordMany, windowsMany, windowsDelta). Such an operation names
-- only the first channel's prefix as its key, so that on a cluster the call goes to that channel's node, and
-- lists them all from ARGV[first]: S, the number of slots, S channel counts, then the prefixes, a slot's
-- together. A script's own calls may touch any slot of its node, but one command's keys must share a slot.
-- provides: channelList, eachSlot
-- requires: (nothing)

-- Returns the prefixes, the counts per slot and the index of the operation's next argument.
local function channelList(first)
  local slotCount, sizes, prefixes, total = tonumber(ARGV[first]), {}, {}, 0
  for s = 1, slotCount do
    sizes[s] = tonumber(ARGV[first + s])
    total = total + sizes[s]
  end
  for c = 1, total do prefixes[c] = ARGV[first + slotCount + c] end
  return prefixes, sizes, first + slotCount + total + 1
end

-- Calls `read(slotPrefixes, offset)` for each slot's channels, prefixes[offset + 1…] being its first: its
-- multi-key reads go slot by slot. Called before the operation writes anything of those channels, a channel
-- whose slot the node no longer serves fails the call with nothing of theirs written.
local function eachSlot(prefixes, sizes, read)
  local offset = 0
  for _, size in ipairs(sizes) do
    read({ unpack(prefixes, offset + 1, offset + size) }, offset)
    offset = offset + size
  end
end
