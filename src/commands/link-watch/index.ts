/**
 * The manual CRM–NMS link, watched (src/services/events/link-watch.ts), in Slack: "✅ Linked in CRM" in
 * the activation's thread and on its parent message, the one reminder in the thread, or both in the
 * audit channel when the thread is unknown. After a restart, `resume` finds each pending site's thread
 * again in the metadata of the activation's audit message, and whether its reminder was already posted.
 */
import type { App, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { ActivationLookup, ActivationRecord, LinkEvent } from '../../services/events/link-watch.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { errorSummary } from '../../slack/errors.js';
import { AUDIT_EVENT_TYPE } from '../../views/audit.js';
import type { Block, SlackMessage } from '../../views/kit.js';
import { LINK_REMINDER_EVENT_TYPE, linkedParent, linkedReply, linkReminder } from '../../views/link-watch.js';

export function register(app: App, deps: ListenerDeps): void {
  const { events, auditChannelId, logger } = deps;
  if (!events) return;
  const log = logger.child({ flow: 'link-watch' });
  const reminderHours = events.settings.linkReminderMs / 3_600_000;

  events.links.subscribe(async (event: LinkEvent) => {
    const { thread } = event.link;
    const msg = event.kind === 'linked' ? linkedReply(event) : linkReminder(event.link, reminderHours);
    const channel = thread?.channel ?? auditChannelId;
    if (!channel) {
      log.info({ siteId: event.link.siteId, kind: event.kind }, 'manual CRM–NMS link event with nowhere to post it');
      return;
    }
    await app.client.chat.postMessage({ channel, ...msg, ...(thread && { thread_ts: thread.ts }), unfurl_links: false });
    if (event.kind === 'linked' && thread) await markParentLinked(app.client, thread, log);
  });
}

/** Adds "Linked in CRM" under the activation's parent message, as it reads now. */
async function markParentLinked(client: webApi.WebClient, thread: { channel: string; ts: string }, log: Logger): Promise<void> {
  try {
    const history = await client.conversations.history({ channel: thread.channel, latest: thread.ts, inclusive: true, limit: 1 });
    const parent = history.messages?.find((m) => m.ts === thread.ts);
    if (!parent) return log.warn({ thread }, 'the activation message is gone: not updated');
    const update: SlackMessage = { text: parent.text ?? 'Activation', blocks: linkedParent((parent.blocks ?? []) as Block[]) };
    await client.chat.update({ channel: thread.channel, ts: thread.ts, ...update });
  } catch (error) {
    log.warn({ err: errorSummary(error), thread }, 'could not update the activation message with the link');
  }
}

/** The metadata of a successful activation's audit message (src/views/audit.ts), with its thread. */
const ActivationAuditMetadata = z.object({
  event_type: z.literal(AUDIT_EVENT_TYPE),
  event_payload: z.looseObject({ action: z.literal('activate'), ok: z.literal(true), siteId: z.string(), thread_channel: z.string(), thread_ts: z.string() }),
});

const ReminderMetadata = z.object({ event_type: z.literal(LINK_REMINDER_EVENT_TYPE), event_payload: z.looseObject({ site_id: z.string() }) });

/** How far back the audit channel is read for activations still awaiting their link. */
const LOOKBACK_PAGES = 20;

/**
 * Reads the audit channel, newest first, for the activation audit messages of these sites: each one's
 * thread and time; and, for those past the reminder time, whether the thread already has the reminder.
 */
export function activationLookup(client: webApi.WebClient, auditChannelId: string, reminderMs: number, now: () => number = Date.now): ActivationLookup {
  return async (siteIds) => {
    const wanted = new Set(siteIds);
    const found = new Map<string, ActivationRecord>();
    let cursor: string | undefined;
    for (let page = 0; page < LOOKBACK_PAGES && found.size < wanted.size; page++) {
      const history = await client.conversations.history({ channel: auditChannelId, include_all_metadata: true, limit: 200, ...(cursor && { cursor }) });
      for (const message of history.messages ?? []) {
        const audit = ActivationAuditMetadata.safeParse(message.metadata);
        if (!audit.success) continue;
        const { siteId, thread_channel: channel, thread_ts: ts } = audit.data.event_payload;
        if (!wanted.has(siteId) || found.has(siteId)) continue;
        found.set(siteId, { thread: { channel, ts }, since: Number(message.ts) * 1000, reminded: false });
      }
      cursor = history.response_metadata?.next_cursor || undefined;
      if (!history.has_more || !cursor) break;
    }
    for (const [siteId, record] of found) {
      if (now() - record.since >= reminderMs) record.reminded = await reminderPosted(client, record.thread, siteId);
    }
    return found;
  };
}

async function reminderPosted(client: webApi.WebClient, thread: { channel: string; ts: string }, siteId: string): Promise<boolean> {
  const replies = await client.conversations.replies({ channel: thread.channel, ts: thread.ts, include_all_metadata: true, limit: 1000 });
  return (replies.messages ?? []).some((m) => {
    const reminder = ReminderMetadata.safeParse(m.metadata);
    return reminder.success && reminder.data.event_payload.site_id === siteId;
  });
}

/**
 * After start-up: the pending links are rebuilt from UISP and Slack, then checked every
 * LINK_WATCH_INTERVAL_S. A failure to rebuild is logged; activations from now on are still watched.
 */
export async function resume(client: webApi.WebClient, deps: Pick<ListenerDeps, 'events' | 'auditChannelId' | 'logger'>, now: () => number = Date.now): Promise<void> {
  const { events, auditChannelId, logger } = deps;
  if (!events) return;
  try {
    const count = await events.links.rebuild(auditChannelId ? activationLookup(client, auditChannelId, events.settings.linkReminderMs, now) : undefined);
    if (count) logger.info({ pending: count }, 'manual CRM–NMS links still pending, watched again');
  } catch (error) {
    logger.warn({ err: errorSummary(error) }, 'could not rebuild the pending manual CRM–NMS links');
  }
  events.links.start(events.settings.linkWatchIntervalMs);
}
