-- Per-second logs (strategy `buckets`: last-N details, failures) are appended to, not rewritten: the
-- text for one key is gathered over the call and sent as one APPEND at its end (flushWrites,
-- outcome.lua). Each key is kept while its second is within the dedup horizon.
-- provides: queueAppend, flushAppends
-- requires: keepFor, secondTtlSec
-- A key's text is kept as a string while one append queues it (a quiet channel's usual case), as a
-- list of parts from the second on: a table per key cost more than the text.
local appends, appendSecs, appendKeys = {}, {}, {}

local function queueAppend(key, sec, text)
  local queued = appends[key]
  if not queued then
    appends[key], appendSecs[key] = text, sec
    appendKeys[#appendKeys + 1] = key
  elseif type(queued) == 'string' then
    appends[key] = { queued, text }
  else
    queued[#queued + 1] = text
  end
end

local function flushAppends()
  for _, key in ipairs(appendKeys) do
    local text = appends[key]
    if type(text) == 'table' then text = table.concat(text) end
    -- The TTL is set by the append that creates the key: it ends when the second leaves the horizon,
    -- the same instant for every later append.
    if redis.call('APPEND', key, text) == #text then keepFor(key, secondTtlSec(appendSecs[key])) end
  end
end
