/**
 * Bolt's App, with every ack sent before the work it was followed by. Bolt runs a listener's code after
 * `await ack()` at once, in the same turn of the event loop: with 50 requests arriving together, the
 * last one's ack waited for 49 listeners' first steps (building a modal, starting Web API and UISP
 * requests), none of which Slack waits for. Here a listener resumes after its ack in the event loop's
 * check phase, one listener per turn of the loop: requests that arrive meanwhile are read and acked (in
 * the poll phase) between any two of them, so an ack waits for one listener's first step at most.
 */
import type { ReceiverEvent } from '@slack/bolt';
import { App } from './bolt.js';

export class AckFirstApp extends App {
  /** Listeners waiting to resume after their acks, oldest first. */
  private readonly resuming: (() => void)[] = [];
  private turnScheduled = false;

  override async processEvent(event: ReceiverEvent): Promise<void> {
    const { ack } = event;
    return super.processEvent({
      ...event,
      ack: async (response) => {
        await ack(response);
        await new Promise<void>((resume) => {
          this.resuming.push(resume);
          this.nextTurn();
        });
      },
    });
  }

  /** Resumes the oldest waiting listener in the next check phase, then schedules the one after it. */
  private nextTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      this.resuming.shift()?.();
      // Scheduled from within the check phase: it runs in the next turn, after that turn's poll phase.
      if (this.resuming.length) this.nextTurn();
    });
  }
}
