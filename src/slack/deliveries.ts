/**
 * Each Slack delivery acts once. Slack redelivers events and commands it thinks were lost
 * (`x-slack-retry-num`, `context.retryNum` in Bolt), an agent double-clicks a button, and a form whose
 * ack was slow gets submitted again with the same values. A delivery is keyed on what makes it the same
 * request — not on its timestamps, which differ between two clicks — and the first one to arrive claims
 * the key; later ones get the first one's answer or an "already done" one, and never run the write.
 *
 * Keys of commands, forms and buttons live in memory for `ttlMs`: their repeats come from one agent's
 * client within seconds, and across replicas the writes themselves converge in the services layer. An
 * Events API delivery Slack retries (`x-slack-retry-num`) may reach any replica: its event id is claimed
 * in the store, so one of them answers it.
 */
import { createHash } from 'node:crypto';
import type { AllMiddlewareArgs, AnyMiddlewareArgs, BlockButtonAction, Middleware, SlackActionMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { Logger } from 'pino';
import { alreadyPressedMessage, alreadySubmittedModal } from '../views/process.js';
import type { ClaimLedger } from '../store/index.js';

interface Claim {
  /** What the first delivery acked with (undefined: an empty ack). */
  acked: Promise<unknown>;
}

export interface DeliveryLogOptions {
  ttlMs?: number;
  /** Oldest keys are forgotten first past this many. */
  maxKeys?: number;
  now?: () => number;
}

export class DeliveryLog {
  private readonly claims = new Map<string, Claim & { expiresAt: number }>();
  private readonly ttlMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor({ ttlMs = 15 * 60_000, maxKeys = 10_000, now = Date.now }: DeliveryLogOptions = {}) {
    this.ttlMs = ttlMs;
    this.maxKeys = maxKeys;
    this.now = now;
  }

  /**
   * The first call for a key claims it and returns a `settle` function to record its ack; later calls
   * (until the key expires) return the first one's claim instead.
   */
  claim(key: string): { first: true; settle: (ack: unknown) => void } | { first: false; earlier: Claim } {
    this.forgetExpired();
    const earlier = this.claims.get(key);
    if (earlier) return { first: false, earlier };
    let settle!: (ack: unknown) => void;
    const acked = new Promise<unknown>((resolve) => (settle = resolve));
    this.claims.set(key, { acked, expiresAt: this.now() + this.ttlMs });
    if (this.claims.size > this.maxKeys) this.claims.delete(this.claims.keys().next().value!);
    return { first: true, settle };
  }

  private forgetExpired(): void {
    const now = this.now();
    // Insertion order is expiry order (one ttl for all), so the scan stops at the first live key.
    for (const [key, claim] of this.claims) {
      if (claim.expiresAt > now) break;
      this.claims.delete(key);
    }
  }
}

/** Order-independent digest of a JSON value: the same values submitted twice hash the same. */
function digest(value: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, canonical(x)])) : v;
  return createHash('sha256').update(JSON.stringify(canonical(value) ?? null)).digest('base64url').slice(0, 22);
}

type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;
/** The part of the listeners' deps these wrappers use. */
interface OnceDeps {
  deliveries: DeliveryLog;
  logger: Logger;
}
type ButtonArgs = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;

/**
 * A view submission that writes, acted on once per view version and values. The view's hash is part of
 * the key: after the app updates the form (a problem shown under a field) the same values may be
 * submitted again and are a new request. A duplicate gets the first one's answer when that was field
 * errors or closing the modal; otherwise an "already submitted" notice pushed on top of whatever the
 * first one has shown since (a confirmation, progress), which closing brings back.
 */
export function onceView({ deliveries, logger }: OnceDeps, listener: (args: ViewArgs) => Promise<void>): (args: ViewArgs) => Promise<void> {
  return async (args) => {
    const { view } = args;
    const key = `view:${view.id}:${view.hash}:${digest(view.state.values)}`;
    const claim = deliveries.claim(key);
    if (!claim.first) {
      const earlier = (await claim.earlier.acked) as { response_action?: string } | undefined;
      logger.info({ viewId: view.id, callbackId: view.callback_id, userId: args.body.user.id }, 'ignored a repeated submission of a form');
      if (earlier === undefined || earlier.response_action === 'errors') await args.ack(earlier as Parameters<ViewArgs['ack']>[0]);
      else await args.ack({ response_action: 'push', view: alreadySubmittedModal() });
      return;
    }
    const ack = async (response?: Parameters<ViewArgs['ack']>[0]) => {
      claim.settle(response);
      await args.ack(response);
    };
    try {
      await listener({ ...args, ack });
    } finally {
      // A listener that failed before acking: duplicates get the same (empty) answer, and run nothing.
      claim.settle(undefined);
    }
  };
}

/**
 * A button that writes, acted on once per button instance: the message (or view) it sits in, its
 * action and block id and value. Two clicks of the same button carry different action_ts, so the
 * timestamp is deliberately not part of the key. A repeat gets an ephemeral "already pressed".
 */
export function onceButton({ deliveries, logger }: OnceDeps, listener: (args: ButtonArgs) => Promise<void>): (args: ButtonArgs) => Promise<void> {
  return async (args) => {
    const { body, action } = args;
    const container = body.container as { message_ts?: string; view_id?: string } | undefined;
    const where = container?.message_ts ?? body.message?.ts ?? container?.view_id ?? body.view?.id ?? '';
    const claim = deliveries.claim(`button:${where}:${action.block_id}:${action.action_id}:${digest(action.value ?? null)}`);
    if (claim.first) {
      claim.settle(undefined);
      await listener(args);
      return;
    }
    await args.ack();
    logger.info({ actionId: action.action_id, messageTs: where, userId: body.user.id }, 'ignored a repeated press of a button');
    try {
      await args.respond({ response_type: 'ephemeral', replace_original: false, ...alreadyPressedMessage() });
    } catch (error) {
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not tell the agent the button was already pressed');
    }
  };
}

interface RedeliveryBody {
  type?: string;
  command?: string;
  trigger_id?: string;
  event_id?: string;
}

/** How long an Events API event id is remembered: Slack retries within minutes. */
const EVENT_KEEP_MS = 24 * 3_600_000;

/**
 * Global middleware for Slack's own redeliveries: a slash command is one trigger id (remembered here),
 * an Events API event one event id (claimed in the store: the retry may reach another replica). A repeat
 * is acked empty and runs nothing: the first delivery's answer is already on its way. Without the store
 * the event is acted on (a second answer is better than none) and the failure logged.
 */
export function dropRedeliveries(deliveries: DeliveryLog, claims: ClaimLedger, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const body = args.body as RedeliveryBody;
    const ignore = async (kind: string) => {
      logger.info({ kind, retryNum: args.context.retryNum, retryReason: args.context.retryReason }, 'ignored a repeated delivery from Slack');
      if ('ack' in args) await (args.ack as () => Promise<void>)();
    };
    if (body.type === 'event_callback' && body.event_id) {
      try {
        const claimed = await claims.claim(`slack-event:${body.event_id}`);
        if (!claimed.won) return ignore('event');
        await claimed.claim.done(EVENT_KEEP_MS);
      } catch (error) {
        logger.warn({ err: error instanceof Error ? error.message : String(error), eventId: body.event_id }, 'could not claim a Slack event in the store: acted on without knowing whether another replica did');
      }
      return args.next();
    }
    const claim = body.command && body.trigger_id ? deliveries.claim(`command:${body.trigger_id}`) : undefined;
    if (claim && !claim.first) return ignore('command');
    claim?.settle(undefined);
    await args.next();
  };
}
