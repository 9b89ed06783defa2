// A small HTTP client for POST /v1/outcomes: what `paypulse simulate --target` and the HTTP benchmark use to
// send outcomes to a running service, in batches the server accepts (≤ 10,000).
import { addRecords, noRecords } from '../stats/recordResults.js';
import type { Outcome, RecordManyResult } from '../types.js';
import { maxBatchItems } from '../server/schemas.js';
import { fetchNamed } from './http.js';

export interface IngestClientOptions {
  /** Base URL of the service, e.g. http://127.0.0.1:8080 */
  target: string;
  token?: string;
}

export class IngestError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly url = '/v1/outcomes',
  ) {
    super(`POST ${url} answered ${status}: ${body.slice(0, 500)}`);
    this.name = 'IngestError';
  }
}

export function createIngestClient({ target, token }: IngestClientOptions) {
  const url = new URL('/v1/outcomes', target).toString();
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;

  async function postBatch(outcomes: Outcome[]): Promise<RecordManyResult> {
    const res = await fetchNamed(url, { method: 'POST', headers, body: JSON.stringify({ outcomes }) });
    const text = await res.text();
    if (!res.ok) throw new IngestError(res.status, text, url);
    return JSON.parse(text) as RecordManyResult;
  }

  return {
    /** Sends any number of outcomes, split into server-sized batches, one after another. */
    async send(outcomes: Outcome[]): Promise<RecordManyResult> {
      const total = noRecords();
      for (let i = 0; i < outcomes.length; i += maxBatchItems) addRecords(total, [await postBatch(outcomes.slice(i, i + maxBatchItems))]);
      return total;
    },
  };
}
