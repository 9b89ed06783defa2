-- Strategy `buckets`, operation `minutes`: a series' counts minute by minute, for the history job.
-- KEYS[1]    the channel's prefix `<namespace>:{<channel>}:` (includes/header.lua)
-- ARGV[1–8]  now and the engine settings (includes/header.lua)
-- ARGV[9]    the series; ARGV[10] the first minute; ARGV[11] the last (epoch minutes)
-- returns    success, failure, started for each minute;
--            or 'sweep' when the channel has pending requests past their deadline: the caller runs
--            sweep-1.lua, which writes them as failures, then this again
--@include header.lua
--@include tally-keys.lua
--@include tally.lua
--@include count-buckets.lua
--@include pending-due.lua
--@include op-minutes.lua
if timeoutsDue(prefix) then return 'sweep' end
return minutes()
