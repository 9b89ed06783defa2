// GET /metrics in the Prometheus text format.
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

export function registerMetricsRoute(app: FastifyInstance, registry: Registry): void {
  app.get('/metrics', { schema: { summary: 'Prometheus metrics', produces: ['text/plain'] } }, async (_request, reply) => {
    const body = await registry.metrics();
    return reply.type(registry.contentType).send(body);
  });
}
