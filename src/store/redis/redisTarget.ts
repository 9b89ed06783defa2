// What a `redis` setting names: one server, a Redis Cluster (several URLs), or a primary found through Redis
// Sentinel (`redis+sentinel://host:26379,host:26380/mymaster`). WHATWG URL parses one host only, so the
// Sentinel form is split by hand; credentials in it are the primary's (Sentinels usually run without).
import { PayPulseError } from '../../errors.js';

export interface SentinelNode {
  host: string;
  port: number;
}

export type RedisTarget =
  | { kind: 'standalone'; url: string }
  | { kind: 'cluster'; urls: string[] }
  | { kind: 'sentinel'; primaryName: string; sentinels: SentinelNode[]; username?: string; password?: string; database?: number };

const sentinelScheme = 'redis+sentinel://';
const defaultSentinelPort = 26379;

function badUrl(reason: string): PayPulseError {
  return new PayPulseError('PP_ERR_CONFIG', `redis: ${reason}`);
}

function parseSentinelNode(text: string): SentinelNode {
  // `[::1]:26379`, `host:26379` or `host`.
  const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(text);
  if (!match) throw badUrl(`cannot read the Sentinel address ${JSON.stringify(text)}`);
  const port = match[3] ? Number(match[3]) : defaultSentinelPort;
  if (port < 1 || port > 65535) throw badUrl(`Sentinel port out of range in ${JSON.stringify(text)}`);
  return { host: match[1] ?? match[2], port };
}

function parseSentinel(url: string): RedisTarget {
  const rest = url.slice(sentinelScheme.length);
  const at = rest.lastIndexOf('@', rest.indexOf('/') === -1 ? rest.length : rest.indexOf('/'));
  const credentials = at >= 0 ? rest.slice(0, at) : '';
  const afterCredentials = at >= 0 ? rest.slice(at + 1) : rest;
  const slash = afterCredentials.indexOf('/');
  if (slash < 0) throw badUrl('a Sentinel URL names the primary after the hosts: redis+sentinel://host:26379/mymaster');
  const hosts = afterCredentials.slice(0, slash).split(',').map((h) => h.trim()).filter(Boolean);
  const [primaryName, databaseText] = afterCredentials.slice(slash + 1).split(/[?#]/)[0].split('/');
  if (hosts.length === 0) throw badUrl('a Sentinel URL needs at least one Sentinel host');
  if (!primaryName) throw badUrl('a Sentinel URL names the primary: redis+sentinel://host:26379/mymaster');
  const target: RedisTarget = { kind: 'sentinel', primaryName: decodeURIComponent(primaryName), sentinels: hosts.map(parseSentinelNode) };
  if (credentials) {
    const colon = credentials.indexOf(':');
    const username = decodeURIComponent(colon >= 0 ? credentials.slice(0, colon) : credentials);
    if (colon >= 0) target.password = decodeURIComponent(credentials.slice(colon + 1));
    if (username) target.username = username;
  }
  if (databaseText) {
    if (!/^\d{1,2}$/.test(databaseText)) throw badUrl(`database must be a number, got ${JSON.stringify(databaseText)}`);
    target.database = Number(databaseText);
  }
  return target;
}

export function parseRedisTarget(url: string, cluster?: boolean): RedisTarget {
  const trimmed = url.trim();
  if (trimmed.startsWith(sentinelScheme)) return parseSentinel(trimmed);
  const urls = trimmed.split(',').map((u) => u.trim()).filter(Boolean);
  if (urls.length === 0) throw badUrl('empty URL');
  return (cluster ?? urls.length > 1) ? { kind: 'cluster', urls } : { kind: 'standalone', url: urls[0] };
}

/** The target as logs may show it: hosts and names, never a password. */
export function describeTarget(target: RedisTarget): string {
  if (target.kind === 'sentinel') {
    return `${sentinelScheme}${target.sentinels.map((s) => (s.host.includes(':') ? `[${s.host}]:${s.port}` : `${s.host}:${s.port}`)).join(',')}/${target.primaryName}`;
  }
  const hide = (u: string) => {
    try {
      const parsed = new URL(u);
      if (parsed.password) parsed.password = '***';
      return parsed.toString().replace(/\/$/, '');
    } catch {
      return u.replace(/\/\/[^@/]*@/, '//***@');
    }
  };
  return target.kind === 'cluster' ? target.urls.map(hide).join(',') : hide(target.url);
}
