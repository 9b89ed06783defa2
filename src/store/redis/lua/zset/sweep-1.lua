-- Strategy `zset`, operation `sweep`: the channel's pending requests past their deadline become failures
-- `timeout` at their deadline (at most 2,000 a call). The reads never write: one that finds timeouts due
-- answers 'sweep', and the caller runs this, then the read again.
-- KEYS[1]    the channel's prefix `<namespace>:{<channel>}:` (includes/header.lua)
-- ARGV[1–8]  now and the engine settings (includes/header.lua)
-- returns    1
--@include header.lua
--@include header-writes.lua
--@include tally-keys.lua
--@include tally-writes.lua
--@include chunked.lua
--@include zadds.lua
--@include lastn-zset.lua
--@include lastn-zset-writes.lua
--@include count-zset.lua
--@include count-zset-writes.lua
--@include failures-zset.lua
--@include failures-zset-writes.lua
--@include outcome.lua
--@include flush-zset.lua
sweepTimeouts()
flushWrites()
return 1
