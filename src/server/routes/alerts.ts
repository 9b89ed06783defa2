// HTTP surface of the alerts: GET /v1/alerts (active, with evidence), GET /v1/alerts/history (from the
// history store, `from`/`to`), PUT /v1/channels/:channel/mute (`{ until }`), and alert events on /v1/stream.
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { ValidationError } from '../../errors.js';
import { parseTime } from '../../parseTime.js';
import type { AlertHistory } from '../../alerts/history.js';
import { maxHistoryRows } from '../../alerts/history.js';
import type { Alerts } from '../../alerts/index.js';

/** Mutes longer than this are almost always a typo in a date; a week covers planned maintenance. */

/** Alert answers carry evidence whose shape grows with the rules; documented as JSON objects, passed whole. */
const openObject = { type: 'object', additionalProperties: true } as const;
export const maxMuteMs = 7 * 86_400_000;
const maxHistorySpanMs = 31 * 86_400_000;

/** What the routes serve when no alerts are configured: none fire, and a mute is refused with the reason. */
export const noAlerts: AlertRoutesOptions['alerts'] = {
  active: () => [],
  status: () => ({ paused: false, lastEvaluatedAt: null, evaluations: 0, storeErrors: 0 }),
  mute: async () => {
    throw new ValidationError([{ index: 0, field: 'alerts', reason: 'no alerts are configured: add an alerts section to the config file' }]);
  },
  muteOf: async () => null,
};

export interface AlertRoutesOptions {
  alerts: Pick<Alerts, 'active' | 'status' | 'mute' | 'muteOf'>;
  history?: Pick<AlertHistory, 'list'>;
  clock: Clock;
  /** Schemas shared by the service (`channelParamsSchema`, `errorResponses`), passed in to keep one source. */
  schemas: { channelParams: object; errorResponses: Record<string, unknown> };
}

export function registerAlertRoutes(app: FastifyInstance, { alerts, history, clock, schemas }: AlertRoutesOptions): void {
  app.get('/v1/alerts', { schema: { summary: 'Active alerts with their evidence', response: { 200: openObject, ...schemas.errorResponses } } }, async () => ({
    alerts: alerts.active(),
    paused: alerts.status().paused,
  }));

  app.get(
    '/v1/alerts/history',
    {
      schema: {
        summary: 'Past alert transitions from the history store, newest first',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { from: { type: 'string' }, to: { type: 'string' }, channel: { type: 'string', maxLength: 64 }, limit: { type: 'integer', minimum: 1, maximum: maxHistoryRows } },
        },
        response: { 200: openObject, ...schemas.errorResponses },
      },
    },
    async (request) => {
      const q = request.query as { from?: string; to?: string; channel?: string; limit?: number };
      const to = parseTime(q.to, 'querystring.to') ?? clock.now();
      const from = parseTime(q.from, 'querystring.from') ?? to - 86_400_000;
      if (from > to) throw new ValidationError([{ index: 0, field: 'querystring.from', reason: 'must not be after to' }]);
      if (to - from > maxHistorySpanMs) throw new ValidationError([{ index: 0, field: 'querystring.from', reason: 'the span may be at most 31 days' }]);
      const transitions = history ? await history.list({ from, to, ...(q.channel ? { channel: q.channel } : {}), ...(q.limit ? { limit: q.limit } : {}) }) : [];
      return { from, to, transitions };
    },
  );

  app.put(
    '/v1/channels/:channel/mute',
    {
      schema: {
        summary: "Mute a channel's alerts until a time: they show, they do not notify",
        params: schemas.channelParams,
        body: { type: 'object', additionalProperties: false, required: ['until'], properties: { until: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } },
        response: { 200: openObject, ...schemas.errorResponses },
      },
    },
    async (request) => {
      const { channel } = request.params as { channel: string };
      const until = parseTime((request.body as { until: string | number }).until, 'body.until')!;
      const now = clock.now();
      if (until > now + maxMuteMs) throw new ValidationError([{ index: 0, field: 'body.until', reason: 'may be at most 7 days ahead' }]);
      await alerts.mute(channel, until);
      return { channel, mutedUntil: until > now ? until : null };
    },
  );

  app.get('/v1/channels/:channel/mute', { schema: { params: schemas.channelParams, response: { 200: openObject, ...schemas.errorResponses } } }, async (request) => {
    const { channel } = request.params as { channel: string };
    return { channel, mutedUntil: await alerts.muteOf(channel) };
  });
}
