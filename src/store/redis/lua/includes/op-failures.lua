-- The `failures` operation, for every strategy: ARGV[OP_ARGS] = from (ms), ARGV[OP_ARGS + 1] = limit.
--   Returns `<id>\t<code>`, at, … of the channel's newest failures, newest first.
-- provides: failures
-- requires: OP_ARGS, readFailures
local function failures()
  return readFailures(tonumber(ARGV[OP_ARGS]), tonumber(ARGV[OP_ARGS + 1]))
end
