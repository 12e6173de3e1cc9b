/** Timing analysis of the simulator's request log. */
import type { RecordedRequest } from './server.js';

/**
 * The length of the longest chain of requests in which each starts after the previous one ended: the
 * number of round trips a client spent waiting in sequence. Requests that overlap count once, so a step
 * that sends its independent reads concurrently adds 1, not one per read. Unfinished requests are ignored.
 * (Interval scheduling: greedy by end time gives the longest chain.)
 */
export function sequentialRoundTrips(requests: readonly RecordedRequest[]): number {
  const finished = requests.filter((r) => Number.isFinite(r.endedAt)).sort((a, b) => a.endedAt - b.endedAt);
  let chain = 0;
  let lastEnd = Number.NEGATIVE_INFINITY;
  for (const request of finished) {
    if (request.startedAt >= lastEnd) {
      chain++;
      lastEnd = request.endedAt;
    }
  }
  return chain;
}
