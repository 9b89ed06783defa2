// Service configuration: defaults, then an optional JSON/YAML file, then environment variables, then
// explicit overrides (CLI flags), validated once at start with one line per bad field that names where the
// value came from, so an operator can fix a deployment from the error alone.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { checkAlertsSection } from '../alerts/config.js';
import { PayPulseError } from '../errors.js';
import { defaultThresholds } from '../stats/severity.js';
import { resolveRoutingSettings } from '../routing/settings.js';
import type { RoutingOptions } from '../routing/types.js';
import { prototypeKeyPaths, prototypeKeyReason } from './prototypeKeys.js';
import { streamSettingsSchema } from '../ingest/stream/streamSettings.js';
import { strategies, strategyProblem } from '../stats/settings.js';
import { alertsWithChannelLevels, applyThresholdEnv, defaultLevels, dimensionsFromEnv, dimensionsSchema, thresholdsSchema } from './configLevels.js';

const windowPattern = /^[1-9]\d*(s|m|h)$/;
const loopbackHosts = new Set(['localhost', '::1', '[::1]']);

export function isLoopback(host: string): boolean {
  return loopbackHosts.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}

const configSchema = z
  .strictObject({
    port: z.number().int().min(0).max(65_535),
    host: z.string().min(1),
    redisUrl: z.string().regex(/^(rediss?|redis\+sentinel):\/\//, 'must start with redis://, rediss:// or redis+sentinel://').optional(),
    databaseUrl: z.string().regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://').optional(),
    /** PGlite folder; ignored when databaseUrl is set. */
    dataDir: z.string().min(1).optional(),
    namespace: z.string().regex(/^[A-Za-z0-9._-]{1,32}$/, 'must be 1-32 of A-Z a-z 0-9 . _ - (a Redis key prefix)'),
    token: z.string().min(16, 'must be at least 16 characters').optional(),
    windows: z.array(z.string().regex(windowPattern, 'must look like 30s, 5m or 1h')).min(1),
    minSamples: z.number().int().min(1),
    /** Store timeout of each record call; past it outcomes wait in the fail-open buffer. */
    recordTimeoutMs: z.number().int().min(1),
    maxChannels: z.number().int().min(1).max(1_000_000),
    maxDimensionValues: z.number().int().min(1).max(1_000_000),
    strategy: z.enum(strategies, { error: (issue) => strategyProblem(issue.input) }),
    thresholds: thresholdsSchema,
    /** Dimension sets kept besides the channel, e.g. [['method'], ['method', 'currency']] (docs/configuration.md). */
    dimensions: dimensionsSchema,
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    /** How often the stream publishes `rates` (at least every second, so a dashboard sees an incident within one). */
    streamIntervalMs: z.number().int().min(100).max(1_000),
    /** Events kept for clients reconnecting with Last-Event-ID. */
    streamReplayEvents: z.number().int().min(1).max(100_000),
    /** Bytes of events one reconnect may replay (the newest that fit): the replay buffer itself holds up to 16 MiB. */
    streamReplayMaxBytes: z.number().int().min(1_024).max(16 * 1024 * 1024),
    /** Streams one client address may open a minute (a token bucket); past it: 429 with Retry-After. */
    streamOpensPerMinute: z.number().int().min(1).max(100_000),
    /** Past this many channels GET /v1/channels and the stream's `rates` hold the worst this many and a summary. */
    pageChannels: z.number().int().min(1).max(1_000),
    /** Past `pageChannels` channels the stream's `rates` holds the worst this many (at most `pageChannels`). */
    streamPageChannels: z.number().int().min(1).max(1_000),
    historyIntervalMs: z.number().int().min(1_000),
    historyLookbackMinutes: z.number().int().min(1).max(120),
    /** Minute snapshots older than this are deleted; 0 keeps them forever. */
    historyRetentionDays: z.number().int().min(0),
    /** Longest a graceful shutdown waits for in-flight requests before closing sockets. */
    shutdownTimeoutMs: z.number().int().min(0),
    /** The router and the shared breaker (docs/routing.md); checked field by field by the routing module. */
    routing: z.record(z.string(), z.unknown()).optional(),
    /** Longest a client may take to send a whole request, headers and body; past it: 408 and the socket closes. */
    requestTimeoutMs: z.number().int().min(1_000),
    /** Longest a client may take to send the request headers. */
    headersTimeoutMs: z.number().int().min(1_000),
    /** A socket with no bytes either way for this long is closed; above the stream's 15 s heartbeat. */
    idleTimeoutMs: z.number().int().min(20_000),
    /** How long a kept-alive connection may wait for its next request. */
    keepAliveTimeoutMs: z.number().int().min(1_000),
    /** Open connections, all clients together; past it new connections are closed at once. */
    maxConnections: z.number().int().min(1),
    /** Requests one connection may have unanswered (HTTP pipelining); past it the connection is closed. */
    maxPipelinedRequests: z.number().int().min(1).max(1_000),
    /** Concurrent /v1/stream connections from one client address; past it: 429. */
    maxStreamsPerIp: z.number().int().min(1),
    /** Bytes a stream client may leave unread before events stop being written to it. */
    streamMaxBufferedBytes: z.number().int().min(1_024),
    /** How long a stream client may stay over that limit before it is disconnected. */
    streamStallGraceMs: z.number().int().min(100),
    /** A second token for /metrics; unset: /metrics is open (Prometheus scrapers rarely hold the API token). */
    metricsToken: z.string().min(16, 'must be at least 16 characters').optional(),
    /** Alert rules, checked field by field by checkAlertsSection (docs/alerts.md). */
    alerts: z.record(z.string(), z.unknown()).optional(),
    /** Outcomes read from Redis Streams by a consumer group (docs/ingestion.md); present, even empty, turns it on. */
    stream: streamSettingsSchema.optional(),
  })
  .refine((c) => c.headersTimeoutMs <= c.requestTimeoutMs, {
    message: 'headersTimeoutMs must not exceed requestTimeoutMs',
    path: ['headersTimeoutMs'],
  })

/** Anyone on the network could write outcomes and bend routing: outside loopback a token is mandatory. */
function tokenProblem(merged: Record<string, unknown>): string | null {
  const host = merged.host;
  if (typeof host !== 'string' || isLoopback(host) || merged.token) return null;
  return `PAYPULSE_TOKEN: required when host is ${host} (not loopback); every /v1 route then needs "Authorization: Bearer <token>"`;
}

export type ServiceConfig = z.infer<typeof configSchema>;

/** Every setting of the service, for docs/configuration.md's test: a setting added here must be documented. */
export const serviceSettingNames: readonly string[] = Object.keys(configSchema.shape);

const isSection = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The routing section's first bad field, named where it came from (`paypulse.yaml: routing.breaker.probes …`). */
function routingProblem(routing: unknown, source: Map<string, string>): string | null {
  if (!isSection(routing)) return null;
  try {
    resolveRoutingSettings(routing as RoutingOptions);
    return null;
  } catch (err) {
    const where = source.get('routing')?.replace(/: routing$/, '') ?? '--routing';
    return `${where}: ${(err as Error).message}`;
  }
}

/** The alerts section's bad fields, against the levels and minSamples given when they are valid. */
function alertsProblems(alerts: Record<string, unknown>, merged: Record<string, unknown>, source: Map<string, string>): string[] {
  const levels = thresholdsSchema.safeParse(merged.thresholds);
  const thresholds = levels.success ? levels.data : defaultConfig.thresholds;
  const minSamples = configSchema.shape.minSamples.safeParse(merged.minSamples);
  return checkAlertsSection(alertsWithChannelLevels(alerts, thresholds), defaultLevels(thresholds), minSamples.success ? minSamples.data : defaultConfig.minSamples, source.get('alerts') ?? 'alerts').lines;
}

export const defaultConfig: ServiceConfig = {
  port: 8080,
  host: '127.0.0.1',
  namespace: 'paypulse',
  windows: ['1m', '5m', '15m', '1h'],
  minSamples: 100,
  // The library's 50 ms protects a payment path inside a gateway. Behind HTTP the gateway has its own timeout,
  // and a service process busy parsing batches would turn 50 ms into a stream of buffered (then re-sent)
  // batches under load (measured with `npm run bench:http`: docs/architecture.md, why the service's record
  // timeout is 1 s and the library's 50 ms).
  // A refused connection still fails open at once; only a slow store waits up to this long.
  recordTimeoutMs: 1_000,
  maxChannels: 10_000,
  maxDimensionValues: 1_000,
  strategy: 'buckets',
  // Graded alerting (docs/background.md): < 95 % yellow, < 80 % orange, < 50 % red.
  thresholds: { ...defaultThresholds },
  dimensions: [],
  logLevel: 'info',
  streamIntervalMs: 1_000,
  streamReplayEvents: 300,
  // A few `rates` events of a hundred channels: what a dashboard that dropped for a moment needs to catch up.
  streamReplayMaxBytes: 1024 * 1024,
  // A browser reconnects once a second after a drop (`retry: 1000`): a minute of that passes, a loop does not.
  streamOpensPerMinute: 60,
  // ≈ 1 kB a channel with four windows: a 200 kB event a second per dashboard at most.
  pageChannels: 200,
  // The stream's page is written to every client each second, so a REST-sized page stalled the event loop
  // copying it into thousands of sockets (docs/decisions/068-stream-page-and-fan-out.md).
  streamPageChannels: 25,
  historyIntervalMs: 10_000,
  historyLookbackMinutes: 10,
  historyRetentionDays: 90,
  shutdownTimeoutMs: 10_000,
  // Bounds on what a client holds (docs/configuration.md, "Connections and limits"): generous for a gateway
  // posting batches over a slow link, short enough that 20,000 trickling sockets are cut within a minute.
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  idleTimeoutMs: 60_000,
  // Above the 60 s idle timeout of common load balancers, so the balancer, not us, closes an idle connection.
  keepAliveTimeoutMs: 72_000,
  maxConnections: 10_000,
  maxPipelinedRequests: 32,
  maxStreamsPerIp: 20,
  // About one `rates` event of a hundred channels: a client that lags by more is not reading.
  streamMaxBufferedBytes: 256 * 1024,
  streamStallGraceMs: 10_000,
};

type Field = keyof ServiceConfig;
type EnvKind = 'string' | 'int' | 'list' | 'dimensions';

/** Environment variable → field; the variable's name is what an error line shows. */
export const envFields: [string, Field, EnvKind][] = [
  ['PORT', 'port', 'int'],
  ['HOST', 'host', 'string'],
  ['REDIS_URL', 'redisUrl', 'string'],
  ['DATABASE_URL', 'databaseUrl', 'string'],
  ['PAYPULSE_DATA_DIR', 'dataDir', 'string'],
  ['PAYPULSE_NAMESPACE', 'namespace', 'string'],
  ['PAYPULSE_TOKEN', 'token', 'string'],
  ['PAYPULSE_WINDOWS', 'windows', 'list'],
  ['PAYPULSE_DIMENSIONS', 'dimensions', 'dimensions'],
  ['PAYPULSE_MIN_SAMPLES', 'minSamples', 'int'],
  ['PAYPULSE_RECORD_TIMEOUT_MS', 'recordTimeoutMs', 'int'],
  ['PAYPULSE_MAX_CHANNELS', 'maxChannels', 'int'],
  ['PAYPULSE_MAX_DIMENSION_VALUES', 'maxDimensionValues', 'int'],
  ['PAYPULSE_STRATEGY', 'strategy', 'string'],
  ['PAYPULSE_LOG_LEVEL', 'logLevel', 'string'],
  ['PAYPULSE_STREAM_INTERVAL_MS', 'streamIntervalMs', 'int'],
  ['PAYPULSE_STREAM_REPLAY_EVENTS', 'streamReplayEvents', 'int'],
  ['PAYPULSE_STREAM_REPLAY_MAX_BYTES', 'streamReplayMaxBytes', 'int'],
  ['PAYPULSE_STREAM_OPENS_PER_MINUTE', 'streamOpensPerMinute', 'int'],
  ['PAYPULSE_HISTORY_INTERVAL_MS', 'historyIntervalMs', 'int'],
  ['PAYPULSE_HISTORY_LOOKBACK_MINUTES', 'historyLookbackMinutes', 'int'],
  ['PAYPULSE_HISTORY_RETENTION_DAYS', 'historyRetentionDays', 'int'],
  ['PAYPULSE_SHUTDOWN_TIMEOUT_MS', 'shutdownTimeoutMs', 'int'],
  ['PAYPULSE_REQUEST_TIMEOUT_MS', 'requestTimeoutMs', 'int'],
  ['PAYPULSE_HEADERS_TIMEOUT_MS', 'headersTimeoutMs', 'int'],
  ['PAYPULSE_IDLE_TIMEOUT_MS', 'idleTimeoutMs', 'int'],
  ['PAYPULSE_KEEP_ALIVE_TIMEOUT_MS', 'keepAliveTimeoutMs', 'int'],
  ['PAYPULSE_MAX_CONNECTIONS', 'maxConnections', 'int'],
  ['PAYPULSE_MAX_PIPELINED_REQUESTS', 'maxPipelinedRequests', 'int'],
  ['PAYPULSE_MAX_STREAMS_PER_IP', 'maxStreamsPerIp', 'int'],
  ['PAYPULSE_STREAM_MAX_BUFFERED_BYTES', 'streamMaxBufferedBytes', 'int'],
  ['PAYPULSE_STREAM_STALL_GRACE_MS', 'streamStallGraceMs', 'int'],
  ['PAYPULSE_PAGE_CHANNELS', 'pageChannels', 'int'],
  ['PAYPULSE_STREAM_PAGE_CHANNELS', 'streamPageChannels', 'int'],
  ['PAYPULSE_METRICS_TOKEN', 'metricsToken', 'string'],
];

export class ConfigError extends PayPulseError {
  constructor(readonly lines: string[]) {
    super('PP_ERR_CONFIG', `invalid configuration:\n  ${lines.join('\n  ')}`, lines);
    this.name = 'ConfigError';
  }
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** `--config`; falls back to PAYPULSE_CONFIG. */
  configPath?: string;
  /** Highest precedence, e.g. CLI flags; the key is shown as `--key` in errors. */
  overrides?: Partial<ServiceConfig>;
}

function envValue(raw: string, kind: EnvKind): unknown {
  if (kind === 'list') return raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (kind === 'dimensions') return dimensionsFromEnv(raw);
  // Only a clean integer becomes a number; anything else stays a string so the error shows what was typed.
  if (kind === 'int') return /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
  return raw;
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([`${path}: cannot be read (${(err as Error).message})`]);
  }
  let parsed: unknown;
  try {
    parsed = ['.yaml', '.yml'].includes(extname(path).toLowerCase()) ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new ConfigError([`${path}: not valid ${extname(path) === '.json' ? 'JSON' : 'YAML'} (${(err as Error).message.split('\n')[0]})`]);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError([`${path}: must hold an object of settings`]);
  const refused = prototypeKeyPaths(parsed);
  if (refused.length > 0) throw new ConfigError(refused.map((at) => `${path}: ${at}: ${prototypeKeyReason}`));
  return parsed as Record<string, unknown>;
}

export function loadConfig(options: LoadConfigOptions = {}): ServiceConfig {
  const env = options.env ?? process.env;
  const merged: Record<string, unknown> = { ...defaultConfig };
  const source = new Map<string, string>();

  const configPath = options.configPath ?? (env.PAYPULSE_CONFIG || undefined);
  if (configPath) {
    for (const [key, value] of Object.entries(readConfigFile(configPath))) {
      merged[key] = value;
      source.set(key, `${configPath}: ${key}`);
    }
  }
  for (const [name, field, kind] of envFields) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    merged[field] = envValue(raw, kind);
    source.set(field, name);
  }
  for (const [name, level] of applyThresholdEnv(merged, env)) source.set(`thresholds.${level}`, name);
  for (const [key, value] of Object.entries(options.overrides ?? {})) {
    if (value === undefined) continue;
    merged[key] = value;
    source.set(key, `--${key}`);
  }

  const result = configSchema.safeParse(merged);
  const missingToken = tokenProblem(merged);
  // The sections are checked whatever else is wrong, so one run names every bad field; a bad level or
  // minSamples is reported on its own line and the sections are checked against the defaults meanwhile.
  const routingLine = routingProblem(merged.routing, source);
  const alertLines = isSection(merged.alerts) ? alertsProblems(merged.alerts, merged, source) : [];
  const streamLine = result.success && result.data.stream && !result.data.redisUrl ? `${source.get('stream') ?? 'stream'}: needs REDIS_URL (the outcome streams live in Redis)` : null;
  const problems = [...(routingLine ? [routingLine] : []), ...alertLines, ...(streamLine ? [streamLine] : [])];
  if (result.success && !missingToken && problems.length === 0) {
    const alerts = alertsWithChannelLevels(result.data.alerts, result.data.thresholds);
    return alerts === result.data.alerts ? result.data : { ...result.data, alerts };
  }
  if (result.success) throw new ConfigError([...problems, ...(missingToken ? [missingToken] : [])]);
  const schemaLines = result.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      // Typos in a config file ("prot: 80") would otherwise be ignored silently.
      const prefix = issue.path.length > 0 ? `${source.get(String(issue.path[0])) ?? String(issue.path[0])}.` : '';
      return issue.keys.map((k) => `${prefix || (source.get(k) ?? k) + ': '}${prefix ? k + ': ' : ''}unknown setting`);
    }
    const [head, ...rest] = issue.path.map(String);
    const fromEnv = source.get(issue.path.slice(0, 2).join('.'));
    const key = head ?? '(config)';
    const label = source.get(key) ?? (key === 'token' ? 'PAYPULSE_TOKEN' : key === 'metricsToken' ? 'PAYPULSE_METRICS_TOKEN' : key);
    const where = fromEnv ?? (rest.length > 0 ? `${label}.${rest.join('.')}` : label);
    const value = issue.path.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k as PropertyKey], merged);
    const got = value === undefined || key === 'token' || key === 'metricsToken' ? '' : ` (got ${JSON.stringify(value)})`;
    return [`${where}: ${issue.message}${got}`];
  });
  const lines = [...schemaLines, ...problems];
  if (missingToken) lines.push(missingToken);
  throw new ConfigError(lines);
}
