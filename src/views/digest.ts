/**
 * The daily digest's message in the digest channel: a header, then one section per part with a line per
 * item (who did it, and a link to its thread), or a single line on a quiet day. The metadata names the
 * day (processes agree that it is posted once through the store: src/slack/digest.ts).
 */
import type { Digest } from '../services/digest/build.js';
import { AUDIT_PARTS_MISSING, digestParts, digestTitle, quietDayLine, type DigestLine } from '../render/digest.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { link, mention } from './format.js';
import { context, header, message, section, sections, type Block, type SlackMessage } from './kit.js';

/** Metadata event type of the digest message; its payload is the date. */
export const DIGEST_EVENT_TYPE = 'subops_digest';

export function digestMessage(digest: Digest): SlackMessage {
  const parts = digestParts(digest);
  const missing: Block[] = digest.audit ? [] : [context(escapeMrkdwn(AUDIT_PARTS_MISSING))];
  if (!parts.length) {
    const quiet = `:zzz: ${escapeMrkdwn(quietDayLine(digest))}`;
    return message(quiet, [section(quiet), ...missing]);
  }
  const title = digestTitle(digest);
  return message(title, [header(title), ...parts.flatMap((part) => sections(`*${escapeMrkdwn(part.heading)}*`, part.lines.map(lineText))), ...missing]);
}

function lineText({ text, by, permalink }: DigestLine): string {
  const who = !by ? '' : by.actorVia === 'uisp' ? ' — in UISP' : ` — ${by.actorVia === 'slack' ? mention(by.actor) : `${escapeMrkdwn(by.actor)} (CLI)`}`;
  return `• ${escapeMrkdwn(text)}${who}${permalink ? ` · ${link(permalink, 'thread')}` : ''}`;
}
