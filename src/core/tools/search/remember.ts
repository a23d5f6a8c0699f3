/**
 * `cache`'s value for `key`, computed once; a cache that reaches `limit` entries starts over, so a
 * long-lived process that sees ever new words keeps a bounded memory.
 */
export function remember<K, V>(cache: Map<K, V>, key: K, limit: number, compute: (key: K) => V): V {
  if (cache.has(key)) return cache.get(key)!;
  const value = compute(key);
  if (cache.size >= limit) cache.clear();
  cache.set(key, value);
  return value;
}
