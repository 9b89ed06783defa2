// The `paypulse` command from source, for cliProcess.ts: what bin/paypulse.js does with the compiled one.
import { main } from '../../src/cli/index.js';

main(process.argv).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
