/**
 * Runs tasks in the background, at most `concurrency` at a time, the rest waiting. A burst of webhooks is
 * absorbed here: each is accepted at once and its UISP reads wait their turn, so UISP never sees more
 * than a few of our reads at a time.
 *
 * Waiting tasks are kept per lane (for webhooks: the sender's address) and started round-robin across
 * lanes, each lane in arrival order: a flood from one address delays another address's tasks by at most
 * one of its own per turn, never by its whole backlog. Past `maxWaiting` in all, or `maxWaitingPerLane`
 * in one lane, new tasks are refused (the caller answers 503 and UISP sends the event again later)
 * rather than growing without bound.
 */
export class TaskQueue {
  private running = 0;
  private waitingCount = 0;
  /** Lane → its waiting tasks, oldest first; a lane is removed once empty. */
  private readonly lanes = new Map<string, (() => void)[]>();
  /** Lanes with waiting tasks, in the order they get their next turn. */
  private readonly turns: string[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
    private readonly maxWaitingPerLane: number = maxWaiting,
  ) {}

  /** Tasks accepted and not finished. */
  get size(): number {
    return this.running + this.waitingCount;
  }

  /** Tasks of this lane waiting for a turn. */
  waitingIn(lane: string): number {
    return this.lanes.get(lane)?.length ?? 0;
  }

  /** Undefined when the queue (or the lane) is full; otherwise the task's completion (it never rejects: tasks handle their errors). */
  push(task: () => Promise<void>, lane = ''): Promise<void> | undefined {
    const waiting = this.lanes.get(lane);
    if (this.waitingCount >= this.maxWaiting || (waiting?.length ?? 0) >= this.maxWaitingPerLane) return undefined;
    return new Promise<void>((resolve) => {
      const start = () => {
        this.running += 1;
        void task()
          .catch(() => undefined)
          .finally(() => {
            this.running -= 1;
            this.next();
            resolve();
          });
      };
      if (this.running < this.concurrency) {
        start();
        return;
      }
      this.waitingCount += 1;
      if (waiting) {
        waiting.push(start);
        return;
      }
      this.lanes.set(lane, [start]);
      this.turns.push(lane);
    });
  }

  /** Starts the first waiting task of the lane whose turn it is; that lane goes to the back of the line. */
  private next(): void {
    const lane = this.turns.shift();
    if (lane === undefined) return;
    const waiting = this.lanes.get(lane)!;
    const start = waiting.shift()!;
    this.waitingCount -= 1;
    if (waiting.length) this.turns.push(lane);
    else this.lanes.delete(lane);
    start();
  }
}
