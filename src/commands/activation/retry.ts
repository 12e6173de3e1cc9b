/**
 * Retry on a failed activation: re-runs the (converging) workflow in the same thread. The button is
 * replaced by who retried, so the thread shows one live Retry at a time.
 */
import type { App, BlockButtonAction } from '@slack/bolt';
import { errorSummary } from '../../slack/errors.js';
import { runActivation } from './run.js';
import { onceButton } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { decodeMetadata, RetryValueSchema } from '../../slack/metadata.js';
import { mention } from '../../views/format.js';
import { ACTION, BLOCK } from '../../views/ids.js';
import { context, type Block } from '../../views/kit.js';

export function registerRetry(app: App, deps: ListenerDeps): void {
  app.action<BlockButtonAction>(ACTION.activationRetry, onceButton(deps, async ({ ack, body, action, client }) => {
    await ack();
    const { request, startedBy, confirm } = decodeMetadata(RetryValueSchema, action.value);
    const channelId = body.channel?.id;
    const failureReply = body.message;
    if (!channelId || !failureReply) throw new Error('Retry clicked outside a message');
    const logger = deps.logger.child({ flow: 'activation', userId: body.user.id, retry: true });
    const blocks = (failureReply.blocks as Block[] | undefined)?.filter((block) => block.block_id !== BLOCK.activationRetry) ?? [];
    // Marked while the re-run goes on: UISP does not wait for Slack (the mark counts as work in flight).
    void deps.work.run(async () => {
      try {
        await client.chat.update({ channel: channelId, ts: failureReply.ts, text: failureReply.text ?? 'Activation failed', blocks: [...blocks, context(`:repeat: Retried by ${mention(body.user.id)}`)] });
      } catch (error) {
        logger.warn({ err: errorSummary(error) }, 'could not mark the failure report as retried');
      }
    });
    await runActivation(deps, {
      request,
      startedBy,
      ...(confirm && { confirm }),
      origin: { channelId, userId: body.user.id, ...(body.response_url && { responseUrl: body.response_url }) },
      // Bolt types a message's extra fields as any: thread_ts is a string when the reply is in a thread.
      parentTs: typeof failureReply.thread_ts === 'string' ? failureReply.thread_ts : failureReply.ts,
    });
  }));
}
