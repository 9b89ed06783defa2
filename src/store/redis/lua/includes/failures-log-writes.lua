-- Logs failures and their upgrades (failures-log.lua) once per call, through appends.lua.
-- provides: noteFailure, unnoteFailure, startFailureLogChannel
-- requires: prefix, int, idiv, queueAppend, failLogKey, minuteLogKey
local QUIET_FAILURES = 4

-- A call's failures mostly share their second and minute: their keys are built once, not per failure.
local logSec, logKey, logMinute, logMinuteKey
-- Failures the call has logged per second, for the channel `loggedFor`.
local loggedInSecond, loggedFor = {}, nil

-- Forgets the cached keys when the call moves to another channel.
local function startFailureLogChannel()
  logSec, logKey, logMinute, logMinuteKey = nil, nil, nil, nil
end

local function logFailure(at, record)
  local sec = idiv(at, 1000)
  if loggedFor ~= prefix then loggedInSecond, loggedFor = {}, prefix end
  local logged = (loggedInSecond[sec] or 0) + 1
  loggedInSecond[sec] = logged
  if logged > QUIET_FAILURES then
    if sec ~= logSec then logSec, logKey = sec, failLogKey(sec) end
    queueAppend(logKey, sec, record)
    return
  end
  local minute = idiv(sec, 60)
  if minute ~= logMinute then logMinute, logMinuteKey = minute, minuteLogKey(minute) end
  -- Kept while the minute's last second is within the horizon.
  queueAppend(logMinuteKey, minute * 60 + 59, record)
end

local function noteFailure(id, code, at)
  logFailure(at, '+' .. int(at) .. '\t' .. id .. '\t' .. code .. '\n')
end

-- The request's failure at `at` was upgraded to a success.
local function unnoteFailure(o, at)
  logFailure(at, '-' .. int(at) .. '\t' .. o.id .. '\t\n')
end
