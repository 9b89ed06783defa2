// The dashboard plugin serves everything the page needs from this machine: every file index.html names and
// every module an ES module imports, with the right type, revalidation and no way out of its folder.
import Fastify, { type FastifyInstance } from 'fastify';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDashboard, WEB_DIR } from '../../src/server/dashboard.js';

let app: FastifyInstance;

beforeAll(async () => {
  app = Fastify();
  await registerDashboard(app);
  await app.ready();
});

afterAll(() => app.close());

/** Relative URLs the page asks for: href/src in the HTML, `from './x.js'` in the modules. */
function referencedAssets(): string[] {
  const html = readFileSync(join(WEB_DIR, 'index.html'), 'utf8');
  const fromHtml = [...html.matchAll(/(?:href|src)="assets\/([^"]+)"/g)].map((m) => m[1]!);
  const fromModules = readdirSync(WEB_DIR)
    .filter((name) => name.endsWith('.js'))
    .flatMap((name) => [...readFileSync(join(WEB_DIR, name), 'utf8').matchAll(/from '\.\/([^']+)'/g)].map((m) => m[1]!));
  return [...new Set([...fromHtml, ...fromModules])];
}

describe('dashboard plugin', () => {
  it('serves the page with a content security policy that allows only this origin', async () => {
    const response = await app.inject({ url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(response.headers['content-security-policy']).not.toContain('unsafe');
    expect(response.body).toContain('<script type="module" src="assets/app.js">');
  });

  it('serves every file the page and its modules refer to, uPlot included', async () => {
    const names = referencedAssets();
    expect(names).toEqual(expect.arrayContaining(['app.js', 'styles.css', 'uPlot.esm.js', 'uPlot.min.css', 'table.js']));
    for (const name of names) {
      const response = await app.inject({ url: `/assets/${name}` });
      expect(response.statusCode, name).toBe(200);
      const type = name.endsWith('.js') ? 'text/javascript' : name.endsWith('.css') ? 'text/css' : 'image/svg+xml';
      expect(response.headers['content-type'], name).toContain(type);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('answers a revalidation of an unchanged file with 304', async () => {
    const first = await app.inject({ url: '/assets/app.js' });
    expect(first.headers['cache-control']).toBe('no-cache');
    const etag = String(first.headers.etag);
    const again = await app.inject({ url: '/assets/app.js', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const other = await app.inject({ url: '/assets/styles.css', headers: { 'if-none-match': etag } });
    expect(other.statusCode).toBe(200);
  });

  it('serves nothing outside its fixed set of files', async () => {
    for (const url of ['/assets/nope.js', '/assets/..%2Fpackage.json', '/assets/index.html', '/assets/%2E%2E%2Fsrc%2Fserver%2Fdashboard.ts']) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json().error.code).toBe('PP_ERR_NOT_FOUND');
    }
  });
});
