/**
 * Runs tasks in the background, at most `concurrency` at a time, the rest waiting in arrival order.
 * A burst of webhooks is absorbed here: each is accepted at once and its UISP reads wait their turn,
 * so UISP never sees more than a few of our reads at a time. Past `maxWaiting` new tasks are refused
 * (the caller answers 503 and UISP sends the event again later) rather than growing without bound.
 */
export class TaskQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  /** Tasks accepted and not finished. */
  get size(): number {
    return this.running + this.waiting.length;
  }

  /** Undefined when the queue is full; otherwise the task's completion (it never rejects: tasks handle their errors). */
  push(task: () => Promise<void>): Promise<void> | undefined {
    if (this.waiting.length >= this.maxWaiting) return undefined;
    return new Promise<void>((resolve) => {
      const start = () => {
        this.running += 1;
        void task()
          .catch(() => undefined)
          .finally(() => {
            this.running -= 1;
            this.waiting.shift()?.();
            resolve();
          });
      };
      if (this.running < this.concurrency) start();
      else this.waiting.push(start);
    });
  }
}
