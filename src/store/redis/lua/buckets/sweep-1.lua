-- Strategy `buckets`, operation `sweep`: the channel's pending requests past their deadline become failures
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
--@include appends.lua
--@include ledger.lua
--@include log-keys.lua
--@include lastn-seconds-writes.lua
--@include count-buckets-writes.lua
--@include failures-log-writes.lua
--@include outcome.lua
--@include flush-buckets.lua
sweepTimeouts()
flushWrites()
return 1
