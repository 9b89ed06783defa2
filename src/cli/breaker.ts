// `paypulse breaker <channel> [auto|force-open|force-closed]`: a channel's shared breaker on a running
// service — its state, mode and since, or a manual override (a write: the token is sent).
import { breakerModes, type BreakerMode } from '../routing/types.js';
import { failureText, fetchNamed } from './http.js';

export interface BreakerCommandOptions {
  target: string;
  channel: string;
  mode?: string;
  token?: string;
  /** Where the line goes; stdout by default. */
  write?: (line: string) => void;
}

export interface BreakerReply {
  channel: string;
  state: string;
  mode: string;
  since: number;
}

export async function runBreaker(o: BreakerCommandOptions): Promise<BreakerReply> {
  if (o.mode !== undefined && !breakerModes.includes(o.mode as BreakerMode)) {
    throw new Error(`mode must be one of ${breakerModes.join(', ')}, got ${JSON.stringify(o.mode)}`);
  }
  const url = new URL(`/v1/channels/${encodeURIComponent(o.channel)}/breaker`, o.target);
  const response = await fetchNamed(url, {
    method: o.mode ? 'PUT' : 'GET',
    headers: {
      accept: 'application/json',
      ...(o.mode ? { 'content-type': 'application/json' } : {}),
      ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
    },
    body: o.mode ? JSON.stringify({ mode: o.mode }) : undefined,
  });
  if (!response.ok) throw new Error(await failureText(url, response));
  const body = (await response.json()) as BreakerReply;
  const since = body.since ? new Date(body.since).toISOString() : 'never changed';
  (o.write ?? ((line) => process.stdout.write(`${line}\n`)))(`${body.channel}: ${body.state} (mode ${body.mode}, since ${since})`);
  return body;
}
