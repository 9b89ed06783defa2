-- Strategy `zset`, operation `failures`: the channel's newest failed requests.
-- KEYS[1]    the channel's prefix `<namespace>:{<channel>}:` (includes/header.lua)
-- ARGV[1–8]  now and the engine settings (includes/header.lua)
-- ARGV[9]    from (epoch ms); ARGV[10] the most to return
-- returns    `<id>\t<code>`, at, … newest first;
--            or 'sweep' when the channel has pending requests past their deadline: the caller runs
--            sweep-1.lua, which writes them as failures, then this again
--@include header.lua
--@include failures-zset.lua
--@include pending-due.lua
--@include op-failures.lua
if timeoutsDue(prefix) then return 'sweep' end
return failures()
