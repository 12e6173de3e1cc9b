/**
 * A small read-through cache for UISP reads that change rarely and are read on every listing (client
 * names, payment methods). Entries live for a short TTL on an injected clock; concurrent misses for the
 * same key share one request; a failed read is not remembered, so the next caller tries again.
 */
export interface TtlCacheOptions {
  ttlMs: number;
  /** Milliseconds on any monotonic-enough scale (Date.now in production, a test's own counter). */
  now: () => number;
  /** The oldest entries make room beyond this many; default 1000. */
  maxEntries?: number;
}

export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  private readonly loading = new Map<K, Promise<V>>();
  private readonly maxEntries: number;

  constructor(private readonly options: TtlCacheOptions) {
    this.maxEntries = options.maxEntries ?? 1_000;
  }

  /** The fresh cached value, else the one read by `load` (shared with any caller already loading this key). */
  get(key: K, load: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > this.options.now()) return Promise.resolve(entry.value);
    const pending = this.loading.get(key);
    if (pending) return pending;
    const loaded = load().then(
      (value) => {
        this.set(key, value);
        return value;
      },
      (error: unknown) => {
        this.loading.delete(key);
        throw error;
      },
    );
    this.loading.set(key, loaded);
    return loaded;
  }

  /** Stores a value read elsewhere (a fresh read for a write, say), so listings reuse it. */
  set(key: K, value: V): void {
    this.loading.delete(key);
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.options.now() + this.options.ttlMs });
    // Map keeps insertion order, and set() re-inserts: the first key is the least recently stored.
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
  }
}
