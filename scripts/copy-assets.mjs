// tsc only emits .js: the Lua scripts and SQL migrations are read at run time, so they travel next to
// the compiled code.
import { cpSync } from 'node:fs';
cpSync('src/store/redis/lua', 'dist/store/redis/lua', { recursive: true });
cpSync('src/history/migrations', 'dist/history/migrations', { recursive: true });
