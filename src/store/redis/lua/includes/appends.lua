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
    local text = table.concat(parts)
    -- The TTL is set by the append that creates the key: it ends when the second leaves the horizon,
    -- the same instant for every later append.
    if redis.call('APPEND', key, text) == #text then keepFor(key, secondTtlSec(parts.sec)) end
  end
end
