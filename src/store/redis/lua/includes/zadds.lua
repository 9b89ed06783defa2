-- Sorted-set writes of one call are gathered per key and sent as one ZADD per key at the end.
-- provides: zadds, queueZadd, removeMember, flushZadds
-- requires: chunked
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

-- Through chunked() (chunked.lua), whose chunks of 1,000 values keep each score with its member.
local function flushZadds()
  for _, key in ipairs(zaddKeys) do
    local args = {}
    for member, score in pairs(zadds[key]) do
      args[#args + 1] = score -- scores stay below 15 digits, which Lua's %.14g writes exactly
      args[#args + 1] = member
    end
    if #args > 0 then chunked('ZADD', key, args) end
  end
end
