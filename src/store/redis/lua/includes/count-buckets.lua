-- Strategy `buckets`: terminal outcomes are per-second success/failure counters (see tally.lua).
local function countTerminal(o, status, at, delta)
  local field = status == SUCCESS and 's' or 'f'
  for _, series in ipairs(o.series) do tally('b', series, at, field, delta) end
end

local function flushTerminal() end

local function readTerminal(series, fromSec, toSec)
  return sumTally('b', series, 's', fromSec, toSec), sumTally('b', series, 'f', fromSec, toSec)
end

local function readMinuteTerminal(series, minute)
  local t = minuteTally('b', series, minute)
  return t.s, t.f
end
