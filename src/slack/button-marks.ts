/**
 * A button pressed on a thread's message (Retry, Continue) is replaced by a line saying who pressed it,
 * so the thread shows one live button at a time. Marked in the background as counted work: UISP does
 * not wait for Slack.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { context, type Block } from '../views/kit.js';
import { errorSummary } from './errors.js';
import type { WorkTracker } from './work.js';

export interface PressedMessage {
  ts: string;
  text?: string | undefined;
  blocks?: unknown;
}

/** Replaces the message's `blockId` block (its button) with `line`. */
export function markPressed(deps: { work: WorkTracker }, client: webApi.WebClient, where: { channel: string; message: PressedMessage; blockId: string; fallbackText: string }, line: string, logger: Logger): void {
  const { channel, message, blockId, fallbackText } = where;
  void deps.work.run(async () => {
    const blocks = (message.blocks as Block[] | undefined)?.filter((block) => block.block_id !== blockId) ?? [];
    try {
      await client.chat.update({ channel, ts: message.ts, text: message.text ?? fallbackText, blocks: [...blocks, context(line)] });
    } catch (error) {
      logger.warn({ err: errorSummary(error), blockId }, 'could not mark the pressed button on its message');
    }
  });
}
