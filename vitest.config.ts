import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file starts its own redis-server; two cores do not profit from more parallel files.
    maxWorkers: 2,
    // A worker keeps its modules from one file to the next instead of loading them again for each (80 s of a
    // 5-minute run): the tests mock no module and stub no global, and each builds its own stores and servers.
    isolate: false,
  },
});
