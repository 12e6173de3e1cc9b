/**
 * Bolt's App, with every ack sent before the work it was followed by. Bolt runs a listener's code after
 * `await ack()` at once, in the same turn of the event loop: with 50 requests arriving together, the
 * last one's ack waited for 49 listeners' first steps (building a modal, starting Web API and UISP
 * requests), none of which Slack waits for. Here a listener resumes after its ack only in the event
 * loop's check phase, once the requests already read in that turn have been acked.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ReceiverEvent } from '@slack/bolt';
import { App } from './bolt.js';

export class AckFirstApp extends App {
  override async processEvent(event: ReceiverEvent): Promise<void> {
    const { ack } = event;
    return super.processEvent({
      ...event,
      ack: async (response) => {
        await ack(response);
        await nextTurn();
      },
    });
  }
}
