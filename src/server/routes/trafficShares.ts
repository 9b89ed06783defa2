// GET /v1/routing/shares: each channel's share of this instance's routing decisions over the last hour, in
// 5-second buckets, with the leader changes and the breakers — the dashboard's routing panel.
import type { FastifyInstance } from 'fastify';
import type { TrafficShares } from '../../alerts/trafficShares.js';
import type { Clock } from '../../clock.js';

const openObject = { type: 'object', additionalProperties: true } as const;
const hourMs = 3_600_000;

export function registerTrafficShareRoutes(app: FastifyInstance, shares: TrafficShares | undefined, breakers: () => unknown[], clock: Clock,
  errorResponses: Record<string, unknown>): void {
  app.get('/v1/routing/shares', { schema: { summary: "Each channel's share of routing decisions over the last hour, leader changes and breakers", response: { 200: openObject, ...errorResponses } } }, async () => {
    const from = clock.now() - hourMs;
    return { from, buckets: shares?.history(from) ?? [], leaderChanges: shares?.leaderChanges(from) ?? [], breakers: breakers() };
  });
}
