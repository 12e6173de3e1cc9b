/** The services' read-through cache: TTL on an injected clock, shared misses, failures not kept. */
import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../src/services/cache.js';

function counter() {
  let reads = 0;
  return {
    load: (value: string) => async () => {
      reads++;
      return value;
    },
    reads: () => reads,
  };
}

describe('TtlCache', () => {
  it('answers from the cache until the TTL has passed on the injected clock, then reads again', async () => {
    let now = 1_000;
    const cache = new TtlCache<number, string>({ ttlMs: 60_000, now: () => now });
    const source = counter();
    expect(await cache.get(1, source.load('Ada'))).toBe('Ada');
    now += 59_999;
    expect(await cache.get(1, source.load('Ada v2'))).toBe('Ada');
    expect(source.reads()).toBe(1);
    now += 1;
    expect(await cache.get(1, source.load('Ada v2'))).toBe('Ada v2');
    expect(source.reads()).toBe(2);
  });

  it('concurrent misses for one key share one read; other keys read on their own', async () => {
    const cache = new TtlCache<number, string>({ ttlMs: 1_000, now: () => 0 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    const load = (value: string) => async () => {
      reads++;
      await gate;
      return value;
    };
    const answers = Promise.all([cache.get(1, load('a')), cache.get(1, load('b')), cache.get(2, load('c'))]);
    release();
    expect(await answers).toEqual(['a', 'a', 'c']);
    expect(reads).toBe(2);
  });

  it('does not keep a failed read: the next caller reads again', async () => {
    const cache = new TtlCache<number, string>({ ttlMs: 1_000, now: () => 0 });
    await expect(cache.get(1, () => Promise.reject(new Error('UISP is unavailable')))).rejects.toThrow('UISP is unavailable');
    expect(await cache.get(1, async () => 'back')).toBe('back');
  });

  it('a value stored from a fresh read is what the next get answers', async () => {
    const cache = new TtlCache<number, string>({ ttlMs: 1_000, now: () => 0 });
    cache.set(7, 'fresh');
    expect(await cache.get(7, () => Promise.reject(new Error('not read')))).toBe('fresh');
  });

  it('holds at most maxEntries, dropping the least recently stored', async () => {
    const cache = new TtlCache<number, string>({ ttlMs: 1_000, now: () => 0, maxEntries: 2 });
    for (const key of [1, 2, 3]) cache.set(key, `v${key}`);
    const source = counter();
    expect(await cache.get(1, source.load('reread'))).toBe('reread');
    expect(await cache.get(3, source.load('x'))).toBe('v3');
    expect(source.reads()).toBe(1);
  });
});
