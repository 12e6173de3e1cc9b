/**
 * The bot's seal on the records it posts to Slack (audit records, link reminders): an HMAC over the
 * message metadata, keyed with a secret only the bot's processes hold. Slack stamps the same bot_id on
 * everything posted with SLACK_BOT_TOKEN, and the CLI holds that token to post its own audit records: by
 * bot_id alone a record the CLI posts (or anyone with the token) is SubOps'. What a record decides
 * (a UISP change is SubOps' own and not reported; where "Linked in CRM" goes; whether a reminder was
 * posted; which Slack user acted) counts only with a seal that verifies.
 *
 * The key is derived from the bot's own Slack credential, which the CLI never reads: SLACK_SIGNING_SECRET
 * (required in HTTP mode), else SLACK_APP_TOKEN (Socket Mode). Every replica has the same one, so each
 * trusts the others' records. `sealed_at` (when the bot sealed it) is covered too: a sealed record posted
 * again later still says when it was made.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The metadata fields the seal adds. */
export const SEAL_FIELD = 'seal';
export const SEALED_AT_FIELD = 'sealed_at';

type Payload = Record<string, unknown>;
/** Message metadata's payload as SubOps writes it: flat facts. */
export type Facts = Record<string, string | number | boolean>;

export interface RecordSeal {
  /** The payload with `sealed_at` and `seal` added. */
  seal(eventType: string, payload: Facts, at: number): Facts;
  /** When a payload's seal verifies, the time it was sealed; undefined otherwise. */
  verify(eventType: string, payload: Payload): number | undefined;
}

/** Field order does not matter (Slack may hand the object back in another order); values as JSON. */
function canonical(eventType: string, payload: Payload): string {
  const fields = Object.keys(payload)
    .filter((key) => key !== SEAL_FIELD)
    .sort()
    .map((key) => [key, payload[key]]);
  return JSON.stringify([eventType, fields]);
}

export function recordSeal(secret: string): RecordSeal {
  // A key of its own, so the seal never doubles as a Slack request signature or a token.
  const key = createHmac('sha256', secret).update('subops record seal v1').digest();
  const mac = (eventType: string, payload: Payload) => createHmac('sha256', key).update(canonical(eventType, payload)).digest();
  return {
    seal(eventType, payload, at) {
      const stamped = { ...payload, [SEALED_AT_FIELD]: at };
      return { ...stamped, [SEAL_FIELD]: mac(eventType, stamped).toString('base64url') };
    },
    verify(eventType, payload) {
      const given = payload[SEAL_FIELD];
      const at = payload[SEALED_AT_FIELD];
      if (typeof given !== 'string' || typeof at !== 'number') return undefined;
      const expected = mac(eventType, payload);
      const actual = Buffer.from(given, 'base64url');
      return actual.length === expected.length && timingSafeEqual(actual, expected) ? at : undefined;
    },
  };
}

/** The bot's own secret: the signing secret, else the app token; none (the CLI) without either. Each use derives a key of its own from it. */
export function botSecretOf(slack: { signingSecret?: string | undefined; appToken?: string | undefined }): string | undefined {
  return slack.signingSecret || slack.appToken || undefined;
}

/** The bot's seal from its configuration; none (the CLI) without the bot's secret. */
export function sealOf(slack: { signingSecret?: string | undefined; appToken?: string | undefined }): RecordSeal | undefined {
  const secret = botSecretOf(slack);
  return secret ? recordSeal(secret) : undefined;
}
