// POST /v1/outcomes: one outcome or { outcomes: [...] } (≤ 10,000). The body is validated whole before
// anything is recorded, so a rejected batch leaves no trace in the statistics.
import type { FastifyInstance } from 'fastify';
import type { Outcome, SuccessRates } from '../../types.js';
import { parseOutcomeBody } from '../outcomeValidation.js';
import { errorResponses, maxBatchItems, recordResultSchema } from '../schemas.js';

export function registerOutcomeRoutes(app: FastifyInstance, pulse: Pick<SuccessRates, 'recordMany'>): void {
  app.post(
    '/v1/outcomes',
    {
      schema: {
        summary: 'Record outcomes',
        description:
          `One outcome, or { "outcomes": [...] } with at most ${maxBatchItems}. If any item is invalid the whole body ` +
          'is rejected (400) and details lists every problem as { index, field, reason } (index -1: the body itself). ' +
          'Bodies over 5 MB get 413. Outcomes too old for every window or too far in the future are counted as `stale`, not recorded.',
        body: { anyOf: [{ $ref: 'Outcome#' }, { $ref: 'OutcomeBatch#' }] },
        response: { 200: recordResultSchema, ...errorResponses, 401: { $ref: 'ErrorReply#' }, 413: { $ref: 'ErrorReply#' } },
      },
      // Our validator instead of Fastify's shared Ajv: it reports every bad field of every item.
      validatorCompiler: () => parseOutcomeBody,
    },
    async (request) => pulse.recordMany(request.body as Outcome[]),
  );
}
