/**
 * The manual CRM–NMS link, watched (src/services/events/link-watch.ts), in Slack: "✅ Linked in CRM" in
 * the activation's thread and on its parent message, the one reminder in the thread, or both in the
 * audit channel when the thread is unknown. After a restart, `resume` finds each pending site's thread
 * again in the metadata of the activation's audit message, and whether its reminder was already posted.
 * Only what SubOps wrote counts (src/slack/audit-trail.ts): an audit message, a thread parent or a
 * reminder posted by another app, or by a person, is passed over, so none of them can send "Linked in
 * CRM" to a thread of their choosing or hold a reminder back. The audit message and the reminder must
 * carry the bot's seal (src/slack/record-seal.ts), so neither can a message posted with the bot token by
 * the CLI (or anyone else holding the token).
 */
import type { App, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { ActivationLookup, ActivationRecord, LinkEvent } from '../../services/events/link-watch.js';
import { writtenBySubOps } from '../../slack/audit-trail.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { errorSummary } from '../../slack/errors.js';
import type { BotIdentity } from '../../slack/startup.js';
import { AUDIT_EVENT_TYPE } from '../../views/audit.js';
import { BLOCK } from '../../views/ids.js';
import type { Block, SlackMessage } from '../../views/kit.js';
import { LINK_REMINDER_EVENT_TYPE, linkedParent, linkedReply, linkReminder } from '../../views/link-watch.js';

export function register(app: App, deps: ListenerDeps): void {
  const { events, auditChannelId, logger, identity } = deps;
  if (!events) return;
  const log = logger.child({ flow: 'link-watch' });
  const reminderHours = events.settings.linkReminderMs / 3_600_000;

  events.links.subscribe(async (event: LinkEvent) => {
    const { thread } = event.link;
    const msg = event.kind === 'linked' ? linkedReply(event) : sealedReminder(linkReminder(event.link, reminderHours), identity);
    const channel = thread?.channel ?? auditChannelId;
    if (!channel) {
      log.info({ siteId: event.link.siteId, kind: event.kind }, 'manual CRM–NMS link event with nowhere to post it');
      return;
    }
    await app.client.chat.postMessage({ channel, ...msg, ...(thread && { thread_ts: thread.ts }), unfurl_links: false });
    if (event.kind === 'linked' && thread) await markParentLinked(app.client, thread, identity, log);
  });
}

/** The reminder with the bot's seal on its metadata: after a restart, only a sealed one counts as posted. */
function sealedReminder(reminder: ReturnType<typeof linkReminder>, self: BotIdentity): ReturnType<typeof linkReminder> {
  const { metadata } = reminder;
  return self.seal ? { ...reminder, metadata: { ...metadata, event_payload: self.seal.seal(metadata.event_type, metadata.event_payload, Date.now()) as Record<string, string> } } : reminder;
}

/** Whether the bot sealed this metadata (an audit record or a reminder). */
const sealedByBot = (metadata: { event_type: string; event_payload: Record<string, unknown> }, self: BotIdentity): boolean => self.seal?.verify(metadata.event_type, metadata.event_payload) !== undefined;

/** Adds "Linked in CRM" under the activation's parent message, as it reads now (only a message SubOps wrote). */
async function markParentLinked(client: webApi.WebClient, thread: { channel: string; ts: string }, self: BotIdentity, log: Logger): Promise<void> {
  try {
    const history = await client.conversations.history({ channel: thread.channel, latest: thread.ts, inclusive: true, limit: 1 });
    const parent = history.messages?.find((m) => m.ts === thread.ts);
    if (!parent) return log.warn({ thread }, 'the activation message is gone: not updated');
    if (!writtenBySubOps(parent, self)) return log.warn({ thread }, 'the thread is not one SubOps started: its parent message is not updated');
    // An install sheet's thread holds many links: each is said in the thread, the parent stays the sheet's counts.
    if ((parent.blocks ?? []).some((block) => block.block_id === BLOCK.sheetParent)) return;
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
 * Reads the audit channel, newest first, for the activation audit messages SubOps wrote about these
 * sites: each one's thread and time; and, for those past the reminder time, whether the thread already
 * has SubOps' reminder. A thread whose parent SubOps did not write is not followed (the site is still
 * watched; its events go to the audit channel).
 */
export function activationLookup(client: webApi.WebClient, auditChannelId: string, self: BotIdentity, reminderMs: number, now: () => number = Date.now): ActivationLookup {
  return async (siteIds) => {
    const wanted = new Set(siteIds);
    const found = new Map<string, ActivationRecord>();
    let cursor: string | undefined;
    for (let page = 0; page < LOOKBACK_PAGES && found.size < wanted.size; page++) {
      const history = await client.conversations.history({ channel: auditChannelId, include_all_metadata: true, limit: 200, ...(cursor && { cursor }) });
      for (const message of history.messages ?? []) {
        const audit = ActivationAuditMetadata.safeParse(message.metadata);
        if (!audit.success || !writtenBySubOps(message, self) || !sealedByBot(audit.data, self)) continue;
        const { siteId, thread_channel: channel, thread_ts: ts } = audit.data.event_payload;
        if (!wanted.has(siteId) || found.has(siteId)) continue;
        found.set(siteId, { thread: { channel, ts }, since: Number(message.ts) * 1000, reminded: false });
      }
      cursor = history.response_metadata?.next_cursor || undefined;
      if (!history.has_more || !cursor) break;
    }
    for (const [siteId, record] of [...found]) {
      const [parent, ...replies] = await threadOf(client, record.thread);
      if (parent?.ts !== record.thread.ts || !writtenBySubOps(parent, self)) {
        found.delete(siteId);
        continue;
      }
      if (now() - record.since >= reminderMs) record.reminded = replies.some((m) => writtenBySubOps(m, self) && remindsOf(m.metadata, siteId, self));
    }
    return found;
  };
}

/** The thread's messages, parent first; none when its parent is gone (a deleted activation message). */
async function threadOf(client: webApi.WebClient, thread: { channel: string; ts: string }) {
  try {
    return (await client.conversations.replies({ channel: thread.channel, ts: thread.ts, include_all_metadata: true, limit: 1000 })).messages ?? [];
  } catch (error) {
    if (errorSummary(error).slackError === 'thread_not_found') return [];
    throw error;
  }
}

function remindsOf(metadata: unknown, siteId: string, self: BotIdentity): boolean {
  const reminder = ReminderMetadata.safeParse(metadata);
  return reminder.success && reminder.data.event_payload.site_id === siteId && sealedByBot(reminder.data, self);
}

/**
 * After start-up: the pending links are rebuilt from UISP and Slack, then checked every
 * LINK_WATCH_INTERVAL_S. A failure to rebuild is logged; activations from now on are still watched.
 * `identity`: SubOps in Slack, as checked at start, with the bot's seal.
 */
export async function resume(client: webApi.WebClient, deps: Pick<ListenerDeps, 'events' | 'auditChannelId' | 'logger' | 'identity'>, now: () => number = Date.now): Promise<void> {
  const { events, auditChannelId, logger } = deps;
  if (!events) return;
  const reminderMs = events.settings.linkReminderMs;
  // Read only when a pending site needs its thread; a failure leaves the links watched without one.
  const lookup: ActivationLookup | undefined = auditChannelId ? activationLookup(client, auditChannelId, deps.identity, reminderMs, now) : undefined;
  try {
    const count = await events.links.rebuild(lookup);
    if (count) logger.info({ pending: count }, 'manual CRM–NMS links still pending, watched again');
  } catch (error) {
    logger.warn({ err: errorSummary(error) }, 'could not rebuild the pending manual CRM–NMS links');
  }
  events.links.start(events.settings.linkWatchIntervalMs);
}
