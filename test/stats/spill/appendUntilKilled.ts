// Child process of journal.test.ts: appends batches to a journal as fast as it can and prints, after each
// append resolves (the moment a caller would be told `buffered`), the count of outcomes acknowledged so far.
// The test SIGKILLs it mid-stream and checks that a new journal finds every acknowledged outcome.
import { SpillJournal } from '../../../src/stats/spill/journal.js';

const dir = process.argv[2];
const journal = await SpillJournal.open({ dir, fileBytes: 64 * 1024 });
let acknowledged = 0;
let next = 0;
for (;;) {
  const writers = Array.from({ length: 4 }, () => {
    const batch = Array.from({ length: 25 }, () => ({ channel: 'alipay', requestId: `k${next++}`, status: 'success' as const, at: 1 }));
    return journal.append(batch).then(() => {
      acknowledged += batch.length;
    });
  });
  await Promise.all(writers);
  process.stdout.write(`${acknowledged}\n`);
}
