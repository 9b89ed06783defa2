-- Shared header of the channel scripts. KEYS[1] = `<namespace>:{<channel>}:`, the prefix of every key
-- the script touches (one hash tag, so one Cluster slot); an operation for several channels lists them all in
-- its arguments (channels.lua).
-- ARGV (channelScriptArgv in layouts.ts):
--   [1] now (epoch ms)            [2] pendingTimeoutMs   [3] horizonMs (dedup)   [4] retentionMs (counts)
--   [5] lastNMax                  [6] failuresMax        [7] ledgerShards (at most a channel, a power of 4)
--   [8] skewToleranceMs           [9…] the operation's own arguments (OP_ARGS on)
-- provides: prefix, now, pendingTimeout, horizon, retention, lastNMax, failuresMax, ledgerShards, skew, OP_ARGS,
--           PENDING, FAILURE, SUCCESS, ACCEPTED, DUPLICATE, CORRECTED, forgetBefore, keepFrom,
--           retentionTtlSec, idiv, int
-- requires: (nothing)
local prefix = KEYS[1]
local now = tonumber(ARGV[1])
local pendingTimeout = tonumber(ARGV[2])
local horizon = tonumber(ARGV[3])
local retention = tonumber(ARGV[4])
local lastNMax = tonumber(ARGV[5])
local failuresMax = tonumber(ARGV[6])
local ledgerShards = tonumber(ARGV[7])
local skew = tonumber(ARGV[8])
local OP_ARGS = 9

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
