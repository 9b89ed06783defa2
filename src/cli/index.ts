// The `paypulse` command.
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';

/** package.json sits two levels above this file both in src/cli/ and in the compiled dist/cli/. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

function int(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number');
  return n;
}

function addDemo(program: Command): void {
  program
    .command('demo')
    .description('run the service with simulated traffic and a scripted incident; prints the dashboard URL')
    .option('--config <file>', 'JSON or YAML configuration file (or PAYPULSE_CONFIG)')
    .option('--port <port>', 'HTTP port (default 8080, or PORT)', int)
    .option('--seed <n>', 'traffic seed', int)
    .option('--first-incident <seconds>', 'the routed acquirer first fails this long after the start', int, 60)
    .option('--incident-every <seconds>', 'it fails again this often', int, 360)
    .option('--incident-lasts <seconds>', 'each failure lasts this long', int, 120)
    .option('--no-table', 'do not print the live table in the terminal')
    .action(async (o) => {
      const { demoCommand } = await import('./commands.js');
      const { createTraffic } = await import('../sim/traffic.js');
      const { startLiveTable } = await import('./liveTable.js');
      const seed = o.seed ?? Date.now() % 100_000;
      // The story's incident (demoStory.ts) is the one incident: the simulator's own rotation is off.
      const traffic = createTraffic({ seed, incidentEveryMs: 0 });
      const schedule = { firstAfterMs: o.firstIncident * 1000, everyMs: Math.max(1, o.incidentEvery) * 1000, lastsMs: o.incidentLasts * 1000 };
      // Logs go to stdout as JSON; in the demo only warnings, so the table stays readable.
      const logLevel = process.env.PAYPULSE_LOG_LEVEL ? undefined : ('warn' as const);
      const { loadConfig } = await import('../server/config.js');
      const configOptions = { configPath: o.config, overrides: { port: o.port, logLevel } };
      const { token } = loadConfig(configOptions);
      const demo = await demoCommand({ ...configOptions, traffic, schedule, seed });
      if (o.table) {
        const stop = startLiveTable(demo.url, token, () => {
          const incident = demo.story.incidentAt(Date.now());
          return incident ? `incident: ${incident.channel} is failing; the router moves card payments away` : `stripe-card fails every ${o.incidentEvery} s`;
        });
        process.once('SIGINT', stop);
      }
    });
}

/** The service itself, and traffic for one. */
function addServiceCommands(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP service (configuration from the environment and --config)')
    .option('--config <file>', 'JSON or YAML configuration file (or PAYPULSE_CONFIG)')
    .option('--port <port>', 'HTTP port (or PORT)', int)
    .option('--host <host>', 'address to bind (or HOST); outside loopback PAYPULSE_TOKEN is required')
    .action(async (o) => {
      const { serveCommand } = await import('./commands.js');
      await serveCommand({ configPath: o.config, overrides: { port: o.port, host: o.host } });
    });

  program
    .command('simulate')
    .description('send simulated traffic to a running service')
    .requiredOption('--target <url>', 'service URL, e.g. http://127.0.0.1:8080')
    .option('--token <token>', 'bearer token (or PAYPULSE_TOKEN)')
    .option('--seed <n>', 'traffic seed', int)
    .option('--volume <factor>', "scale every channel's volume", Number)
    .option('--incident-every <seconds>', 'one channel degrades this often', int, 240)
    .option('--progress-every <seconds>', 'how often a progress line is printed', int, 10)
    .action(async (o) => {
      const { simulateCommand } = await import('./commands.js');
      const { createTraffic } = await import('../sim/traffic.js');
      simulateCommand({
        target: o.target,
        token: o.token ?? process.env.PAYPULSE_TOKEN,
        traffic: createTraffic({ seed: o.seed ?? 1, volume: o.volume, incidentEveryMs: o.incidentEvery * 1000 }),
        progressEveryMs: Math.max(1, o.progressEvery) * 1000,
      });
    });
}

/** Commands that talk to a running service, and the rules for its Prometheus. */
function addOperatorCommands(program: Command): void {
  program
    .command('top')
    .description('live channel table of a running service')
    .option('--target <url>', 'service URL', 'http://127.0.0.1:8080')
    .option('--token <token>', 'bearer token (or PAYPULSE_TOKEN); reads need it when the service has one')
    .option('--once', 'print once and exit')
    .action(async (o) => {
      const { runTop } = await import('./top.js');
      await runTop({ target: o.target, token: o.token ?? process.env.PAYPULSE_TOKEN, once: o.once });
    });

  program
    .command('breaker')
    .description("a channel's shared circuit breaker on a running service: its state, or a manual override")
    .argument('<channel>', 'channel id')
    .argument('[mode]', 'auto | force-open | force-closed (a write: needs the token)')
    .option('--target <url>', 'service URL', 'http://127.0.0.1:8080')
    .option('--token <token>', 'bearer token (or PAYPULSE_TOKEN)')
    .action(async (channel: string, mode: string | undefined, o) => {
      const { runBreaker } = await import('./breaker.js');
      await runBreaker({ target: o.target, channel, mode, token: o.token ?? process.env.PAYPULSE_TOKEN });
    });

  program
    .command('migrate')
    .description('apply the history database migrations and exit (DATABASE_URL, or PAYPULSE_DATA_DIR for embedded PostgreSQL)')
    .option('--config <file>', 'JSON or YAML configuration file (or PAYPULSE_CONFIG)')
    .action(async (o) => {
      const { migrateCommand } = await import('./migrate.js');
      await migrateCommand({ configPath: o.config });
    });

  program
    .command('dashboard')
    .description('print a Grafana dashboard (import JSON) over the metrics the service exports')
    .option('--config <file>', 'JSON or YAML configuration file (or PAYPULSE_CONFIG), for the success-rate levels')
    .action(async (o) => {
      const { loadConfig } = await import('../server/config.js');
      const { defaultLevels } = await import('../server/configLevels.js');
      const { grafanaDashboard } = await import('./grafanaDashboard.js');
      const config = loadConfig({ configPath: o.config });
      process.stdout.write(`${JSON.stringify(grafanaDashboard(defaultLevels(config.thresholds)), null, 2)}\n`);
    });

  program
    .command('rules')
    .description('print Prometheus recording and alerting rules for the configured alerts (check them with promtool)')
    .option('--config <file>', 'JSON or YAML configuration file (or PAYPULSE_CONFIG)')
    .action(async (o) => {
      const { loadConfig } = await import('../server/config.js');
      const { rulesCommandOutput } = await import('../alerts/config.js');
      const { defaultLevels } = await import('../server/configLevels.js');
      const config = loadConfig({ configPath: o.config });
      process.stdout.write(rulesCommandOutput({ ...config, thresholds: defaultLevels(config.thresholds) }));
    });
}

export async function main(argv: string[]): Promise<void> {
  const program = new Command('paypulse').description('Real-time payment channel success rates on Redis').version(packageVersion(), '-V, --version');
  addDemo(program);
  addServiceCommands(program);
  addOperatorCommands(program);
  await program.parseAsync(argv);
}
