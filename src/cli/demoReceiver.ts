// The demo's own webhook receiver: the demo's alerts are sent to it as to any receiver (JSON, signed with a
// secret of this run), and the page's Notifications panel lists what it received — the notifications an
// on-call would get, in front of a newcomer without a chat tool to point them at.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { signatureHeader, signBody } from '../alerts/receivers/webhook.js';

/** Notifications the panel lists, newest first. */
const kept = 50;

export interface ReceivedNotification {
  receivedAt: number;
  /** The signature matched this run's secret. */
  verified: boolean;
  transition: string;
  level: string;
  channel: string;
  dims?: Record<string, string>;
  summary: string;
  at: number;
}

export interface DemoReceiver {
  /** Path of the receiving route; the webhook's URL is the service's URL plus this. */
  readonly path: string;
  readonly secret: string;
  readonly received: readonly ReceivedNotification[];
  routes(app: FastifyInstance): void;
}

function signedBy(secret: string, body: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(signBody(secret, body));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export function createDemoReceiver(now: () => number): DemoReceiver {
  const secret = randomBytes(16).toString('hex');
  const received: ReceivedNotification[] = [];
  const path = '/demo/receiver';
  return {
    path,
    secret,
    received,
    routes(app) {
      // Outside /v1: a receiver is called by the notifier, which sends no bearer token; the secret guards it.
      app.post(path, async (request, reply) => {
        const body = request.body as Record<string, unknown>;
        // The sender signs JSON.stringify of the notification, which this re-serialisation reproduces.
        const verified = signedBy(secret, JSON.stringify(body), request.headers[signatureHeader]);
        if (!verified) return reply.code(401).send({ error: 'bad signature' });
        received.unshift({
          receivedAt: now(), verified, transition: String(body.transition), level: String(body.level), channel: String(body.channel),
          ...(body.dims ? { dims: body.dims as Record<string, string> } : {}), summary: String(body.summary), at: Number(body.at),
        });
        received.length = Math.min(received.length, kept);
        return { received: true };
      });
    },
  };
}
