-- Strategy `buckets`, operation `windows`: one series' counts over windows that end now.
-- KEYS[1]    the channel's prefix `<namespace>:{<channel>}:` (includes/header.lua)
-- ARGV[1–8]  now and the engine settings (includes/header.lua)
-- ARGV[9]    the series; ARGV[10…] window lengths in seconds
-- returns    success, failure, started, pending for each window;
--            or 'sweep' when the channel has pending requests past their deadline: the caller runs
--            sweep-1.lua, which writes them as failures, then this again
--@include header.lua
--@include tally-keys.lua
--@include tally.lua
--@include count-buckets.lua
--@include pending-due.lua
--@include op-windows.lua
if timeoutsDue(prefix) then return 'sweep' end
return windows()
