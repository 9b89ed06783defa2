// `paypulse top`: the live channel table of a running service (topView.ts), redrawn in place on a terminal.
import { createTopView } from './topView.js';

export interface TopOptions {
  target: string;
  token?: string;
  once?: boolean;
  /** Where the table goes; stdout by default (redrawn in place on a terminal). */
  write?: (text: string) => void;
}

export async function runTop(options: TopOptions): Promise<void> {
  const view = createTopView(options.target, options.token);
  const redraw = !options.write && process.stdout.isTTY;
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  let lines = 0;
  for (;;) {
    const text = await view.text();
    if (lines > 0 && redraw) write(`\x1b[${lines}A\x1b[J`);
    write(`${text}\n`);
    lines = text.split('\n').length;
    if (options.once) return;
    await new Promise((r) => setTimeout(r, 2000));
  }
}
