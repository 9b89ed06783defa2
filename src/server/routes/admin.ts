// POST /v1/admin/reload: the HTTP twin of SIGHUP for operators who cannot signal the process (a container, a
// fleet behind a load balancer). Under /v1, so the token guards it like every write.
import type { FastifyInstance } from 'fastify';
import { ConfigError } from '../config.js';
import { PayPulseError } from '../../errors.js';
import type { ReloadReport } from '../reload.js';
import { errorResponses } from '../schemas.js';

const reportSchema = {
  type: 'object',
  required: ['applied', 'needsRestart'],
  properties: {
    applied: { type: 'array', items: { type: 'string' } },
    needsRestart: { type: 'array', items: { type: 'string' } },
  },
} as const;

export function registerAdminRoutes(app: FastifyInstance, reload: () => ReloadReport): void {
  app.post(
    '/v1/admin/reload',
    {
      schema: {
        summary: 'Reads the configuration again and applies thresholds and alert rules; a bad one is refused whole (422) and nothing changes',
        response: { 200: reportSchema, ...errorResponses },
      },
    },
    async () => {
      try {
        return reload();
      } catch (err) {
        if (err instanceof ConfigError) throw new PayPulseError('PP_ERR_CONFIG_REFUSED', `configuration refused, the running one stays:\n  ${err.lines.join('\n  ')}`, err.lines);
        throw err;
      }
    },
  );
}
