// Serves the dashboard: GET / and the page's static files under /assets/, including uPlot from
// node_modules (no CDN: nothing outside the machine is reachable, and a payment network's ops floor
// often cannot reach the internet either).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
// Type-only: brings in @fastify/swagger's `schema.hide`, which keeps the page and its files out of /docs.
import type {} from '@fastify/swagger';

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

// Only this origin, for everything: an injected channel name can never run or load anything. uPlot styles
// its elements through the CSSOM (element.style), which style-src does not restrict, so no 'unsafe-inline'.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** web/ sits two levels above this file both in src/server/ and in the compiled dist/server/. */
export const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));

function uplotDistDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('uplot/package.json')), 'dist');
}

function loadAsset(path: string): Asset {
  const body = readFileSync(path);
  const type = CONTENT_TYPES[extname(path)] ?? 'application/octet-stream';
  const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
  return { body, type, etag };
}

/**
 * The files are read once, at registration: a fixed set of names means no request path ever reaches the
 * file system (no traversal to guard), and the page is a few tens of kB.
 */
function loadAssets(webDir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(webDir)) {
    if (name === 'index.html' || !(extname(name) in CONTENT_TYPES)) continue;
    assets.set(name, loadAsset(join(webDir, name)));
  }
  const uplot = uplotDistDir();
  assets.set('uPlot.esm.js', loadAsset(join(uplot, 'uPlot.esm.js')));
  assets.set('uPlot.min.css', loadAsset(join(uplot, 'uPlot.min.css')));
  return assets;
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset): FastifyReply {
  // no-cache means "revalidate", not "do not store": a new deploy shows at once, an unchanged file costs a 304.
  reply.header('cache-control', 'no-cache').header('etag', asset.etag).header('x-content-type-options', 'nosniff');
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  return reply.type(asset.type).send(asset.body);
}

export interface DashboardOptions {
  /** Folder of the page; defaults to the package's web/. */
  webDir?: string;
}

/** Registers GET / (the page) and GET /assets/:file. The service registers it next to its API routes. */
export async function registerDashboard(app: FastifyInstance, options: DashboardOptions = {}): Promise<void> {
  const webDir = options.webDir ?? WEB_DIR;
  const page = loadAsset(join(webDir, 'index.html'));
  const assets = loadAssets(webDir);

  const hidden = { schema: { hide: true } };
  app.get('/', hidden, async (request, reply) => {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY).header('referrer-policy', 'no-referrer');
    return send(request, reply, page);
  });

  app.get<{ Params: { file: string } }>('/assets/:file', hidden, async (request, reply) => {
    const asset = assets.get(request.params.file);
    if (!asset) {
      return reply.code(404).send({ error: { code: 'PP_ERR_NOT_FOUND', message: `no asset ${request.params.file}` } });
    }
    return send(request, reply, asset);
  });
}
