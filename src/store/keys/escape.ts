// The one escaping of user text (kit names, channels, dims names and values, namespaces) before it enters a
// key, so that two different names never share a key. A character that means something where the text lands
// (a brace in a hash tag, `=` or `,` in a series id) is written `%XX`, its code in upper-case hex.
//
// `%` itself is written `%25` only where it would otherwise be read as an escape: when the two characters after
// it in the name are the hex of an escaped character (`25`, `7B`, …). Every other `%` stays as it is, so a name
// keeps its key unless it holds an escaped character or such a sequence (docs/storage.md, on upgrading). It is
// still reversible: an unescaped `%` is followed in the output by the name's next characters if neither was
// escaped — and then they are not such a sequence, or it would have been escaped — or by a `%` within its next
// two characters, which no hex code contains. So reading left to right, a `%` starts an escape exactly where
// encoding wrote one (test/store/keys/escape.test.ts checks both directions on random text).

export interface NameEscaping {
  /** The text of `name` as it goes into a key: none of the escaped characters left in it. */
  encode(name: string): string;
  /** The name back from its encoded text: decode(encode(name)) === name. */
  decode(text: string): string;
}

function hexOf(char: string): string {
  return char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');
}

/** An escaping of `%` and `specials` (ASCII characters), for one place in a key. */
function nameEscaping(specials: string): NameEscaping {
  const byHex = new Map<string, string>([['25', '%']]);
  const escaped = new Map<string, string>();
  for (const char of specials) {
    if (char.charCodeAt(0) > 0x7f || char === '%') throw new Error(`cannot escape ${JSON.stringify(char)}`);
    byHex.set(hexOf(char), char);
    escaped.set(char, `%${hexOf(char)}`);
  }
  const needsWork = new RegExp(`[%${[...specials].map((c) => `\\${c}`).join('')}]`);
  return {
    encode(name) {
      // Nearly every name holds none of them: it is its own key text.
      if (!needsWork.test(name)) return name;
      let out = '';
      for (let i = 0; i < name.length; i++) {
        const char = name[i]!;
        if (char === '%') out += byHex.has(name.slice(i + 1, i + 3)) ? '%25' : '%';
        else out += escaped.get(char) ?? char;
      }
      return out;
    },
    decode(text) {
      if (!text.includes('%')) return text;
      let out = '';
      for (let i = 0; i < text.length; i++) {
        const char = text[i]!;
        const original = char === '%' ? byHex.get(text.slice(i + 1, i + 3)) : undefined;
        if (original === undefined) {
          out += char;
        } else {
          out += original;
          i += 2;
        }
      }
      return out;
    },
  };
}

/**
 * Text inside a Redis Cluster hash tag `{…}` (a channel, a kit object's name): a `}` would end the tag early
 * and move the key to another slot, a `{` would read as the start of one.
 */
export const tagText = nameEscaping('{}');

/** The namespace, the key's first part: it ends at the first `:`. */
export const namespaceText = nameEscaping('{}:');

/**
 * A dims name or value inside a series id (`currency=BRL,method=card`, and `!excused` after a twin's): the
 * id's own separators. A series id is also part of its channel's keys, after the hash tag.
 */
export const seriesPartText = nameEscaping('{}=,!');
