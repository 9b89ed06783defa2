-- Shared header of the channel scripts. KEYS[1] = `<namespace>:{<channel>}:`, the prefix of every key
-- the script touches (one hash tag, so one Cluster slot); an op for several channels lists them all in its
-- arguments (channelList below).
-- ARGV (channelScriptArgv in layouts.ts):
--   [1] op: 'record' | 'windows' | 'windows-many' | 'lastn' | 'failures' | 'minutes'
--   [2] now (epoch ms)            [3] pendingTimeoutMs   [4] horizonMs (dedup)   [5] retentionMs (counts)
--   [6] lastNMax                  [7] failuresMax        [8] ledgerShards (at most a channel, a power of 4)
--   [9] zsetShards
--   [10] skewToleranceMs          [11…] the op's own arguments
-- provides: prefix, op, now, pendingTimeout, horizon, retention, lastNMax, failuresMax, ledgerShards, zsetShards, skew, OP_ARGS,
--           PENDING, FAILURE, SUCCESS, ACCEPTED, DUPLICATE, CORRECTED, forgetBefore, keepFrom,
--           retentionTtlSec, idiv, int, numberText, channelList, eachSlot
-- requires: (nothing)
local prefix = KEYS[1]
local op = ARGV[1]
local now = tonumber(ARGV[2])
local pendingTimeout = tonumber(ARGV[3])
local horizon = tonumber(ARGV[4])
local retention = tonumber(ARGV[5])
local lastNMax = tonumber(ARGV[6])
local failuresMax = tonumber(ARGV[7])
local ledgerShards = tonumber(ARGV[8])
local zsetShards = tonumber(ARGV[9])
local skew = tonumber(ARGV[10])
local OP_ARGS = 11

local PENDING, FAILURE, SUCCESS = 1, 2, 3
local ACCEPTED, DUPLICATE, CORRECTED = '0', '1', '2'

-- A request whose last `at` is older than this is forgotten (the dedup horizon).
local forgetBefore = now - horizon
-- Counts older than this are past retention: nothing reads them, so nothing writes them.
local keepFrom = now - retention
local retentionTtlSec = math.ceil(retention / 1000) + 60

-- floor(a / b) for integers, in VM arithmetic: math.floor is a C call, and the per-outcome paths
-- would make several of them for every outcome. Exact for integers below 2^53 (% is floored in Lua).
local function idiv(a, b)
  return (a - a % b) / b
end

-- Lua 5.1 prints numbers with 14 significant digits; %d keeps epoch ms and scores exact.
local function int(x)
  return string.format('%d', x)
end

-- A number passed to redis.call is written out by sprintf in Redis, ≈ 2,100 instructions a number (40 %
-- of a whole HINCRBY, callgrind); a call's deltas, TTLs and shard numbers repeat, so each one's text is
-- made once per call: numberText[n] for an integer n.
local numberText = setmetatable({}, { __index = function(t, n)
  local text = int(n)
  t[n] = text
  return text
end })


-- An op for several channels (record-many, windows-many, windows-delta) names only the first channel's prefix
-- as its key, so that on a cluster the call goes to that channel's node, and lists them all from ARGV[first]:
-- S, the number of slots, S channel counts, then the prefixes, a slot's together. A script's own calls may
-- touch any slot of its node, but one command's keys must share a slot. Returns the prefixes, the counts
-- and the index of the op's next argument.
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
-- multi-key reads go slot by slot. Called before the op writes anything of those channels, a channel whose
-- slot the node no longer serves fails the call with nothing of theirs written (a read's sweep of the first
-- channel, in its own slot, may have run: the client's retry finds nothing more due).
local function eachSlot(prefixes, sizes, read)
  local offset = 0
  for _, size in ipairs(sizes) do
    read({ unpack(prefixes, offset + 1, offset + size) }, offset)
    offset = offset + size
  end
end
