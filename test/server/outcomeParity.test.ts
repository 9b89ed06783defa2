// One rule set: the library (recordMany), the service (POST /v1/outcomes) and the OpenAPI schema the
// service publishes judge the same items the same way, and the first two give the same {index, field,
// reason} for each problem.
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { outcomeSchema } from '../../src/server/schemas.js';
import type { Outcome } from '../../src/types.js';
import { engines, makeApp, post, t0, type TestApp } from './harness.js';

const good = { channel: 'alipay', requestId: 'r1', status: 'success', at: t0 - 1_000 } as const;

/** Each item breaks one drifted rule (or two), so every rule is compared on its own. */
const badItems: Array<[string, unknown]> = [
  ['not an object', 42],
  ['array item', [good]],
  ['channel missing', { ...good, channel: undefined }],
  ['channel with a space', { ...good, channel: 'bad channel' }],
  ['channel too long', { ...good, channel: 'c'.repeat(65) }],
  ['requestId empty', { ...good, requestId: '' }],
  ['requestId not a string', { ...good, requestId: 7 }],
  ['requestId too long', { ...good, requestId: 'x'.repeat(129) }],
  ['requestId with a tab', { ...good, requestId: 'a\tb' }],
  ['requestId with NUL', { ...good, requestId: 'a\u0000b' }],
  ['requestId with DEL', { ...good, requestId: 'a\u007fb' }],
  ['requestId with a C1 control', { ...good, requestId: 'a\u0085b' }],
  ['requestId with a bidi override', { ...good, requestId: 'pay\u202emoc' }],
  ['requestId with a bidi isolate', { ...good, requestId: 'pay\u2066x\u2069' }],
  ['requestId with a lone high surrogate', { ...good, requestId: 'a\ud800' }],
  ['requestId with a lone low surrogate', { ...good, requestId: '\udc00a' }],
  ['code with a C1 control', { ...good, status: 'failure', code: 'E\u009f' }],
  ['code with a bidi override', { ...good, status: 'failure', code: '\u202aE51' }],
  ['code with a lone surrogate', { ...good, status: 'failure', code: 'E\udbff' }],
  ['code empty', { ...good, status: 'failure', code: '' }],
  ['code too long', { ...good, status: 'failure', code: 'c'.repeat(65) }],
  ['status unknown', { ...good, status: 'done' }],
  ['status missing', { ...good, status: undefined }],
  ['at negative', { ...good, at: -5 }],
  ['at fractional', { ...good, at: 1.5 }],
  ['at a string', { ...good, at: String(t0) }],
  ['at past safe integers', { ...good, at: 2 ** 53 }],
  ['latencyMs negative', { ...good, latencyMs: -1 }],
  ['dims not an object', { ...good, dims: 'card' }],
  ['dims an array', { ...good, dims: ['card'] }],
  ['dim name with a leading digit', { ...good, dims: { '3ds': 'yes' } }],
  ['dim name with a dash', { ...good, dims: { 'card-type': 'visa' } }],
  ['dim name too long', { ...good, dims: { ['n'.repeat(33)]: 'v' } }],
  ['dim value with a space', { ...good, dims: { method: 'has space' } }],
  ['dim value with a comma', { ...good, dims: { method: 'a,b=c' } }],
  ['dim value empty', { ...good, dims: { method: '' } }],
  ['dim value too long', { ...good, dims: { method: 'v'.repeat(65) } }],
  ['dim value not a string', { ...good, dims: { method: 3 } }],
  ['17 dimensions', { ...good, dims: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`d${i}`, 'v'])) }],
  ['several at once', { channel: 'x y', requestId: '', status: 'ok', at: -1, dims: { _x: 'v' } }],
];

const goodItems: Array<[string, unknown]> = [
  ['minimal', good],
  ['every optional field', { ...good, status: 'failure', code: 'do_not_honor', latencyMs: 12.5, dims: { method: 'card', currency: 'EUR' } }],
  ['a paired surrogate (emoji) and non-ASCII in the id', { ...good, requestId: 'café-😀' }],
  ['16 dimensions', { ...good, dims: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`d${i}`, 'v'])) }],
  ['dim values with every allowed symbol', { ...good, dims: { amountBand: '10.5:20/+-_' } }],
];

describe('outcome rules: library, service and published schema agree', () => {
  let t: TestApp;
  beforeAll(async () => {
    await engines[0].start();
    t = await makeApp(engines[0]);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function libraryIssues(items: unknown[]) {
    const err = await t.pulse.recordMany(items as Outcome[]).then(() => undefined, (e: unknown) => e);
    return err instanceof ValidationError ? err.issues : [];
  }

  async function serviceIssues(items: unknown[]) {
    const res = await post(t.app, { outcomes: items });
    return res.statusCode === 400 ? (res.json().error.details as unknown[]) : [];
  }

  it.each(badItems)('%s: the same {index, field, reason} from both', async (_name, item) => {
    // The bad item second: the index must be reported the same way too.
    const items = [{ ...good, requestId: 'first' }, item];
    const fromLibrary = await libraryIssues(items);
    expect(fromLibrary.length).toBeGreaterThan(0);
    expect(fromLibrary.every((i) => i.index === 1)).toBe(true);
    expect(await serviceIssues(items)).toEqual(fromLibrary);
  });

  it('a whole bad batch gives the same list from both', async () => {
    const items = badItems.map(([, item]) => item);
    const fromLibrary = await libraryIssues(items);
    expect(fromLibrary.length).toBeGreaterThanOrEqual(badItems.length);
    expect(await serviceIssues(items)).toEqual(fromLibrary);
  });

  it.each(goodItems)('%s: accepted by both', async (_name, item) => {
    expect(await libraryIssues([item])).toEqual([]);
    const res = await post(t.app, { outcomes: [{ ...(item as object), requestId: `svc-${_name.length}` }] });
    expect(res.statusCode).toBe(200);
  });

  it('unknown fields: the service rejects them, the library ignores them', async () => {
    const item = { ...good, amount: 12 };
    expect(await serviceIssues([item])).toEqual([{ index: 0, field: 'amount', reason: 'is not a known field' }]);
    expect(await libraryIssues([item])).toEqual([]);
  });

  it('the published JSON schema accepts exactly what the rules accept', () => {
    const ajv = new Ajv({ allErrors: true, coerceTypes: false });
    const validate = ajv.compile({ ...outcomeSchema, $id: undefined });
    // JSON cannot carry undefined: the wire form of each item is what the schema sees.
    const wire = (item: unknown) => JSON.parse(JSON.stringify(item)) as unknown;
    for (const [name, item] of badItems) expect([name, validate(wire(item))]).toEqual([name, false]);
    for (const [name, item] of goodItems) expect([name, validate(wire(item))]).toEqual([name, true]);
    expect([validate({ ...good, amount: 1 })]).toEqual([false]);
  });
});
