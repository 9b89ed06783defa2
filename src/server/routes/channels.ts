// Read routes over the live statistics (/v1/channels, rate, failures) and the history store (history).
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { PayPulseError, ValidationError, type FieldIssue } from '../../errors.js';
import { dimsIssues } from '../../stats/validate.js';
import type { HistoryStore } from '../../history/index.js';
import type { SuccessRates, Rate } from '../../types.js';
import { StoreUnavailableError } from '../../errors.js';
import type { HealthSnapshot, HealthSnapshots } from '../../stats/healthSnapshot.js';
import type { ChannelPages, PageQuery } from './channelPages.js';
import type { ServiceThresholds } from '../configLevels.js';
import { historySnapshot, outageError, staleSnapshot, storeUnreachableSince } from './degradedReads.js';
import { historyRange, minuteWithRate } from './historyQuery.js';
import { channelListSchema, failuresRouteSchema, historyRouteSchema, rateRouteSchema } from './channelSchemas.js';

const maxHistorySpan = { ms: 31 * 24 * 3600_000, text: '31 days' };

export interface ChannelRoutesOptions {
  pulse: Pick<SuccessRates, 'rate' | 'lastN' | 'rates' | 'failures' | 'windows'>;
  snapshots: HealthSnapshots;
  /** The snapshot's interval: an older snapshot is refreshed before it is served (refreshes are shared). */
  snapshotIntervalMs: number;
  history: Pick<HistoryStore, 'minutes' | 'minutesOfEveryChannel'>;
  clock: Clock;
  /** Read at each request: a config reload may change them. */
  thresholds: () => ServiceThresholds;
  pages: ChannelPages;
  /** Seen within the dedup horizon (no store call); absent: every name is answered. */
  knowsChannel?: (channel: string) => boolean;
  /** For rates rebuilt from history while the store has never answered. */
  minSamples: number;
}

const dimsError = (reason: string) => new ValidationError([{ index: 0, field: 'querystring.dims', reason }]);

/**
 * `method:card,currency:EUR` → { method: 'card', currency: 'EUR' }, checked by the outcome's own dims check:
 * a value no outcome may carry selects no series, so it is a 400, never a Rate that echoes it.
 */
function parseDims(text: string | undefined): Record<string, string> | undefined {
  if (!text) return undefined;
  const pairs: [string, string][] = [];
  for (const pair of text.split(',')) {
    const at = pair.indexOf(':');
    if (at <= 0 || at === pair.length - 1) throw dimsError('must look like name:value,name:value');
    const name = pair.slice(0, at);
    if (pairs.some(([seen]) => seen === name)) throw dimsError(`dims.${name.slice(0, 40)} is given more than once`);
    pairs.push([name, pair.slice(at + 1)]);
  }
  // From entries: a name like `__proto__` is an entry for the check to refuse, not the object's prototype.
  const dims = Object.fromEntries(pairs);
  const issues: FieldIssue[] = [];
  dimsIssues(dims, 0, {}, issues);
  if (issues.length > 0) throw new ValidationError(issues.map((issue) => ({ index: 0, field: 'querystring.dims', reason: `${issue.field.slice(0, 45)} ${issue.reason}` })));
  return dims;
}

/**
 * The snapshot if it is at most two intervals old, else a refresh (joined by every concurrent reader). A snapshot
 * is dated when its read starts and a new one starts every interval, so at one interval a reader arriving during
 * that read waited for all of it (up to 1.2 s at 5,000 channels on Redis); at two it waits only for a snapshot job
 * that has fallen behind.
 */
export async function currentSnapshot(snapshots: HealthSnapshots, clock: Clock, intervalMs: number): Promise<HealthSnapshot> {
  const latest = snapshots.latest();
  if (latest && latest.asOf >= clock.now() - 2 * intervalMs && !snapshots.status().failing) return latest;
  const fresh = await snapshots.refresh();
  if (!fresh) throw new StoreUnavailableError(snapshots.status().lastError ?? 'health snapshot failed');
  return fresh;
}

