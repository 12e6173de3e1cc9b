/**
 * Offset paging with bounded read-ahead: while the reader works through one page, the next ones are
 * already on their way, so a long listing costs about (pages ÷ pagesInFlight) round trips instead of
 * one per page. Pages are handed over in order, whatever order they arrive in.
 */
export interface ReadAheadOptions {
  /** A page shorter than this is the last one. */
  pageSize: number;
  /**
   * Pages requested and not yet handed over, at most. 1 is strictly sequential: the next page is
   * requested only when the reader asks for it.
   */
  pagesInFlight: number;
}

/**
 * A page as fetched: its items, or a function that decodes them. Pages read ahead wait for the reader
 * in the second form (a page's text, say, instead of its 500 objects) and are decoded when handed over.
 */
export type FetchedPage<T> = T[] | (() => T[]);

/**
 * Yields the pages `fetchPage(0)`, `fetchPage(1)`, … in order until a short page. Only page 0 is
 * requested first, so a listing that fits in one page costs one request; read-ahead starts once a full
 * page shows there is more. When the reader stops (break, return, a thrown error), no further page is
 * requested; pages already in flight are left to finish and dropped. A failed page fails the
 * iteration when the reader reaches it, not before (so does one that cannot be decoded).
 */
export async function* readAhead<T>(fetchPage: (index: number) => Promise<FetchedPage<T>>, { pageSize, pagesInFlight }: ReadAheadOptions): AsyncGenerator<T[]> {
  const limit = Math.max(1, Math.floor(pagesInFlight));
  const requested: Promise<FetchedPage<T>>[] = [];
  let next = 0;
  const request = () => {
    const page = fetchPage(next++);
    // Handled when the reader reaches it; until then (or if it never does) it must not count as unhandled.
    page.catch(() => undefined);
    requested.push(page);
  };
  request();
  for (;;) {
    const fetched = await requested.shift()!;
    const page = typeof fetched === 'function' ? fetched() : fetched;
    const last = page.length < pageSize;
    if (page.length > 0) yield page;
    if (last) return;
    while (requested.length < limit) request();
  }
}
