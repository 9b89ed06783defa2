// Every Redis key PayPulse uses is built in this folder (callers never hand-build keys; docs/storage.md).
// Layout: `<namespace>:{<tag>}:<what>…`. The `{tag}` is a Redis Cluster hash tag, so all keys of one
// channel (or one kit resource) live in one slot and a Lua script over them is never cross-slot. User text
// enters a key only through escape.ts, so two names never meet in one key.
import { namespaceText, tagText } from './escape.js';

export const namespacePattern = /^[A-Za-z0-9._-]{1,32}$/;

export function checkNamespace(namespace: string): string {
  if (!namespacePattern.test(namespace)) {
    throw new Error(`namespace must be 1–32 chars of [A-Za-z0-9._-], got ${JSON.stringify(namespace)}`);
  }
  return namespace;
}

/**
 * `<namespace>:{<tag>}:` — the prefix every key of one slot starts with. The tag is escaped here, so no
 * caller can forget it: a brace in a name can neither end the tag early nor make two names one.
 */
export function slotPrefix(namespace: string, tag: string): string {
  return `${namespacePrefix(namespace)}{${tagText.encode(tag)}}:`;
}

/** `<namespace>:` — the start of every key, and of the namespace's keys outside any slot. */
export function namespacePrefix(namespace: string): string {
  return `${namespaceText.encode(namespace)}:`;
}
