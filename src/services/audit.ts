/**
 * The audit trail of every write (activation, suspend, unsuspend, payment, a late duplicate removed on
 * a person's click), wherever it comes from.
 * A front end records one AuditRecord per requested write; the Auditor hands it to every sink: a
 * structured log line always, and the Slack audit channel when one is configured. A sink that fails is
 * reported through `onSinkFailure`, never thrown: the write has already happened and was reported.
 */
import type { Logger } from 'pino';

export type AuditAction = 'activate' | 'suspend' | 'unsuspend' | 'payment' | 'remove-duplicate';

/** Who asked for the write: a Slack user, or an operating-system user running the CLI. */
export type AuditActor = { via: 'slack'; userId: string } | { via: 'cli'; username: string };

/** What happened, independent of who asked and where it is shown; built by ./audit-records.ts. */
export interface AuditEntry {
  action: AuditAction;
  /** Ids of what was acted on (device, client, service, site, payment…). */
  targets: Record<string, string | number>;
  /** e.g. activated, already-activated, failed, suspended, already-suspended, refused, recorded. */
  result: string;
  /** False when the request was not fulfilled (failed or refused). */
  ok: boolean;
  /** One sentence of plain text. */
  summary: string;
}

export interface AuditRecord extends AuditEntry {
  actor: AuditActor;
  /** A change that needed a second pair of eyes: the Slack user who approved it (the actor asked for it). */
  approvedBy?: string | undefined;
  /** Where the operation is shown (a Slack thread), when there is such a place. */
  permalink?: string | undefined;
  /** The same place as the front end names it (a channel and message ts), so the audit record can point back to it. */
  thread?: { channel: string; ts: string } | undefined;
}

export interface AuditSink {
  /** Names the sink in failure reports, e.g. "log" or "slack". */
  readonly name: string;
  write(record: AuditRecord): Promise<void> | void;
}

export type SinkFailureHandler = (sink: string, error: unknown, record: AuditRecord) => void;

export class Auditor {
  constructor(
    private readonly sinks: AuditSink[],
    private readonly onSinkFailure: SinkFailureHandler,
  ) {}

  async record(record: AuditRecord): Promise<void> {
    await Promise.all(
      this.sinks.map(async (sink) => {
        try {
          await sink.write(record);
        } catch (error) {
          this.onSinkFailure(sink.name, error, record);
        }
      }),
    );
  }
}

/** The structured line every audit record produces: `audit: true`, actor, action, targets, result, ok, link. */
export function logAuditSink(logger: Logger): AuditSink {
  return {
    name: 'log',
    write(record) {
      const { actor, action, targets, result, ok, permalink, summary, approvedBy } = record;
      const who = actor.via === 'slack' ? { via: 'slack', actor: actor.userId } : { via: 'cli', actor: actor.username };
      logger.info({ audit: true, ...who, action, targets, result, ok, ...(approvedBy && { approvedBy }), ...(permalink && { permalink }) }, summary);
    },
  };
}
