-- Per-second logs (strategy `buckets`: last-N details, failures) are appended to, not rewritten: the
-- text for one key is gathered over the call and sent as one APPEND at its end (flushWrites,
-- outcome.lua). Each key is kept while its second is within the dedup horizon.
-- provides: queueAppend, flushAppends
-- requires: keepFor, secondTtlSec
local appends, appendKeys = {}, {}

local function queueAppend(key, sec, text)
  local parts = appends[key]
  if not parts then
    parts = { sec = sec }
    appends[key] = parts
    appendKeys[#appendKeys + 1] = key
  end
  parts[#parts + 1] = text
end

local function flushAppends()
  for _, key in ipairs(appendKeys) do
    local parts = appends[key]
    redis.call('APPEND', key, table.concat(parts))
    keepFor(key, secondTtlSec(parts.sec))
  end
end
