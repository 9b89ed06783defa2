// The `paypulse` command.
import { Command, InvalidArgumentError } from 'commander';

function int(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number');
  return n;
}

export async function main(argv: string[]): Promise<void> {
  const program = new Command('paypulse').description('Real-time payment channel success rates on Redis');

  program
    .command('demo')
    .description('run the service with simulated traffic and a scripted incident; prints the dashboard URL')
    .option('--port <port>', 'HTTP port (default 8080, or PORT)', int)
    .option('--seed <n>', 'traffic seed', int)
    .option('--incident-every <seconds>', 'one channel degrades this often', int, 180)
    .option('--no-table', 'do not print the live table')
    .action(async (o) => {
      const { runDemo } = await import('./cli/demo.js');
      await runDemo({ port: o.port, seed: o.seed, table: o.table, incidentEverySec: o.incidentEvery });
    });

  program
    .command('serve')
    .description('run the HTTP service (configuration from the environment and --config)')
    .option('--config <file>', 'JSON or YAML configuration file (or PAYPULSE_CONFIG)')
    .action(async (o) => {
      const { loadConfig } = await import('./server/config.js');
      const { startService } = await import('./server/service.js');
      const service = await startService(loadConfig({ configPath: o.config }));
      const stop = () => void service.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });

  program
    .command('simulate')
    .description('send simulated traffic to a running service')
    .requiredOption('--target <url>', 'service URL, e.g. http://127.0.0.1:8080')
    .option('--token <token>', 'bearer token (or PAYPULSE_TOKEN)')
    .option('--seed <n>', 'traffic seed', int)
    .option('--volume <factor>', 'scale every channel\'s volume', Number)
    .option('--duration <seconds>', 'stop after this long', int)
    .option('--incident-every <seconds>', 'one channel degrades this often', int, 180)
    .action(async (o) => {
      const { runSimulate } = await import('./cli/simulate.js');
      await runSimulate({ target: o.target, token: o.token ?? process.env.PAYPULSE_TOKEN, seed: o.seed, volume: o.volume,
        durationSec: o.duration, incidentEverySec: o.incidentEvery });
    });

  program
    .command('top')
    .description('live channel table of a running service')
    .option('--target <url>', 'service URL', 'http://127.0.0.1:8080')
    .option('--once', 'print once and exit')
    .action(async (o) => {
      const { runTop } = await import('./cli/top.js');
      await runTop({ target: o.target, once: o.once });
    });

  program
    .command('bench')
    .description('benchmarks: `engine` (the three strategies side by side) or `kit`')
    .argument('[suite]', 'engine | kit', 'engine')
    .option('--channels <n>', 'channels (engine)', int, 20)
    .option('--events-per-channel <n>', 'in-window events per channel (engine)', int, 300_000)
    .option('--quick', 'a smaller run (kit)')
    .action(async (suite: string, o) => {
      if (suite === 'kit') {
        const { runKitBench } = await import('./kit/bench.js');
        await runKitBench({ quick: o.quick });
      } else if (suite === 'engine') {
        const { runEngineBench } = await import('./bench/engineBench.js');
        await runEngineBench({ channels: o.channels, eventsPerChannel: o.eventsPerChannel });
      } else {
        throw new InvalidArgumentError(`unknown suite ${suite}: use engine or kit`);
      }
    });

  await program.parseAsync(argv);
}