/**
 * A name never seen within the horizon is a typo or a channel that stopped: 404 says so, where a 200 with
 * `rate: null` read as "no traffic". Before the first snapshot this process knows only what it recorded
 * itself, so it takes one (joined by every reader) to learn the store's channels. While the store cannot be
 * read nothing is known for sure: no 404 then; and if it has never been read, nothing is known at all.
 */
async function assertKnown(options: ChannelRoutesOptions, channel: string): Promise<void> {
  const { knowsChannel, snapshots } = options;
  if (!knowsChannel || knowsChannel(channel)) return;
  if (snapshots.status().lastAsOf === null) {
    await snapshots.refresh();
    if (knowsChannel(channel)) return;
  }
  const status = snapshots.status();
  if (status.lastAsOf === null) {
    throw new PayPulseError('PP_ERR_WARMING_UP', `warming up: the store has not answered since start (${status.lastError ?? 'no snapshot yet'}), so no channel is known yet`);
  }
  if (status.failing) return;
  throw new PayPulseError('PP_ERR_NOT_FOUND', `channel ${JSON.stringify(channel)} has no outcomes within the dedup horizon`);
}

export function registerChannelRoutes(app: FastifyInstance, options: ChannelRoutesOptions): void {
  const { pulse, history, clock, snapshots } = options;
  const defaultWindow = pulse.windows.includes('5m') ? '5m' : pulse.windows[0]!;

  app.get<{ Querystring: PageQuery }>(
    '/v1/channels',
    { schema: channelListSchema },
    async (request) => {
      const snapshot = await currentSnapshot(snapshots, clock, options.snapshotIntervalMs).catch((err: unknown) => {
        if (!(err instanceof StoreUnavailableError)) throw err;
        return undefined;
      });
      if (snapshot) return { windows: pulse.windows, thresholds: options.thresholds(), asOf: snapshot.asOf, ...options.pages.page(snapshot, request.query) };
      // The store cannot be read: the last values a dashboard saw beat a blank page, flagged so nobody acts on them.
      const latest = snapshots.latest();
      const stale = latest ? staleSnapshot(latest) : await historySnapshot({ history, windows: pulse.windows, minSamples: options.minSamples }, clock.now());
      const since = storeUnreachableSince(snapshots);
      const page = options.pages.page(stale, request.query);
      return { windows: pulse.windows, thresholds: options.thresholds(), asOf: stale.asOf, stale: true, ...(since === undefined ? {} : { storeUnreachableSince: since }), ...page };
    },
  );

  app.get(
    '/v1/channels/:channel/rate',
    { schema: rateRouteSchema },
    async (request) => {
      const { channel } = request.params as { channel: string };
      const query = request.query as { window?: string; n?: number; dims?: string };
      if (query.window !== undefined && query.n !== undefined) {
        throw new ValidationError([{ index: 0, field: 'querystring', reason: 'give window or n, not both' }]);
      }
      const dims = parseDims(query.dims);
      await assertKnown(options, channel);
      if (query.n !== undefined) return pulse.lastN(channel, { n: query.n, dims });
      return pulse.rate(channel, { window: query.window ?? defaultWindow, dims });
    },
  );

  app.get(
    '/v1/channels/:channel/failures',
    { schema: failuresRouteSchema },
    async (request) => {
      const { channel } = request.params as { channel: string };
      const { window = defaultWindow, limit } = request.query as { window?: string; limit: number };
      try {
        return { channel, window, failures: await pulse.failures(channel, { window, limit }) };
      } catch (err) {
        if (err instanceof StoreUnavailableError) throw outageError(storeUnreachableSince(snapshots), err, 'failed request ids');
        throw err;
      }
    },
  );

  app.get(
    '/v1/channels/:channel/history',
    { schema: historyRouteSchema },
    async (request) => {
      const { channel } = request.params as { channel: string };
      const { from, to } = historyRange(request.query as { from?: string; to?: string }, clock.now(), maxHistorySpan);
      const minutes = await history.minutes(channel, { from, to });
      return { channel, from, to, minutes: minutes.map(minuteWithRate) };
    },
  );
}
