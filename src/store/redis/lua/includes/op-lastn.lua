-- The `lastN` operation, for every strategy: ARGV[OP_ARGS] = series, ARGV[OP_ARGS + 1] = n.
--   Returns success, failure among the series' newest n outcomes.
-- provides: lastN
-- requires: OP_ARGS, readLastN
local function lastN()
  local success, failure = readLastN(ARGV[OP_ARGS], tonumber(ARGV[OP_ARGS + 1]))
  return { success, failure }
end
