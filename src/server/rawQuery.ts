// A request's query string as the client spelled it, before any decoding: the token is taken from the
// parameter written exactly `token=` (src/server/auth.ts), while Fastify's parsed query would also give a
// `?%74oken=` under the key `token`.

export interface RawParam {
  /** The name as sent, escapes and all. */
  name: string;
  /** The value as sent; undefined for a bare `?flag`. */
  value: string | undefined;
}

export function rawQueryParams(url: string): RawParam[] {
  const at = url.indexOf('?');
  if (at < 0) return [];
  return url
    .slice(at + 1)
    .split('&')
    .filter((param) => param.length > 0)
    .map((param) => {
      const eq = param.indexOf('=');
      return eq < 0 ? { name: param, value: undefined } : { name: param.slice(0, eq), value: param.slice(eq + 1) };
    });
}

/** `+` and percent-escapes decoded as a form would; undefined when an escape is malformed. */
export function decodeQueryText(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
