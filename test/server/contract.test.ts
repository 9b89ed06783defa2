// Every API route documents its input and output in the OpenAPI document (the schemas Fastify validates and
// serialises with), and every error it can answer names the shared ErrorReply shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, makeApp, type TestApp } from './harness.js';

interface Operation {
  parameters?: { in: string; name: string }[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
}

describe('OpenAPI contract', () => {
  let t: TestApp;
  let paths: Record<string, Record<string, Operation>>;
  beforeAll(async () => {
    t = await makeApp(engines[0]!);
    paths = (await t.app.inject({ url: '/docs/json' })).json().paths;
  });
  afterAll(async () => t?.close());

  it('documents a JSON response for every JSON route, and ErrorReply for its errors', () => {
    const textRoutes = new Set(['/metrics', '/v1/stream']);
    for (const [path, methods] of Object.entries(paths)) {
      if (textRoutes.has(path)) continue;
      for (const [method, op] of Object.entries(methods)) {
        const ok = op.responses['200']?.content?.['application/json']?.schema;
        expect(ok, `${method.toUpperCase()} ${path} has a 200 schema`).toBeDefined();
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400 || path === '/readyz') continue;
          expect(response.content?.['application/json']?.schema?.$ref, `${method} ${path} ${status}`).toMatch(/ErrorReply$/);
        }
      }
    }
  });

  it('documents the inputs of the /v1 routes', () => {
    expect(paths['/v1/outcomes']!.post!.requestBody).toBeDefined();
    const rateParams = paths['/v1/channels/{channel}/rate']!.get!.parameters!.map((p) => `${p.in}:${p.name}`);
    expect(rateParams).toEqual(expect.arrayContaining(['path:channel', 'query:window', 'query:n']));
    const historyParams = paths['/v1/channels/{channel}/history']!.get!.parameters!.map((p) => `${p.in}:${p.name}`);
    expect(historyParams).toEqual(expect.arrayContaining(['path:channel', 'query:from', 'query:to']));
  });

  it('hides the dashboard and its assets from the API document', () => {
    expect(paths['/']).toBeUndefined();
    expect(Object.keys(paths).some((p) => p.startsWith('/assets'))).toBe(false);
  });
});
