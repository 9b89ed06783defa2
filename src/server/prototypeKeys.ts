// A parsed config file holds `__proto__` as an ordinary key; copied into the settings object it becomes
// that object's prototype, and a `token` inside it was read as the configured token. Such keys are no
// setting anywhere, so the file is refused, naming each place one occurs.

const prototypeKeys: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const prototypeKeyReason = 'prototype keys (__proto__, constructor, prototype) are not settings';

/** Paths like `alerts.constructor` or `dimensions[1].__proto__` of every prototype key in `value`. */
export function prototypeKeyPaths(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => prototypeKeyPaths(item, `${path}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.keys(value).flatMap((key) => {
    const at = path ? `${path}.${key}` : key;
    return prototypeKeys.has(key) ? [at] : prototypeKeyPaths((value as Record<string, unknown>)[key], at);
  });
}
