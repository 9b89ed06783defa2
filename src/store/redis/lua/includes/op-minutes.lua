-- The `minutes` operation, for every strategy: ARGV[OP_ARGS] = series, ARGV[OP_ARGS + 1] = first minute,
--   ARGV[OP_ARGS + 2] = last minute (epoch minutes). Returns success, failure, started for each minute.
-- provides: minutes
-- requires: OP_ARGS, readMinuteTerminal, minuteTally, PENDING_TALLY, STARTED
local function minutes()
  local series, out = ARGV[OP_ARGS], {}
  for minute = tonumber(ARGV[OP_ARGS + 1]), tonumber(ARGV[OP_ARGS + 2]) do
    local success, failure = readMinuteTerminal(series, minute)
    out[#out + 1] = success
    out[#out + 1] = failure
    out[#out + 1] = minuteTally(PENDING_TALLY, series, minute)[STARTED]
  end
  return out
end
