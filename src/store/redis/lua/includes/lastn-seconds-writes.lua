-- Appends last-N detail records (lastn-seconds.lua) once per call, through appends.lua.
-- provides: appendDetail
-- requires: prefix, idiv, queueAppend, detailKey, minuteDetailKey

-- A quiet second's records go to its minute's detail `dm:<series>:<minute>` instead, each behind one
-- byte of its second in the minute: a key costs ≈ 100 B of its own, and at 1 event/s per channel the
-- per-second keys were a third of the memory (docs/decisions/069). A call's records of a second at most
-- this many bytes are quiet; a second's records may be in both keys, and reads take both.
local QUIET_DETAIL_BYTES = 64

-- A quiet channel's call appends to one minute's detail second after second: its key is kept.
local appendPrefix, appendSeries, appendMinute, appendKey
local function appendKeyOf(series, minute)
  if minute ~= appendMinute or series ~= appendSeries or prefix ~= appendPrefix then
    appendPrefix, appendSeries, appendMinute = prefix, series, minute
    appendKey = minuteDetailKey(series, minute)
  end
  return appendKey
end

-- Adds records (2 bytes each) to one second's detail, written at the end of the call (appends.lua).
local function appendDetail(series, sec, records)
  if #records > QUIET_DETAIL_BYTES then
    queueAppend(detailKey(series, sec), sec, records)
    return
  end
  local minute = idiv(sec, 60)
  local secByte, tagged = string.char(sec - minute * 60), nil
  if #records == 2 then
    tagged = secByte .. records -- a quiet channel's usual second: one record
  else
    local parts = {}
    for i = 1, #records - 1, 2 do parts[#parts + 1] = secByte .. string.sub(records, i, i + 1) end
    tagged = table.concat(parts)
  end
  -- Kept while the minute's last second is within the horizon.
  queueAppend(appendKeyOf(series, minute), minute * 60 + 59, tagged)
end
