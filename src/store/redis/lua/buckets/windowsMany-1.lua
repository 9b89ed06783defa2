-- Strategy `buckets`, operation `windowsMany`: `windows` for several channels' series in one call.
-- KEYS[1]    the first channel's prefix (includes/channels.lua)
-- ARGV[1–8]  now and the engine settings (includes/header.lua)
-- ARGV[9…]   the channels (includes/channels.lua), W, W window lengths in seconds, then per channel S
--            and its S series
-- returns    per channel the counts `windows` returns for each of its series, one after the other, or
--            'sweep' for a channel past the first with timeouts due (the caller reads it with `windows`);
--            or 'sweep' when the channel has pending requests past their deadline: the caller runs
--            sweep-1.lua, which writes them as failures, then this again
--@include header.lua
--@include channels.lua
--@include tally-keys.lua
--@include tally.lua
--@include count-buckets.lua
--@include pending-due.lua
--@include op-windows.lua
--@include op-windows-many.lua
if timeoutsDue(prefix) then return 'sweep' end
return windowsMany()
