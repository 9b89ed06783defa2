-- `windows-delta` (strategy buckets): the health snapshot's read of many channels' windows, for a reader
-- that keeps what it read the second before (src/store/redis/windowsDelta.ts). A window's count splits into
-- its settled seconds — older than the newest FRESH — and the fresh ones. The reader keeps each window's
-- settled sums; a second later it needs only the seconds that left each window and the fresh seconds again,
-- a few fields, where a whole read costs every key its windows span (an hour-long window: ≈ 16 keys per
-- counter, some read second by second). The writers keep that exact: a call writing counts more than
-- LATE_SECONDS in its own past changes the channel's `rev` (tally.lua), and a reader whose `rev` differs
-- reads whole again.
--   KEYS = one prefix per channel (one slot on a cluster: the caller groups them).
--   ARGV[11] = W, ARGV[12…11+W] = window lengths in seconds, ARGV[12+W] = FRESH seconds, ARGV[13+W] = the
--   most seconds a previous read may be old to carry over, then per channel: the second of the reader's
--   previous read (0: none), the `rev` it saw, S and its S series.
--   Returns per channel 'sweep' (as `windows-many`), or its rev, then 'd' when the previous read carries
--   over or 'f' when it does not, then per series 4 × (W + 1 + maxGap) numbers, each four a success,
--   failure, started, pending: for 'f' each window's sums over its settled seconds, for 'd' the sums over
--   the seconds that left each window since the previous read; then the sums over the fresh seconds; then
--   the counts of each of the oldest maxGap fresh seconds, which the next read may find settled.
-- provides: (nothing)
-- requires: op, OP_ARGS, now, prefix, int, idiv, sweepTimeouts, flushWrites, sumTally,
--           TERMINAL_TALLY, PENDING_TALLY, SUCCESSES, FAILURES, STARTED, OPEN_PENDING, bucketKey, REV_KEY,
--           secondFields, PENDING_MARK
if op == 'windows-delta' then
  sweepTimeouts()
  flushWrites()
  -- Success and failure (or started and open) of each second in [fromSec, toSec], appended to `out`.
  local function appendSeconds(out, kind, series, fieldA, fieldB, fromSec, toSec)
    local namesA, namesB, sec = secondFields[fieldA], secondFields[fieldB], fromSec
    while sec <= toSec do
      local minute = idiv(sec, 60)
      local last, names = math.min(toSec, minute * 60 + 59), {}
      for s = sec - minute * 60, last - minute * 60 do
        names[#names + 1] = namesA[s]
        names[#names + 1] = namesB[s]
      end
      local got = redis.call('HMGET', bucketKey(kind, series, minute), unpack(names))
      for i = 1, #got do out[#out + 1] = tonumber(got[i]) or 0 end
      sec = last + 1
    end
  end

  local function sumSeconds(kind, series, fieldA, fieldB, fromSec, toSec)
    local counts, a, b = {}, 0, 0
    appendSeconds(counts, kind, series, fieldA, fieldB, fromSec, toSec)
    for i = 1, #counts, 2 do a, b = a + counts[i], b + counts[i + 1] end
    return a, b
  end

  local toSec, windowCount, windows = math.floor(now / 1000), tonumber(ARGV[OP_ARGS]), {}

  -- Whether any minute holding seconds that left a window since `prevSec` exists: a quiet channel's are
  -- mostly minutes it never wrote, and one EXISTS answers for all of them.
  local function anyLeaving(series, pending, prevSec)
    local keys = {}
    for _, length in ipairs(windows) do
      for minute = idiv(prevSec - length + 1, 60), idiv(toSec - length, 60) do
        keys[#keys + 1] = bucketKey(TERMINAL_TALLY, series, minute)
        if pending then keys[#keys + 1] = bucketKey(PENDING_TALLY, series, minute) end
      end
    end
    return redis.call('EXISTS', unpack(keys)) > 0
  end

  for w = 1, windowCount do windows[w] = tonumber(ARGV[OP_ARGS + w]) end
  -- A previous read carries over when it is recent enough that the fresh seconds it read last are settled
  -- now: every write to them after that read came more than LATE_SECONDS after the second, and changed `rev`.
  local fresh, maxGap = tonumber(ARGV[OP_ARGS + windowCount + 1]), tonumber(ARGV[OP_ARGS + windowCount + 2])
  local settledTo = toSec - fresh
  local out, k = {}, OP_ARGS + windowCount + 3
  for c = 1, #KEYS do
    prefix = KEYS[c]
    local prevSec, revSeen, seriesCount = tonumber(ARGV[k]), ARGV[k + 1], tonumber(ARGV[k + 2])
    if c > 1 and #redis.call('ZRANGEBYSCORE', prefix .. 'pend', '-inf', int(now), 'LIMIT', 0, 1) > 0 then
      out[c] = 'sweep'
    else
      local marks = redis.call('MGET', prefix .. REV_KEY, prefix .. PENDING_MARK)
      local rev, pending = marks[1] or '', marks[2] ~= false
      local carries = prevSec > 0 and rev == revSeen and toSec >= prevSec and toSec - prevSec <= maxGap
      local reply = { rev, carries and 'd' or 'f' }
      for j = 1, seriesCount do
        local series = ARGV[k + 2 + j]
        local anyLeft = carries and toSec > prevSec and anyLeaving(series, pending, prevSec)
        for _, length in ipairs(windows) do
          local s, f, p, o = 0, 0, 0, 0
          if anyLeft then
            local fromSec, leftTo = prevSec - length + 1, toSec - length
            s, f = sumSeconds(TERMINAL_TALLY, series, SUCCESSES, FAILURES, fromSec, leftTo)
            if pending then p, o = sumSeconds(PENDING_TALLY, series, STARTED, OPEN_PENDING, fromSec, leftTo) end
          elseif not carries then
            s, f = sumTally(TERMINAL_TALLY, series, toSec - length + 1, settledTo, SUCCESSES, FAILURES)
            if pending then p, o = sumTally(PENDING_TALLY, series, toSec - length + 1, settledTo, STARTED, OPEN_PENDING) end
          end
          reply[#reply + 1], reply[#reply + 2], reply[#reply + 3], reply[#reply + 4] = s, f, p, o
        end
        local terminal, started = {}, {}
        appendSeconds(terminal, TERMINAL_TALLY, series, SUCCESSES, FAILURES, settledTo + 1, toSec)
        if pending then appendSeconds(started, PENDING_TALLY, series, STARTED, OPEN_PENDING, settledTo + 1, toSec) end
        local s, f, p, o = 0, 0, 0, 0
        for i = 1, #terminal, 2 do
          s, f, p, o = s + terminal[i], f + terminal[i + 1], p + (started[i] or 0), o + (started[i + 1] or 0)
        end
        reply[#reply + 1], reply[#reply + 2], reply[#reply + 3], reply[#reply + 4] = s, f, p, o
        for i = 1, 2 * maxGap, 2 do
          reply[#reply + 1], reply[#reply + 2] = terminal[i], terminal[i + 1]
          reply[#reply + 1], reply[#reply + 2] = started[i] or 0, started[i + 1] or 0
        end
      end
      out[c] = reply
    end
    k = k + seriesCount + 3
  end
  return out
end
