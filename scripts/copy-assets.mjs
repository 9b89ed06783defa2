// tsc only emits .js: the Lua scripts are read at run time, so they travel next to the compiled store.
import { cpSync } from 'node:fs';
cpSync('src/store/redis/lua', 'dist/store/redis/lua', { recursive: true });
