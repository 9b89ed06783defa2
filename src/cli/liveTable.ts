// The demo's terminal view: the service's channel table (topView.ts, the rows' verdicts as the dashboard
// shows them) redrawn in place every two seconds, with a line on the story.
import { createTopView } from './topView.js';

export function startLiveTable(target: string, token: string | undefined, note: () => string): () => void {
  const view = createTopView(target, token);
  let lines = 0;
  const timer = setInterval(async () => {
    try {
      const text = `${await view.text()}\n${note()}`;
      if (lines > 0 && process.stdout.isTTY) process.stdout.write(`\x1b[${lines}A\x1b[J`);
      process.stdout.write(`${text}\n`);
      lines = text.split('\n').length;
    } catch {
      // The service is busy or its store is down: the next tick tries again; the service's logs say why.
    }
  }, 2000);
  timer.unref();
  return () => clearInterval(timer);
}
