// Every Redis key PayPulse uses is built in this folder (callers never hand-build keys; docs/storage.md).
// Layout: `<namespace>:{<tag>}:<what>…`. The `{tag}` is a Redis Cluster hash tag, so all keys of one
// channel (or one kit resource) live in one slot and a Lua script over them is never cross-slot.

export const namespacePattern = /^[A-Za-z0-9._-]{1,32}$/;

export function checkNamespace(namespace: string): string {
  if (!namespacePattern.test(namespace)) {
    throw new Error(`namespace must be 1–32 chars of [A-Za-z0-9._-], got ${JSON.stringify(namespace)}`);
  }
  return namespace;
}

/** `<namespace>:{<tag>}:` — the prefix every key of one slot starts with. */
export function slotPrefix(namespace: string, tag: string): string {
  return `${namespace}:{${tag}}:`;
}

/** Curly braces would change the hash tag; they are replaced, so a tag can never escape its slot. */
export function safeTag(value: string): string {
  return value.replace(/[{}]/g, '_');
}
