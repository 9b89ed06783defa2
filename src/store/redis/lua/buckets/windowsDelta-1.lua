-- Strategy `buckets`, operation `windowsDelta`: the health snapshot's read of many channels' windows, for a reader
-- that keeps what it read the second before (src/store/redis/windowsCarry.ts). A window's count splits into
-- its settled seconds — older than the newest FRESH — and the fresh ones. The reader keeps each window's
-- settled sums and the fresh seconds one by one; a second later it needs only the seconds that left each
-- window and the fresh seconds again, a few fields, where a whole read costs every key its windows span (an
-- hour-long window: ≈ 16 keys per counter, some read second by second). The writers keep that exact: a call
-- writing counts more than LATE_SECONDS in its own past changes the channel's `rev` (tally-writes.lua), and a
-- reader whose `rev` differs reads whole again. Every call writing counts changes the channel's `wr`: while
-- it is unchanged, the fresh seconds the reader holds (read AHEAD seconds past its second, for writes dated
-- ahead of its clock) are still what Redis holds, and the call reads none of them.
--   KEYS[1] the first channel's prefix; ARGV[1–8] now and the engine settings (includes/header.lua);
--   ARGV[9…] = the channels (includes/channels.lua), then W, W window lengths in seconds, FRESH seconds,
--   the most seconds a previous read may be old to carry over, AHEAD seconds, then per channel:
--   the second of the reader's previous read (0: none), the `rev` and `wr` it saw, the last second whose
--   fresh counts it holds (0: none), S, and per series its id and W characters, '1' where that window may
--   have counts among the seconds leaving it ('0': the reader infers there are none from its sums, which
--   holds while no count is negative: the channel's `ng` unset, tally-writes.lua).
--   Returns 'sweep' when the first channel has timeouts due (as `windows`); else per channel 'sweep' (as
--   `windowsMany`), or `<mode><width>:<rev>:<wr>`: mode 'd' when the
--   previous read carries over, 'q' when it does and the fresh seconds are unchanged, 'f' when it does not;
--   width 4 when the channel has pending counts, else 2. Then per series N, and N windows (the others are all
--   zeros), each its index and four numbers, a success, failure, started, pending: for 'f' the window's sums
--   over its settled seconds, for 'd' and 'q' the sums over the seconds that left it since the previous read;
--   then, except for 'q', M and the counts of M seconds from the oldest fresh one on, `width` numbers each
--   (success, failure, then started, pending), the seconds after them up to AHEAD seconds ahead all zeros.
--@include header.lua
--@include channels.lua
--@include tally-keys.lua
--@include tally.lua
--@include pending-due.lua
if timeoutsDue(prefix) then return 'sweep' end

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

local prefixes, sizes, first = channelList(OP_ARGS)
local toSec, windowCount, windows = math.floor(now / 1000), tonumber(ARGV[first]), {}
for w = 1, windowCount do windows[w] = tonumber(ARGV[first + w]) end
local fresh, maxGap = tonumber(ARGV[first + windowCount + 1]), tonumber(ARGV[first + windowCount + 2])
local ahead = tonumber(ARGV[first + windowCount + 3])
local settledTo = toSec - fresh

-- The windows whose leaving seconds [prevSec - length + 1, toSec - length] are read: those `leaving` marks
-- and whose minutes holding those seconds exist (a quiet channel's are mostly minutes it never wrote, and one
-- EXISTS answers for all of them; a single key is read at once, which costs what the EXISTS would).
local function leavingWindows(series, leaving, pending, prevSec, negative)
  local keys, marked = {}, {}
  for w, length in ipairs(windows) do
    if negative or string.byte(leaving, w) == 49 then
      marked[#marked + 1] = w
      for minute = idiv(prevSec - length + 1, 60), idiv(toSec - length, 60) do
        keys[#keys + 1] = bucketKey(TERMINAL_TALLY, series, minute)
        if pending then keys[#keys + 1] = bucketKey(PENDING_TALLY, series, minute) end
      end
    end
  end
  if #keys > 1 and redis.call('EXISTS', unpack(keys)) == 0 then return {} end
  return marked
end

-- One channel's reply after its marks (the rev, the wr, whether it has pending or negative counts) are known.
local function readChannel(k, rev, writes, pending, negative)
  local prevSec, revSeen, writesSeen = tonumber(ARGV[k]), ARGV[k + 1], ARGV[k + 2]
  local freshKnownTo, seriesCount = tonumber(ARGV[k + 3]), tonumber(ARGV[k + 4])
  -- A previous read carries over when it is recent enough that the fresh seconds it read last are settled
  -- now: every write to them after that read came more than LATE_SECONDS after the second, and changed `rev`.
  local carries = prevSec > 0 and rev == revSeen and toSec >= prevSec and toSec - prevSec <= maxGap
  local quiet = carries and writes == writesSeen and toSec <= freshKnownTo
  -- Replies are sparse: each number a reply holds costs Redis ≈ 0.2 µs, most of them are zeros.
  local width = pending and 4 or 2
  local reply = { (quiet and 'q' or carries and 'd' or 'f') .. (pending and '4:' or '2:') .. rev .. ':' .. writes }
  local function addWindow(w, s, f, p, o)
    if s ~= 0 or f ~= 0 or p ~= 0 or o ~= 0 then
      local n = #reply
      reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4], reply[n + 5] = w, s, f, p, o
      return 1
    end
    return 0
  end
  for j = 1, seriesCount do
    local series, leaving = ARGV[k + 3 + 2 * j], ARGV[k + 4 + 2 * j]
    local countAt, added = #reply + 1, 0
    reply[countAt] = 0
    if carries and toSec > prevSec then
      for _, w in ipairs(leavingWindows(series, leaving, pending, prevSec, negative)) do
        local fromSec, leftTo, p, o = prevSec - windows[w] + 1, toSec - windows[w], 0, 0
        local s, f = sumSeconds(TERMINAL_TALLY, series, SUCCESSES, FAILURES, fromSec, leftTo)
        if pending then p, o = sumSeconds(PENDING_TALLY, series, STARTED, OPEN_PENDING, fromSec, leftTo) end
        added = added + addWindow(w, s, f, p, o)
      end
    elseif not carries then
      for w, length in ipairs(windows) do
        local p, o = 0, 0
        local s, f = sumTally(TERMINAL_TALLY, series, toSec - length + 1, settledTo, SUCCESSES, FAILURES)
        if pending then p, o = sumTally(PENDING_TALLY, series, toSec - length + 1, settledTo, STARTED, OPEN_PENDING) end
        added = added + addWindow(w, s, f, p, o)
      end
    end
    reply[countAt] = added
    if not quiet then
      -- The fresh seconds one by one, `width` numbers each, up to the last that holds a count.
      local counts, started = {}, {}
      appendSeconds(counts, TERMINAL_TALLY, series, SUCCESSES, FAILURES, settledTo + 1, toSec + ahead)
      if pending then
        appendSeconds(started, PENDING_TALLY, series, STARTED, OPEN_PENDING, settledTo + 1, toSec + ahead)
        local both = {}
        for i = 1, #counts, 2 do both[2 * i - 1], both[2 * i], both[2 * i + 1], both[2 * i + 2] = counts[i], counts[i + 1], started[i], started[i + 1] end
        counts = both
      end
      local last = #counts
      while last > 0 and counts[last] == 0 do last = last - 1 end
      local seconds = math.ceil(last / width)
      reply[#reply + 1] = seconds
      for i = 1, seconds * width do reply[#reply + 1] = counts[i] end
    end
  end
  return reply, k + 5 + 2 * seriesCount
end

-- Each slot's channels' marks in one MGET, and one EXISTS for all their pending sets: most have none.
local marks, anyPending = {}, {}
eachSlot(prefixes, sizes, function(slotPrefixes, offset)
  local markKeys = {}
  for c, p in ipairs(slotPrefixes) do
    local at = 4 * c - 4
    markKeys[at + 1], markKeys[at + 2], markKeys[at + 3], markKeys[at + 4] = p .. REV_KEY, p .. WRITES_KEY, p .. PENDING_MARK, p .. NEGATIVE_MARK
  end
  -- The first channel has no due timeouts (swept, or the call answered 'sweep'): a call of one channel
  -- needs no EXISTS.
  local got, pending = redis.call('MGET', unpack(markKeys)), #prefixes > 1 and anyPendingIn(slotPrefixes)
  for i = 1, #got do marks[4 * offset + i] = got[i] end
  for c = 1, #slotPrefixes do anyPending[offset + c] = pending end
end)
local out, k = {}, first + windowCount + 4
for c = 1, #prefixes do
  prefix = prefixes[c]
  if anyPending[c] and c > 1 and timeoutsDue(prefix) then
    out[c] = 'sweep'
    k = k + 5 + 2 * tonumber(ARGV[k + 4])
  else
    local at = 4 * c - 4
    out[c], k = readChannel(k, marks[at + 1] or '', marks[at + 2] or '', marks[at + 3] ~= false, marks[at + 4] ~= false)
  end
end
return out
