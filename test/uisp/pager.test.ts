/**
 * The read-ahead pager on its own, with pages that arrive when the test says so: order kept whatever
 * order they arrive in, never more than `pagesInFlight` pages requested ahead, and no request after the
 * reader stops. No timing: every step waits on the pager asking for a page.
 */
import { describe, expect, it } from 'vitest';
import { readAhead } from '../../src/services/uisp/pager.js';

/** A paged source of `total` numbers whose pages the test answers one by one, in any order. */
function manualSource(total: number, pageSize: number) {
  const pending = new Map<number, { resolve: (page: number[]) => void; reject: (error: Error) => void }>();
  const requested: number[] = [];
  let onRequest: (() => void) | undefined;
  const fetchPage = (index: number) =>
    new Promise<number[]>((resolve, reject) => {
      requested.push(index);
      pending.set(index, { resolve, reject });
      onRequest?.();
    });
  return {
    fetchPage,
    requested,
    /** Pages requested and not answered yet. */
    inFlight: () => [...pending.keys()].sort((a, b) => a - b),
    answer(index: number) {
      const page = Array.from({ length: Math.max(0, Math.min(pageSize, total - index * pageSize)) }, (_, i) => index * pageSize + i);
      pending.get(index)!.resolve(page);
      pending.delete(index);
    },
    fail(index: number, error: Error) {
      pending.get(index)!.reject(error);
      pending.delete(index);
    },
    /** Resolves once `count` pages in all have been requested. */
    requestedAtLeast(count: number): Promise<void> {
      return new Promise((resolve) => {
        const check = () => {
          if (requested.length >= count) {
            onRequest = undefined;
            resolve();
          }
        };
        onRequest = check;
        check();
      });
    },
  };
}

const numbers = (from: number, count: number) => Array.from({ length: Math.max(0, count) }, (_, i) => from + i);

describe('readAhead', () => {
  it('requests only the first page until it shows there is more, then keeps pagesInFlight pages requested', async () => {
    const source = manualSource(1_000, 100);
    const pages = readAhead(source.fetchPage, { pageSize: 100, pagesInFlight: 4 });

    const first = pages.next();
    await source.requestedAtLeast(1);
    expect(source.inFlight()).toEqual([0]);
    source.answer(0);
    expect((await first).value).toHaveLength(100);
    expect(source.requested).toEqual([0]);

    const second = pages.next();
    await source.requestedAtLeast(5);
    expect(source.inFlight()).toEqual([1, 2, 3, 4]);
    source.answer(1);
    expect((await second).value?.[0]).toBe(100);
    // While the reader holds page 1, pages 2-4 are on their way and nothing more is asked for.
    expect(source.inFlight()).toEqual([2, 3, 4]);
    expect(source.requested).toHaveLength(5);
    await pages.return(undefined);
  });

  it('hands pages over in order whatever order they arrive in, and ends at the short page', async () => {
    const requested: number[] = [];
    // Later pages answer first: page i waits fewer microtask turns the later it is in its window of 4.
    const fetchPage = async (index: number) => {
      requested.push(index);
      for (let turn = 0; turn < 10 * (4 - (index % 4)); turn++) await Promise.resolve();
      return numbers(index * 100, Math.min(100, 950 - index * 100));
    };
    const all: number[] = [];
    for await (const page of readAhead(fetchPage, { pageSize: 100, pagesInFlight: 4 })) all.push(...page);
    expect(all).toEqual(numbers(0, 950));
    // Page 9 is the short one; fewer than pagesInFlight pages beyond it were asked for.
    expect(Math.max(...requested)).toBeLessThan(9 + 4);
  });

  it('never has more than pagesInFlight pages requested and not yet handed over', async () => {
    const pagesInFlight = 4;
    let handedOver = 0;
    let mostAhead = 0;
    const fetchPage = async (index: number) => {
      mostAhead = Math.max(mostAhead, index + 1 - handedOver);
      for (let turn = 0; turn < 5 * (index % 3); turn++) await Promise.resolve();
      return numbers(index * 100, 100);
    };
    for await (const _page of readAhead(fetchPage, { pageSize: 100, pagesInFlight })) {
      if (++handedOver === 50) break;
    }
    expect(handedOver).toBe(50);
    expect(mostAhead).toBe(pagesInFlight);
  });

  it('stops requesting when the reader stops: pages in flight are dropped, no new one is asked for', async () => {
    const source = manualSource(100_000, 100);
    const pages = readAhead(source.fetchPage, { pageSize: 100, pagesInFlight: 4 });
    const first = pages.next();
    await source.requestedAtLeast(1);
    source.answer(0);
    await first;
    const second = pages.next();
    await source.requestedAtLeast(5);
    source.answer(1);
    await second;

    await pages.return(undefined);
    for (const index of source.inFlight()) source.answer(index);
    expect(await pages.next()).toEqual({ done: true, value: undefined });
    expect(source.requested).toEqual([0, 1, 2, 3, 4]);
  });

  it('pagesInFlight 1 is strictly sequential: the next page only when the reader asks for it', async () => {
    const source = manualSource(300, 100);
    const pages = readAhead(source.fetchPage, { pageSize: 100, pagesInFlight: 1 });
    for (let index = 0; index < 3; index++) {
      const next = pages.next();
      await source.requestedAtLeast(index + 1);
      expect(source.inFlight()).toEqual([index]);
      source.answer(index);
      await next;
      expect(source.requested).toHaveLength(index + 1);
    }
    const end = pages.next();
    await source.requestedAtLeast(4);
    source.answer(3);
    expect(await end).toEqual({ done: true, value: undefined });
  });

  it('a failed page fails the iteration when the reader reaches it, not before', async () => {
    const source = manualSource(1_000, 100);
    const pages = readAhead(source.fetchPage, { pageSize: 100, pagesInFlight: 3 });
    const first = pages.next();
    await source.requestedAtLeast(1);
    source.answer(0);
    await first;
    const second = pages.next();
    await source.requestedAtLeast(4);
    source.fail(2, new Error('UISP is unavailable'));
    source.answer(1);
    expect((await second).value?.[0]).toBe(100);
    await expect(pages.next()).rejects.toThrow('UISP is unavailable');
  });

  it('a page fetched as a function is decoded only when handed over, and one that cannot be decoded fails there', async () => {
    const decoded: number[] = [];
    const fetchPage = async (index: number) => () => {
      decoded.push(index);
      if (index === 2) throw new Error('page 2 is not JSON');
      return numbers(index * 100, 100);
    };
    const pages = readAhead(fetchPage, { pageSize: 100, pagesInFlight: 4 });
    await pages.next();
    expect((await pages.next()).value?.[0]).toBe(100);
    // Pages 2 to 4 have been fetched; only the pages handed over were decoded.
    expect(decoded).toEqual([0, 1]);
    await expect(pages.next()).rejects.toThrow('page 2 is not JSON');
  });
});
