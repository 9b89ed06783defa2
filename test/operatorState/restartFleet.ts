// Two PayPulse instances (library) on one redis-server and one PostgreSQL database of the test's own, each with
// its own connections as separate processes would have, alerts sent to a webhook receiver that records what it
// gets, transitions written to the alert history, and operator state kept in the database. Time is virtual: each
// step records traffic, then every instance refreshes its snapshot and evaluates it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAlertHistory } from '../../src/history/alertTransitions.js';
import type { AlertNotification } from '../../src/alerts/notification.js';
import type { AlertRulesInput } from '../../src/alerts/rules.js';
import { ManualClock } from '../../src/clock.js';
import { migrate } from '../../src/history/migrate.js';
import { openPostgresOperatorState } from '../../src/history/operatorState.js';
import { connectPostgres } from '../../src/history/postgresClient.js';
import type { SqlClient } from '../../src/store/ports/sqlClient.js';
import { createPulse, type Pulse } from '../../src/index.js';
import { SteadyTraffic, type SteadyChannel } from '../../src/sim/steadyTraffic.js';
import { createTestDatabase, type TestDatabase } from '../history/databases.js';
import type { LocalRedis } from '../support/redisServer.js';

export interface Receiver {
  url: string;
  received: AlertNotification[];
  close(): Promise<void>;
}

/** A webhook receiver answering 200 to everything and keeping each notification. */
export async function startReceiver(): Promise<Receiver> {
  const received: AlertNotification[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push(JSON.parse(body) as AlertNotification);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export interface RestartFleet {
  clock: ManualClock;
  pulses: Pulse[];
  /** The test database, for reading the alert history. */
  sql: SqlClient;
  /** Advances 5 s of traffic, recorded through the instances in turn, then every instance evaluates. */
  step(): Promise<void>;
  /** Every instance's operator-state round (its timer's work), in turn. */
  checkAll(): Promise<void>;
  /** Waits until every notification handed to a receiver has been answered. */
  delivered(): Promise<void>;
  /** Each alert id's newest transition in the history. */
  lastTransitions(): Promise<Map<string, string>>;
  close(): Promise<void>;
}

export const stepMs = 5_000;

export interface RestartFleetOptions {
  redis: LocalRedis;
  receiver: Receiver;
  namespace: string;
  start: number;
  channels: SteadyChannel[];
  /** Alert settings over the fleet's (5 s evaluations, rate rule on the channels only). */
  alerts?: AlertRulesInput;
}

export async function openRestartFleet(options: RestartFleetOptions): Promise<RestartFleet> {
  const database: TestDatabase = await createTestDatabase();
  const sql = connectPostgres(database.url, { maxConnections: 2 });
  await migrate(sql);
  const clock = new ManualClock(options.start);
  const stores = await Promise.all([0, 1].map(() => openPostgresOperatorState(database.url)));
  const pulses = await Promise.all(stores.map((store) => createPulse({
    redis: options.redis.url,
    namespace: options.namespace,
    clock,
    recordTimeoutMs: 5_000,
    alerts: { evaluateEvery: '5s', silent: false, perDimensions: false, log: false, webhooks: [{ url: options.receiver.url, retries: 0 }], ...options.alerts },
    // The test runs each instance's round itself, on virtual time; the sweep looks every round.
    operatorState: { store, checkEveryMs: 3_600_000, sweepEveryMs: 0 },
  })));
  const history = createAlertHistory(sql);
  for (const p of pulses) p.alerts!.attachHistory({ alerts: history, minutes: async () => [] });
  const traffic = new SteadyTraffic(options.channels, 7);
  let turn = 0;
  return {
    clock,
    pulses,
    sql,
    async step() {
      const from = clock.now();
      clock.advance(stepMs);
      await pulses[turn++ % pulses.length]!.recordMany(traffic.between(from, clock.now()));
      for (const p of pulses) {
        await p.snapshots.refresh();
        await p.alerts!.evaluate();
      }
    },
    async checkAll() {
      for (const p of pulses) await p.operatorState!.check();
    },
    async delivered() {
      await Promise.all(pulses.map((p) => p.alerts!.notifier.idle()));
    },
    async lastTransitions() {
      const rows = await sql.query<{ alert_id: string; transition: string }>(
        'SELECT DISTINCT ON (alert_id) alert_id, transition FROM alert_transitions ORDER BY alert_id, at DESC, id DESC',
      );
      return new Map(rows.map((r) => [r.alert_id, r.transition]));
    },
    async close() {
      for (const p of pulses) await p.close();
      for (const s of stores) await s.close();
      await sql.close();
      await database.drop();
    },
  };
}
