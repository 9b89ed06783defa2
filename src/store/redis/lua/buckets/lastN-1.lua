-- Strategy `buckets`, operation `lastN`: successes and failures among a series' newest n outcomes.
-- KEYS[1]    the channel's prefix `<namespace>:{<channel>}:` (includes/header.lua)
-- ARGV[1–8]  now and the engine settings (includes/header.lua)
-- ARGV[9]    the series; ARGV[10] n
-- returns    success, failure;
--            or 'sweep' when the channel has pending requests past their deadline: the caller runs
--            sweep-1.lua, which writes them as failures, then this again
--@include header.lua
--@include tally-keys.lua
--@include tally.lua
--@include log-keys.lua
--@include lastn-seconds.lua
--@include pending-due.lua
--@include op-lastn.lua
if timeoutsDue(prefix) then return 'sweep' end
return lastN()
