/**
 * Outages in Slack (issue #40): the outage watch's reports (src/services/events/outage-watch.ts) as one
 * thread per outage in the outages channel (OUTAGES_CHANNEL_ID, else the audit channel), and what people
 * do on it: **Acknowledge** (once: "@lead is on it" on the parent), **Add update** (a note in the thread,
 * its last one on the parent) and **Show all** (every affected customer, read from UISP now, privately).
 *
 * The parent message is the outage's record: its metadata holds the outage and its state, sealed by the
 * bot. Every change reads the parent again, believes it only when SubOps wrote it and its seal verifies,
 * and redraws it under a lock in the store (`outage-parent:<ts>`), so an acknowledgement and a recovery
 * landing together both show. Each acknowledgement and each update is claimed in the store before it is
 * posted: a second press, or a redelivery to another replica, posts nothing.
 */
import type { App, BlockButtonAction, ViewSubmitAction, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { OpenOutageLookup, OutageEvent, OutageReporter } from '../../services/events/outage-watch.js';
import type { ThreadRef } from '../../services/events/link-watch.js';
import { SharedLocks } from '../../services/shared-locks.js';
import { ownMessages, writtenBySubOps } from '../../slack/audit-trail.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { errorSummary } from '../../slack/errors.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import { readMetadata } from '../../slack/metadata.js';
import type { BotIdentity } from '../../slack/startup.js';
import { notice } from '../../views/help.js';
import type { Block, SlackMessage } from '../../views/kit.js';
import {
  acknowledgedReply,
  everyAffected,
  flappingMessage,
  OUTAGE_ACTIONS,
  OUTAGE_EVENT_TYPE,
  OUTAGE_NOTE_BLOCK,
  OUTAGE_NOTE_MAX,
  OUTAGE_UPDATE_VIEW,
  outageOfState,
  outageParent,
  recoveredReply,
  redrawnParent,
  stateFacts,
  updateModal,
  updateReply,
  type OutageState,
} from '../../views/outages.js';

/** How long an acknowledgement or an update is remembered as posted. */
const KEEP_MS = 90 * 24 * 3_600_000;
/** How many pages of the outages channel a takeover reads for the outages still open. */
const LOOKBACK_PAGES = 10;

const StateFacts = z
  .looseObject({
    key: z.string(),
    site_id: z.string(),
    site_name: z.string(),
    site_kind: z.enum(['infrastructure', 'customer']),
    device_name: z.string(),
    since: z.string(),
    devices_down: z.number(),
    affected: z.number(),
    ack_by: z.string().optional(),
    ack_at: z.number().optional(),
    update_by: z.string().optional(),
    update_at: z.number().optional(),
    update_note: z.string().optional(),
    ended_at: z.string().optional(),
    end_known: z.boolean().optional(),
  })
  .transform(
    (f): OutageState => ({
      key: f.key,
      siteId: f.site_id,
      siteName: f.site_name,
      siteKind: f.site_kind,
      deviceName: f.device_name,
      since: f.since,
      devicesDown: f.devices_down,
      affectedCount: f.affected,
      ...(f.ack_by && { acknowledgedBy: f.ack_by, acknowledgedAt: f.ack_at ?? 0 }),
      ...(f.update_by && f.update_note && { update: { by: f.update_by, at: f.update_at ?? 0, note: f.update_note } }),
      ...(f.ended_at && { ended: { at: f.ended_at, known: f.end_known ?? true } }),
    }),
  );

const ThreadRefSchema = z.object({ channel: z.string(), ts: z.string() });

/** A state's metadata, sealed by the bot (a process without the seal writes it unsealed: it then counts for nobody). */
function metadataOf(state: OutageState, self: BotIdentity, now: number) {
  const facts = stateFacts(state);
  return { event_type: OUTAGE_EVENT_TYPE, event_payload: self.seal ? self.seal.seal(OUTAGE_EVENT_TYPE, facts, now) : facts };
}

/** The state in a message's metadata, when SubOps wrote the message and sealed it; else undefined. */
function stateOf(message: { metadata?: { event_type?: string; event_payload?: unknown } | undefined; bot_id?: string; app_id?: string }, self: BotIdentity): OutageState | undefined {
  const metadata = message.metadata;
  if (metadata?.event_type !== OUTAGE_EVENT_TYPE || !writtenBySubOps(message, self)) return undefined;
  const payload = (metadata.event_payload ?? {}) as Record<string, unknown>;
  if (self.seal?.verify(OUTAGE_EVENT_TYPE, payload) === undefined) return undefined;
  const parsed = StateFacts.safeParse(payload);
  return parsed.success ? parsed.data : undefined;
}

/** Reads an outage's parent message and redraws it with a change to its state, one change at a time. */
class OutageParents {
  private readonly locks: SharedLocks;

  constructor(
    private readonly client: webApi.WebClient,
    private readonly self: BotIdentity,
    deps: Pick<ListenerDeps, 'store'>,
    private readonly now: () => number = Date.now,
  ) {
    this.locks = new SharedLocks({ claims: deps.store.claims });
  }

  /** The parent as it reads now, when it is an outage SubOps posted. */
  async read(at: ThreadRef): Promise<{ state: OutageState; blocks: Block[]; text: string } | undefined> {
    const history = await this.client.conversations.history({ channel: at.channel, latest: at.ts, inclusive: true, limit: 1, include_all_metadata: true });
    const parent = history.messages?.find((m) => m.ts === at.ts);
    const state = parent && stateOf(parent, this.self);
    return state && { state, blocks: (parent.blocks ?? []) as Block[], text: parent.text ?? 'Outage' };
  }

  /**
   * Applies `change` to the parent's state and redraws it; `change` returns undefined to leave it as it is.
   * Returns the state before the change, or undefined when the message is not an outage SubOps posted.
   */
  async change(at: ThreadRef, change: (state: OutageState) => OutageState | undefined): Promise<OutageState | undefined> {
    const hold = await this.locks.acquire([`outage-parent:${at.channel}:${at.ts}`]);
    try {
      const parent = await this.read(at);
      if (!parent) return undefined;
      const changed = change(parent.state);
      if (changed) await this.client.chat.update({ channel: at.channel, ts: at.ts, text: parent.text, blocks: redrawnParent(parent.blocks, changed), metadata: metadataOf(changed, this.self, this.now()) });
      return parent.state;
    } finally {
      hold.release();
    }
  }
}

export function register(app: App, deps: ListenerDeps): void {
  const watch = deps.events?.outages;
  if (!watch) return;
  const channel = deps.events!.settings.outagesChannelId ?? deps.auditChannelId;
  const log = deps.logger.child({ flow: 'outages' });
  const parents = new OutageParents(app.client, deps.identity, deps);
  if (channel) watch.reportTo(outageReporter(app.client, channel, deps.identity, parents, log), openOutages(app.client, channel, deps.identity));
  else log.warn('OUTAGES_CHANNEL_ID and AUDIT_CHANNEL_ID are unset: outages are not watched nor posted (Home, the cards and `subops outages` still show them)');

  const tell = async (respond: (m: object) => Promise<unknown>, text: string) => {
    try {
      await respond({ response_type: 'ephemeral', replace_original: false, ...notice(text) });
    } catch (error) {
      log.warn({ err: errorSummary(error) }, 'could not answer the agent privately');
    }
  };
  const parentOf = (body: BlockButtonAction): ThreadRef | undefined => (body.channel?.id && body.message?.ts ? { channel: body.channel.id, ts: body.message.ts } : undefined);

  app.action<BlockButtonAction>(OUTAGE_ACTIONS.acknowledge, async ({ ack, body, respond }) => {
    await ack();
    const at = parentOf(body);
    if (!at) return;
    const userId = body.user.id;
    const claimed = await deps.store.claims.claim(`outage-ack:${at.channel}:${at.ts}`).catch((error: unknown) => {
      log.warn({ err: errorSummary(error) }, "could not claim an acknowledgement in SubOps' store");
      return undefined;
    });
    if (!claimed) return tell(respond, "SubOps' store did not answer: nothing was acknowledged. Press Acknowledge again in a moment.");
    if (!claimed.won) return tell(respond, 'This outage is already acknowledged: the message shows by whom.');
    try {
      const before = await parents.change(at, (state) => (state.ended ? undefined : { ...state, acknowledgedBy: userId, acknowledgedAt: Date.now() }));
      if (!before) {
        await claimed.claim.release();
        return tell(respond, 'This message is not an outage SubOps posted: nothing was acknowledged.');
      }
      if (before.ended) {
        await claimed.claim.release();
        return tell(respond, 'This outage is already over: nothing to acknowledge.');
      }
      await app.client.chat.postMessage({ channel: at.channel, thread_ts: at.ts, ...acknowledgedReply(userId) });
      await claimed.claim.done(KEEP_MS);
    } catch (error) {
      await claimed.claim.release().catch(() => undefined);
      log.warn({ err: errorSummary(error) }, 'could not acknowledge an outage');
      await tell(respond, 'Slack did not take the acknowledgement: press Acknowledge again.');
    }
  });

  app.action<BlockButtonAction>(OUTAGE_ACTIONS.update, async ({ ack, body, client }) => {
    await ack();
    const at = parentOf(body);
    if (!at) return;
    await client.views.open({ trigger_id: body.trigger_id, view: updateModal(JSON.stringify(at)) });
  });

  app.view<ViewSubmitAction>(OUTAGE_UPDATE_VIEW, async ({ ack, body, view }) => {
    const note = (view.state.values[OUTAGE_NOTE_BLOCK]?.['value']?.value ?? '').trim();
    if (!note) return ack({ response_action: 'errors', errors: { [OUTAGE_NOTE_BLOCK]: 'Write the update: it is posted in the outage thread.' } });
    if (note.length > OUTAGE_NOTE_MAX) return ack({ response_action: 'errors', errors: { [OUTAGE_NOTE_BLOCK]: `At most ${OUTAGE_NOTE_MAX} characters.` } });
    await ack();
    const at = readMetadata(ThreadRefSchema, view.private_metadata);
    if (!at) return;
    const userId = body.user.id;
    const claimed = await deps.store.claims.claim(`outage-update:${view.id}`).catch((error: unknown) => {
      log.warn({ err: errorSummary(error) }, "could not claim an outage update in SubOps' store");
      return undefined;
    });
    if (!claimed) return void (await app.client.chat.postEphemeral({ channel: at.channel, user: userId, ...notice(`SubOps' store did not answer: the update was not posted. Your note: ${escapeMrkdwn(note)}`) }).catch(() => undefined));
    if (!claimed.won) return;
    try {
      const before = await parents.change(at, (state) => ({ ...state, update: { by: userId, at: Date.now(), note } }));
      if (!before) {
        await claimed.claim.done(KEEP_MS);
        return void (await app.client.chat.postEphemeral({ channel: at.channel, user: userId, ...notice('That message is not an outage SubOps posted: the update was not posted.') }));
      }
      await app.client.chat.postMessage({ channel: at.channel, thread_ts: at.ts, ...updateReply(userId, note) });
      await claimed.claim.done(KEEP_MS);
    } catch (error) {
      await claimed.claim.release().catch(() => undefined);
      log.warn({ err: errorSummary(error) }, 'could not post an outage update');
      await app.client.chat.postEphemeral({ channel: at.channel, user: userId, ...notice(`Slack did not take the update; it was not posted. Your note: ${escapeMrkdwn(note)}`) }).catch(() => undefined);
    }
  });

  app.action<BlockButtonAction>(OUTAGE_ACTIONS.showAll, async ({ ack, body, respond }) => {
    await ack();
    const at = parentOf(body);
    if (!at) return;
    try {
      const parent = await parents.read(at);
      if (!parent) return tell(respond, 'This message is not an outage SubOps posted.');
      const [outage] = await deps.services.outages.withAffected([outageOfState(parent.state)]);
      await respond({ response_type: 'ephemeral', replace_original: false, ...everyAffected(outage!) });
    } catch (error) {
      log.warn({ err: errorSummary(error) }, 'could not list the customers an outage affects');
      await tell(respond, 'Could not read UISP for the customers affected: try again in a moment.');
    }
  });
}

/** What the watch reports, posted: a thread per outage, its recovery in it, flapping on its own. */
function outageReporter(client: webApi.WebClient, channel: string, self: BotIdentity, parents: OutageParents, log: Logger): OutageReporter {
  const post = async (message: SlackMessage & { metadata?: object }, thread?: ThreadRef) => client.chat.postMessage({ channel: thread?.channel ?? channel, ...message, ...(thread && { thread_ts: thread.ts }), unfurl_links: false });
  return async (event: OutageEvent) => {
    switch (event.kind) {
      case 'began': {
        const { message, state } = outageParent(event.key, event.outage);
        const posted = await post({ ...message, metadata: metadataOf(state, self, Date.now()) });
        return posted.ts ? { channel: posted.channel ?? channel, ts: posted.ts } : null;
      }
      case 'ended': {
        if (!event.thread) {
          await post(recoveredReply(event, false));
          return null;
        }
        await post(recoveredReply(event, true), event.thread);
        try {
          await parents.change(event.thread, (state) => ({ ...state, ended: { at: event.end, known: event.endKnown } }));
        } catch (error) {
          log.warn({ err: errorSummary(error), key: event.key }, 'could not mark the outage message as back up');
        }
        return null;
      }
      case 'flapping':
        await post(flappingMessage(event));
        return null;
    }
  };
}

/** The outages SubOps posted in the channel and did not mark back up: the watch's open outages after a takeover. */
function openOutages(client: webApi.WebClient, channel: string, self: BotIdentity): OpenOutageLookup {
  return async () => {
    const found = new Map<string, Awaited<ReturnType<OpenOutageLookup>>[number]>();
    const closed = new Set<string>();
    for await (const message of ownMessages(client, channel, self, [OUTAGE_EVENT_TYPE], { pages: LOOKBACK_PAGES })) {
      if (message.sealedAt === undefined) continue;
      const parsed = StateFacts.safeParse(message.payload);
      if (!parsed.success) continue;
      const state = parsed.data;
      if (state.ended) closed.add(state.key);
      else if (!closed.has(state.key) && !found.has(state.key)) found.set(state.key, { key: state.key, outage: outageOfState(state), thread: { channel, ts: message.ts } });
    }
    return [...found.values()];
  };
}
