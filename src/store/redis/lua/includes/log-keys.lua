-- Strategy `buckets`: the keys of the logs appended per second or per minute, last-N details
-- (lastn-seconds.lua) and failures (failures-log.lua), named here for their readers and their writers.
-- provides: detailKey, minuteDetailKey, failLogKey, minuteLogKey
-- requires: prefix, int, childOf
local function detailKey(series, sec)
  return prefix .. 'd:' .. series .. ':' .. int(sec)
end

-- The part of a minute's detail key after the channel prefix, the same for every channel of a call.
local minuteDetailParts = {}
local function minuteDetailPart(series, minute)
  local byMinute = childOf(minuteDetailParts, series)
  local part = byMinute[minute]
  if not part then
    part = 'dm:' .. series .. ':' .. int(minute)
    byMinute[minute] = part
  end
  return part
end

local function minuteDetailKey(series, minute)
  return prefix .. minuteDetailPart(series, minute)
end

local function failLogKey(sec)
  return prefix .. 'fl:' .. int(sec)
end

local function minuteLogKey(minute)
  return prefix .. 'flm:' .. int(minute)
end
