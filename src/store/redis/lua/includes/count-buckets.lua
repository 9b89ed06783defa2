-- Strategy `buckets`: terminal outcomes are per-second success/failure counters (see tally.lua).
local function countTerminal(o, status, at, delta)
  local field = status == SUCCESS and 's' or 'f'
  local series = o.series
  for j = 1, #series do tally('b', series[j], at, field, delta) end -- per outcome: no ipairs call
end

local function flushTerminal() end

local function readTerminal(series, fromSec, toSec)
  return sumTally('b', series, 's', fromSec, toSec), sumTally('b', series, 'f', fromSec, toSec)
end

local function readMinuteTerminal(series, minute)
  local t = minuteTally('b', series, minute)
  return t.s, t.f
end
