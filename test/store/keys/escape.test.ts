// Keys are injective: distinct names never give one key, every escaping reads back, and a name free of the
// escaped characters keeps its key (existing deployments keep their data, docs/storage.md).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { namespaceText, seriesPartText, tagText, type NameEscaping } from '../../../src/store/keys/escape.js';
import { kitKeys } from '../../../src/store/keys/kit.js';
import { channelPrefix } from '../../../src/store/keys/stats.js';
import { clusterSlot } from '../../../src/store/keys/clusterSlot.js';
import { dimsOfSeriesId, excusedSeriesId, seriesIdOf } from '../../../src/stats/series.js';

// Mostly the characters that mean something somewhere in a key, the escape's own and look-alikes, and a
// little of everything else (unicode included).
const tricky = fc.constantFrom(
  '{', '}', ':', '_', '=', ',', '!', '%', '2', '5', '7', 'B', 'D', 'b', 'C', 'A', '3', '1', 'a', 'é', '𝄞', ' ',
  '%7B', '%7D', '%25', '%3A', '%3D', '%2C', '%21', '%7b',
);
const name = fc.oneof(
  { weight: 4, arbitrary: fc.array(tricky, { maxLength: 12 }).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
);
const runs = { numRuns: 3000 };

const escapings: Array<[string, NameEscaping, string]> = [
  ['tagText', tagText, '{}'],
  ['namespaceText', namespaceText, '{}:'],
  ['seriesPartText', seriesPartText, '{}=,!'],
];

describe.each(escapings)('%s', (_label, escaping, specials) => {
  it('reads back what it wrote: decode(encode(name)) = name', () => {
    fc.assert(fc.property(name, (n) => escaping.decode(escaping.encode(n)) === n), runs);
  });

  it('gives distinct names distinct text', () => {
    fc.assert(fc.property(name, name, (a, b) => a === b || escaping.encode(a) !== escaping.encode(b)), runs);
  });

  it('gives a name and its look-alikes (a character written as its escape, or replaced) distinct text', () => {
    const lookAlikes = (n: string) =>
      [...specials, '%'].flatMap((c) => [n.replaceAll(c, `%${c.charCodeAt(0).toString(16).toUpperCase()}`), n.replaceAll(c, '_')]);
    fc.assert(fc.property(name, (n) => lookAlikes(n).every((other) => other === n || escaping.encode(other) !== escaping.encode(n))), runs);
  });

  it('leaves none of its characters in the text', () => {
    fc.assert(fc.property(name, (n) => ![...specials].some((c) => escaping.encode(n).includes(c))), runs);
  });

  it('keeps a name without its characters or an escape-like % as it is', () => {
    expect(escaping.encode('ord_42_:paid-%zz%7b')).toBe('ord_42_:paid-%zz%7b'.replace(':', specials.includes(':') ? '%3A' : ':'));
    expect(escaping.encode('100%')).toBe('100%');
  });
});

describe('keys built from names', () => {
  it('the three reported pairs give different keys', () => {
    const keys = kitKeys('paypulse');
    expect(keys.idempotency('callback:ord{42}:paid')).not.toBe(keys.idempotency('callback:ord_42_:paid'));
    expect(keys.cache('merchant:{10086}:rate')).not.toBe(keys.cache('merchant:_10086_:rate'));
    expect(keys.lock('order:{7}').lock).not.toBe(keys.lock('order:_7_').lock);
    expect(keys.idempotency('callback:ord{42}:paid')).toBe('paypulse:{idem:callback:ord%7B42%7D:paid}:mark');
  });

  it('distinct kit names give distinct keys of every kind, each kind in one slot with its companions', () => {
    const keys = kitKeys('ns');
    fc.assert(
      fc.property(name, name, (a, b) => {
        if (a === b) return true;
        const [la, lb] = [keys.lock(a), keys.lock(b)];
        expect(la.lock).not.toBe(lb.lock);
        expect(keys.idempotency(a)).not.toBe(keys.idempotency(b));
        expect(keys.cache(a)).not.toBe(keys.cache(b));
        expect(keys.recency(a).zset).not.toBe(keys.recency(b).zset);
        expect(clusterSlot(la.fence)).toBe(clusterSlot(la.lock));
        expect(clusterSlot(keys.cacheFill(a).lock)).toBe(clusterSlot(keys.cache(a)));
        return true;
      }),
      { numRuns: 1000 },
    );
  });

  it('distinct channels give distinct prefixes', () => {
    fc.assert(fc.property(name, name, (a, b) => a === b || channelPrefix('ns', a) !== channelPrefix('ns', b)), runs);
  });

  it('series ids: distinct dims give distinct ids, ids read back, and no id is another one\'s excused twin', () => {
    const dims = fc.dictionary(name.filter((n) => n !== '__proto__'), name, { minKeys: 1, maxKeys: 3 });
    fc.assert(
      fc.property(dims, dims, (a, b) => {
        const [ia, ib] = [seriesIdOf(a), seriesIdOf(b)];
        expect(dimsOfSeriesId(ia)).toEqual(a);
        if (JSON.stringify(Object.entries(a).sort()) !== JSON.stringify(Object.entries(b).sort())) expect(ia).not.toBe(ib);
        expect(ia).not.toBe(excusedSeriesId(ib));
        return true;
      }),
      runs,
    );
  });

  it('dims named like Object.prototype members read back as their own', () => {
    expect(dimsOfSeriesId(seriesIdOf({ constructor: 'a', toString: 'b' }))).toEqual({ constructor: 'a', toString: 'b' });
  });
});
