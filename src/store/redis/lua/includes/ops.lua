-- The operations of a channel script; each call first turns due pendings into timeouts.
--   record   ARGV[11] = G series groups, each `count, series…`; then 6 values per outcome:
--            requestId, status (1 pending 2 failure 3 success), at, code, hash, group (1-based).
--            Returns one character per outcome: 0 accepted, 1 duplicate, 2 corrected.
--   windows  ARGV[11] = series, ARGV[12…] = window lengths in seconds.
--            Returns success, failure, started, pending for each window.
--   lastn    ARGV[11] = series, ARGV[12] = n. Returns success, failure among the newest n.
--   failures ARGV[11] = from (ms), ARGV[12] = limit. Returns `<id>\t<code>`, at, … newest first.
--   minutes  ARGV[11] = series, ARGV[12] = first minute, ARGV[13] = last minute (epoch minutes).
--            Returns success, failure, started for each minute.
sweepTimeouts()

if op == 'record' then
  local groups, i = {}, OP_ARGS + 1
  for g = 1, tonumber(ARGV[OP_ARGS]) do
    local count, list = tonumber(ARGV[i]), {}
    for j = 1, count do list[j] = ARGV[i + j] end
    groups[g] = list
    i = i + count + 1
  end
  -- One table reused for every outcome: allocating one per outcome costs more than its fields.
  local codes, o = {}, {}
  for k = i, #ARGV, 6 do
    o.id, o.status, o.at, o.code = ARGV[k], tonumber(ARGV[k + 1]), tonumber(ARGV[k + 2]), ARGV[k + 3]
    o.hash, o.series = tonumber(ARGV[k + 4]), groups[tonumber(ARGV[k + 5])]
    codes[#codes + 1] = apply(o)
  end
  flushWrites()
  return table.concat(codes)
end

flushWrites()

if op == 'windows' then
  local series, toSec, out = ARGV[OP_ARGS], math.floor(now / 1000), {}
  for k = OP_ARGS + 1, #ARGV do
    local fromSec = toSec - tonumber(ARGV[k]) + 1
    local success, failure = readTerminal(series, fromSec, toSec)
    out[#out + 1] = success
    out[#out + 1] = failure
    out[#out + 1] = sumTally('p', series, 'p', fromSec, toSec)
    out[#out + 1] = sumTally('p', series, 'o', fromSec, toSec)
  end
  return out
end

if op == 'lastn' then
  local newest = redis.call('ZREVRANGEBYSCORE', lastNKey(ARGV[OP_ARGS]), int(now * 2 + 1), int(forgetBefore * 2),
    'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[OP_ARGS + 1]))
  local success, failure = 0, 0
  for i = 2, #newest, 2 do
    if tonumber(newest[i]) % 2 == 1 then success = success + 1 else failure = failure + 1 end
  end
  return { success, failure }
end

if op == 'failures' then
  return redis.call('ZREVRANGEBYSCORE', failKey, int(now), ARGV[OP_ARGS], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[OP_ARGS + 1]))
end

if op == 'minutes' then
  local series, out = ARGV[OP_ARGS], {}
  for minute = tonumber(ARGV[OP_ARGS + 1]), tonumber(ARGV[OP_ARGS + 2]) do
    local success, failure = readMinuteTerminal(series, minute)
    out[#out + 1] = success
    out[#out + 1] = failure
    out[#out + 1] = minuteTally('p', series, minute).p
  end
  return out
end

return redis.error_reply('unknown op ' .. tostring(op))
