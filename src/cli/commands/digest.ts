/** `subops digest`: the daily digest the bot posts to DIGEST_CHANNEL_ID, in the terminal. */
import { formatISO } from 'date-fns/formatISO';
import { parseISO } from 'date-fns/parseISO';
import { loadAuditChannelConfig, loadCoreConfig, type AuditChannelConfig } from '../../config.js';
import { connectCli } from '../connection.js';
import { createLogger } from '../../logging.js';
import { AUDIT_PARTS_MISSING, digestParts, digestTitle, quietDayLine, type DigestLine } from '../../render/digest.js';
import { daysBefore, todayIn } from '../../services/dates.js';
import type { Digest } from '../../services/digest/build.js';
import { readDigest, type AuditSource } from '../../services/digest/read.js';
import { errorSummary } from '../../slack/errors.js';
import { parseFlags } from '../args.js';
import { auditChannelClient } from '../audit.js';
import { EXIT, UsageError, writeLine, writeText, type CliIo } from '../io.js';
import { digestJson, errorJson, jsonLine } from '../json.js';

export const digestHelp = `Usage: subops digest [--date YYYY-MM-DD] [--json]

Prints the daily digest of a day in ISP_TIMEZONE (default: yesterday), as the bot posts it to
DIGEST_CHANNEL_ID: activations done, and failed and not retried since (with their threads);
suspensions and lifted suspensions; payments with their count and total per currency and per method;
sites still awaiting the manual CRM link; the day's outages (count, time down, customer-minutes lost);
late duplicates for a person to look at. Payments, sites and outages come from UISP; the rest from the audit channel, read with SLACK_BOT_TOKEN from AUDIT_CHANNEL_ID (without
both, those parts are left out and the output says so). --json prints one object (docs/cli.md: JSON output).
Exit 0 printed, 1 UISP or Slack could not be read, 2 bad input.`;

/** The audit channel could not be read: said in one line, exit 1. */
class AuditChannelUnreadable extends Error {}

export async function digest(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { date: { type: 'string' }, json: { type: 'boolean' } });
  if (values.help) return writeLine(io.stdout, digestHelp), EXIT.ok;
  const core = loadCoreConfig(io.env);
  const { timeZone } = core.activation;
  const date = values.date === undefined ? daysBefore(todayIn(timeZone), 1) : calendarDate(values.date);
  const channel = loadAuditChannelConfig(io.env);
  const connection = await connectCli(io, values.json ? 'json' : 'text');
  try {
    const audit = channel && (await auditChannel(channel, createLogger(core.logLevel, io.stderr)));
    const read = await readDigest({ crm: connection.services.crm, network: connection.services.network, outages: connection.services.outages, timeZone, audit }, date);
    if (!read.audit) writeText(io.stderr, AUDIT_PARTS_MISSING);
    if (values.json) writeLine(io.stdout, jsonLine(io, digestJson(read)));
    else writeText(io.stdout, ...digestLines(read));
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof AuditChannelUnreadable)) throw error;
    writeText(io.stderr, error.message);
    if (values.json) writeLine(io.stdout, jsonLine(io, errorJson([{ field: 'AUDIT_CHANNEL_ID', message: error.message }])));
    return EXIT.failed;
  } finally {
    await connection.close();
  }
}

/** A real calendar date written YYYY-MM-DD (2025-02-30 is not one). */
function calendarDate(value: string): string {
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(parseISO(value).getTime()) && formatISO(parseISO(value), { representation: 'date' }) === value;
  if (!valid) throw new UsageError(`--date must be YYYY-MM-DD, a calendar date (got "${value}")`, '--date');
  return value;
}

/** The digest as terminal lines: the title, then each part's heading and its lines, the thread link after each. */
function digestLines(read: Digest): string[] {
  const parts = digestParts(read);
  if (!parts.length) return [quietDayLine(read)];
  return [`${digestTitle(read)} (${read.timeZone})`, ...parts.flatMap((part) => ['', part.heading, ...part.lines.map(lineText)])];
}

function lineText({ text, by, permalink }: DigestLine): string {
  const who = !by ? '' : by.actorVia === 'uisp' ? ' — in UISP' : ` — by ${by.actor}${by.actorVia === 'cli' ? ' (CLI)' : ''}`;
  return `  ${text}${who}${permalink ? `  ${permalink}` : ''}`;
}

/**
 * The audit channel through the bot's token; auth.test names the bot whose messages count. Bolt's
 * WebClient and the Slack side load only here: most CLI runs never need them.
 */
async function auditChannel(channel: AuditChannelConfig, logger: ReturnType<typeof createLogger>): Promise<AuditSource> {
  const [client, { auditTrailSource }] = await Promise.all([auditChannelClient(channel, logger), import('../../slack/audit.js')]);
  const unreadable = (error: unknown) => {
    const { slackError, message } = errorSummary(error);
    return new AuditChannelUnreadable(`Could not read the audit channel ${channel.channelId} (${slackError ?? message}): check SLACK_BOT_TOKEN and that the bot is a member of AUDIT_CHANNEL_ID.`);
  };
  let identity;
  try {
    const auth = await client.auth.test();
    if (!auth.bot_id || !auth.user_id) throw new Error('SLACK_BOT_TOKEN is not a bot token');
    identity = { botId: auth.bot_id, botUserId: auth.user_id, appId: auth.app_id, workspaceUrl: auth.url };
  } catch (error) {
    throw unreadable(error);
  }
  const source = auditTrailSource(client, channel.channelId, identity);
  return async function* (from, to) {
    try {
      yield* source(from, to);
    } catch (error) {
      throw unreadable(error);
    }
  };
}
