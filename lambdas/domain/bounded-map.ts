/**
 * Puts `key` → `value` in a Map used as a bounded per-container cache: the key becomes the
 * newest, and past `max` entries the oldest go first. One rule for every such cache (secrets,
 * signing keys, URL checks, subscriptions), so none can grow without bound.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as K);
}
