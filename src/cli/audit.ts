/**
 * The CLI's audit trail: the same records as the Slack app's, naming the operating-system user and
 * "CLI". The record goes to stderr (stdout stays the command's output, so `--json` stays parseable):
 * a short human line when stderr is a terminal, else (or with --log-json) one pino JSON line with
 * `"audit":true`, whatever LOG_LEVEL says. When SLACK_BOT_TOKEN and AUDIT_CHANNEL_ID are set the record
 * is also posted to the audit channel, through the same Slack API base as the bot (SLACK_API_URL). A
 * Slack failure never fails the write: it is said in one line on stderr; with DATABASE_URL (the bot's
 * shared store) the record waits in the store and the bot posts it when Slack takes it. On the embedded
 * simulator nothing real changed: the record stays on stderr, marked simulated, and the team's audit
 * channel (and the digest read from it) never shows a simulated write.
 */
import { userInfo } from 'node:os';
import { loadAuditChannelConfig, sharedStoreSettings, simulatorRequested, type AuditChannelConfig, type SharedStoreSettings } from '../config.js';
import { Auditor, logAuditSink, type AuditActor, type AuditEntry, type AuditRecord, type AuditSink } from '../services/audit.js';
import type { FailureNote } from '../services/audit-records.js';
import { InputError } from '../services/errors.js';
import { changeNotice, UispError } from '../services/uisp/errors.js';
import { createLogger } from '../logging.js';
import { errorSummary } from '../slack/errors.js';
import { isTerminal } from '../process/io.js';
import { writeLine, writeText, type CliIo } from './io.js';

/**
 * What a failed write tells the audit trail; undefined for bad input, which stops before any write
 * (the Slack app draws the same line).
 */
export function auditedFailure(error: unknown): FailureNote | undefined {
  if (error instanceof InputError) return undefined;
  if (error instanceof UispError) return { message: error.message, changed: changeNotice(error) };
  return { message: 'unexpected error', changed: 'Check UISP: the change may or may not have been applied.' };
}

export interface CliAudit {
  record(entry: AuditEntry): Promise<void>;
}

/** The person at the terminal, as the operating system knows them. */
export function cliActor(env: CliIo['env']): AuditActor {
  let username: string | undefined;
  try {
    username = userInfo().username;
  } catch {
    // No passwd entry (some containers): fall back to what the shell says.
    username = env.USER ?? env.USERNAME;
  }
  return { via: 'cli', username: username || 'unknown' };
}

/** Reads the audit settings (a bad value is a ConfigError, exit 2) and wires the sinks. */
export async function openCliAudit(io: CliIo, logLevel: string): Promise<CliAudit> {
  const channel = loadAuditChannelConfig(io.env);
  const logger = createLogger(logLevel, io.stderr);
  const simulated = simulatorRequested(io.env);
  const sinks: AuditSink[] = [auditLineSink(io, simulated)];
  if (channel && simulated) writeLine(io.stderr, `Simulated: the audit record is not posted to Slack channel ${channel.channelId}; it is only on stderr.`);
  else if (channel) sinks.push(await slackSink(channel, logger, sharedStoreSettings(io.env), io));
  const auditor = new Auditor(sinks, (sink, error) => {
    if (sink !== 'slack') return;
    // Slack's error code (e.g. not_in_channel) or the transport's message: never the request, so never the token.
    const { slackError, message } = errorSummary(error);
    writeLine(io.stderr, `Warning: the audit record was not posted to Slack channel ${channel?.channelId} (${slackError ?? message}). The change itself stands; the audit line above is in the log.`);
  });
  const actor = cliActor(io.env);
  return { record: (entry) => auditor.record({ ...entry, actor }) };
}

/**
 * The audit record on stderr. A person at a terminal reads one short line; anything else (a file, a
 * log collector) gets the structured JSON line; on the simulator both say so. Its logger has a level of its own: LOG_LEVEL tunes the
 * diagnostics, never the audit trail.
 */
function auditLineSink(io: CliIo, simulated: boolean): AuditSink {
  if (isTerminal(io, 'stderr') && !io.logJson) return { name: 'log', write: (record) => writeText(io.stderr, auditLine(record, simulated)) };
  const logger = createLogger('info', io.stderr);
  return logAuditSink(simulated ? logger.child({ simulated: true }) : logger);
}

/** "Audit: suspend by alice (CLI): suspended", as the audit channel's message says it ("Audit (simulated): …" on the simulator). */
export function auditLine(record: AuditRecord, simulated = false): string {
  const who = record.actor.via === 'cli' ? `${record.actor.username} (CLI)` : record.actor.userId;
  return `Audit${simulated ? ' (simulated)' : ''}: ${record.action} by ${who}: ${record.result}`;
}

/**
 * The CLI's Slack Web API client for the audit channel. Bolt (and its WebClient) load only when the
 * audit channel is configured: most CLI runs never need them.
 */
export async function auditChannelClient(channel: AuditChannelConfig, logger: ReturnType<typeof createLogger>) {
  const [{ webApi }, { boltLogger }] = await Promise.all([import('@slack/bolt'), import('../slack/logging.js')]);
  return new webApi.WebClient(channel.botToken, {
    ...(channel.apiUrl && { slackApiUrl: `${channel.apiUrl}/` }),
    logger: boltLogger(logger),
    // A person is waiting at the terminal: a few quick retries, not the default half hour.
    retryConfig: { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2_000 },
    timeout: 10_000,
  });
}

async function slackSink(channel: AuditChannelConfig, logger: ReturnType<typeof createLogger>, shared: SharedStoreSettings | undefined, io: CliIo): Promise<AuditSink> {
  const [client, { slackAuditSink }] = await Promise.all([auditChannelClient(channel, logger), import('../slack/audit.js')]);
  const slack = slackAuditSink(client, channel.channelId);
  if (!shared) return slack;
  // In the store shared with the bot (the embedded one on this machine, or DATABASE_URL's): a record Slack does not take waits there, and the bot posts it.
  return {
    name: slack.name,
    async write(record) {
      try {
        await slack.write(record);
      } catch (error) {
        const { openStore } = await import('../store/index.js');
        const store = openStore(shared);
        try {
          await store.outbox.add(record, Date.now());
        } catch {
          throw error;
        } finally {
          await store.close();
        }
        const { slackError, message } = errorSummary(error);
        writeLine(io.stderr, `Note: Slack did not take the audit record (${slackError ?? message}); it is kept in SubOps' store (${shared.engine === 'postgres' ? 'DATABASE_URL' : shared.dir}) and the SubOps bot using that store posts it to channel ${channel.channelId} when Slack takes it.`);
      }
    },
  };
}
