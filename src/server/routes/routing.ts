// Routing over HTTP: POST /v1/route, the breaker of a channel (GET, and PUT for the manual override — a write,
// so the token rules apply), and the A/B experiment's report. Bodies are checked by the routing module, which
// names the bad field (docs/routing.md).
import type { FastifyInstance } from 'fastify';
import type { Routing } from '../../routing/routing.js';
import type { RouteRequest } from '../../routing/types.js';
import { assertBreakerMode } from '../../routing/validateRoute.js';
import { channelParamsSchema, errorResponses } from '../schemas.js';

const rankedSchema = {
  type: 'object',
  required: ['channel', 'score', 'rate', 'state'],
  properties: {
    channel: { type: 'string' },
    score: { type: 'number' },
    rate: { type: 'number' },
    state: { type: 'string', enum: ['closed', 'open', 'half-open'] },
  },
} as const;

const decisionSchema = {
  type: 'object',
  required: ['channel', 'ranked', 'explored', 'failOpen', 'stale', 'probe', 'arm', 'reason'],
  properties: {
    channel: { type: 'string' },
    ranked: { type: 'array', items: rankedSchema },
    explored: { type: 'boolean' },
    failOpen: { type: 'boolean' },
    stale: { type: 'boolean' },
    probe: { type: 'boolean' },
    arm: { type: 'string', enum: ['router', 'static'] },
    reason: { type: 'string', pattern: '^(best|explored|probe|fail-open|static|cold-start|breaker-open:.+|override:.+)$' },
  },
} as const;

const breakerSchema = {
  type: 'object',
  required: ['channel', 'state', 'mode', 'since'],
  properties: {
    channel: { type: 'string' },
    scope: { type: 'string' },
    state: { type: 'string', enum: ['closed', 'open', 'half-open'] },
    mode: { type: 'string', enum: ['auto', 'force-open', 'force-closed'] },
    since: { type: 'number' },
    version: { type: 'number' },
  },
} as const;

const armSchema = {
  type: 'object',
  properties: {
    decisions: { type: 'number' },
    success: { type: 'number' },
    failure: { type: 'number' },
    rate: { type: ['number', 'null'] },
    low: { type: ['number', 'null'] },
    high: { type: ['number', 'null'] },
  },
} as const;

export function registerRoutingRoutes(app: FastifyInstance, routing: Routing): void {
  app.post<{ Body: RouteRequest }>(
    '/v1/route',
    {
      schema: {
        summary: 'The channel to send a payment to, with the failover order and each candidate\'s breaker state',
        body: { type: 'object' },
        response: { 200: decisionSchema, ...errorResponses },
      },
    },
    async (request) => routing.route(request.body),
  );

  app.get<{ Params: { channel: string } }>(
    '/v1/channels/:channel/breaker',
    { schema: { summary: 'Breaker state, mode and since', params: channelParamsSchema, response: { 200: breakerSchema, ...errorResponses } } },
    async (request) => routing.breaker(request.params.channel).state(),
  );

  app.put<{ Params: { channel: string }; Body: { mode: unknown } }>(
    '/v1/channels/:channel/breaker',
    {
      schema: {
        summary: 'Manual override: auto, force-open or force-closed',
        params: channelParamsSchema,
        body: { type: 'object' },
        response: { 200: breakerSchema, ...errorResponses },
      },
    },
    async (request) => {
      const mode = (request.body as { mode?: unknown } | null)?.mode;
      assertBreakerMode(mode);
      return routing.breaker(request.params.channel).setMode(mode);
    },
  );

  app.get(
    '/v1/routing/breakers',
    {
      schema: {
        summary: 'Every breaker this instance tracks, as of its last refresh (the dashboard\'s first paint)',
        response: { 200: { type: 'object', properties: { breakers: { type: 'array', items: breakerSchema } } }, ...errorResponses },
      },
    },
    async () => ({ breakers: routing.breakerStates() }),
  );

  app.get(
    '/v1/routing/experiment',
    {
      schema: {
        summary: 'Each A/B arm\'s success rate with its 95 % interval, and the difference\'s significance',
        response: {
          200: {
            type: 'object',
            properties: {
              share: { type: 'number' },
              arms: { type: 'object', properties: { router: armSchema, static: armSchema } },
              difference: { type: ['number', 'null'] },
              pValue: { type: ['number', 'null'] },
              significant: { type: 'boolean' },
            },
          },
          ...errorResponses,
        },
      },
    },
    async () => routing.experimentReport(),
  );
}
