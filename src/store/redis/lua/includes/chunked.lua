-- Calls a variadic command over a long list in chunks: Lua's unpack() fails past ~8,000 values (a
-- recency query may return 10,000 ids, its limit; a ledger shard past the listpack encoding
-- may drop thousands of requests at once). Returns the replies concatenated.
-- provides: chunked
-- requires: (nothing)
local function chunked(command, key, values)
  local replies = {}
  for first = 1, #values, 1000 do
    local last = math.min(first + 999, #values)
    local reply = redis.call(command, key, unpack(values, first, last))
    if type(reply) == 'table' then
      for i = 1, #reply do replies[#replies + 1] = reply[i] end
    end
  end
  return replies
end
