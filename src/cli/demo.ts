// `paypulse demo`: the service, fed by the simulator in real time, with the dashboard URL and a live
// table in the terminal. Embedded store and embedded PostgreSQL unless REDIS_URL / DATABASE_URL are set.
import { loadConfig, type ServiceConfig } from '../server/config.js';
import { startService } from '../server/service.js';
import { createTraffic } from '../sim/traffic.js';
import { renderRates } from './table.js';

export interface DemoOptions {
  port?: number;
  seed?: number;
  table?: boolean;
  /** One incident every this many seconds. */
  incidentEverySec?: number;
}

export async function runDemo(options: DemoOptions): Promise<void> {
  const overrides: Partial<ServiceConfig> = { logLevel: process.env.PAYPULSE_LOG_LEVEL ? undefined : 'warn' };
  if (options.port !== undefined) overrides.port = options.port;
  const config = loadConfig({ overrides });
  const service = await startService(config);
  const traffic = createTraffic({ seed: options.seed ?? Date.now() % 100_000, incidentEveryMs: (options.incidentEverySec ?? 180) * 1000 });
  console.log(`PayPulse demo: dashboard at ${service.url}/   (API docs at ${service.url}/docs, metrics at ${service.url}/metrics)`);
  console.log(`store: ${service.pulse.health().store}, history: ${service.history.kind}; one channel degrades every ${options.incidentEverySec ?? 180} s. Ctrl-C stops.\n`);

  let last = Date.now();
  const feed = setInterval(() => {
    const now = Date.now();
    const outcomes = traffic.between(last, now);
    last = now;
    service.pulse.recordMany(outcomes).catch((err: unknown) => console.error('record failed:', err));
  }, 250);

  let table: NodeJS.Timeout | undefined;
  if (options.table !== false) {
    let lines = 0;
    table = setInterval(async () => {
      const rates = (await Promise.all((await service.pulse.channels()).map((c) => service.pulse.ratesOf(c)))).flat();
      const incident = traffic.incidentAt(Date.now());
      const text = `${renderRates(rates, service.pulse.windows, config.thresholds)}\n${incident ? `incident: ${incident.channel} degraded` : 'no incident'}`;
      if (lines > 0 && process.stdout.isTTY) process.stdout.write(`\x1b[${lines}A\x1b[J`);
      process.stdout.write(`${text}\n`);
      lines = text.split('\n').length;
    }, 2000);
  }

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  clearInterval(feed);
  if (table) clearInterval(table);
  await service.close();
}
