-- Sorted-set writes of one call are gathered per key and sent as one ZADD per key at the end.
local zadds, zaddKeys = {}, {}
local function queueZadd(key, member, score)
  local entries = zadds[key]
  if not entries then
    entries = {}
    zadds[key] = entries
    zaddKeys[#zaddKeys + 1] = key
  end
  entries[member] = score
end

local function removeMember(key, member)
  local entries = zadds[key]
  if entries and entries[member] then entries[member] = nil end
  redis.call('ZREM', key, member)
end

local function flushZadds()
  for _, key in ipairs(zaddKeys) do
    local args, n = {}, 0
    for member, score in pairs(zadds[key]) do
      args[n + 1] = score -- scores stay below 15 digits, which Lua's %.14g writes exactly
      args[n + 2] = member
      n = n + 2
      if n >= 1000 then
        redis.call('ZADD', key, unpack(args, 1, n))
        n = 0
      end
    end
    if n > 0 then redis.call('ZADD', key, unpack(args, 1, n)) end
  end
end
