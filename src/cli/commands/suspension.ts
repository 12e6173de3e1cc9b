/**
 * `subops suspend` and `subops unsuspend`: one flow, two actions. The services layer reads the service
 * and decides: write, already so / nothing to lift (exit 0, nothing written), or refused (exit 1,
 * nothing written). A write needs confirmation, as the Slack form's confirm step: on a terminal the
 * service is shown and asked about (y/N); elsewhere `--yes` confirms, and without it nothing is written
 * (exit 1). The services read the service again right before writing. Every attempt that reached UISP
 * is audited. Lifting uses cancel-suspend.
 */
import { suspensionAudit, suspensionFailureAudit } from '../../services/audit-records.js';
import type { SuspensionAction, SuspensionOutcome, SuspensionService } from '../../services/suspensions.js';
import { clientDisplayName } from '../../services/uisp/client-name.js';
import type { Service, SuspensionReason } from '../../services/uisp/schemas.js';
import { connectCli } from '../connection.js';
import { readId, readIdOrName } from '../../services/input/grammar.js';
import { canAsk } from '../../process/io.js';
import { YES_FLAG } from '../../process/flags.js';
import { confirm } from '../../process/prompt.js';
import { flagValue, parseFlags } from '../args.js';
import { auditedFailure, openCliAudit } from '../audit.js';
import { EXIT, writeLine, writeText, type CliIo } from '../io.js';
import { errorJson, jsonLine, suspensionJson, type StatusLabeller } from '../json.js';

export const suspendHelp = `Usage: subops suspend --service-id <id> --reason <id or name> [--yes] [--json]

Suspends an Active CRM service for a suspension reason (see \`subops reasons\`). A service that is
already suspended is left alone (exit 0); one that is not Active (Quoted, Obsolete…) is refused
(exit 1). Nothing is written in either case.

On a terminal the service (client, status, reason) is shown and you are asked to confirm (y/N);
elsewhere (a script, a pipe) --yes confirms, and without it nothing is written (exit 1). The
service is read again right before the write.

  --yes    suspend without being asked
  --json   one object: the action, the outcome, the service before and after (docs/cli.md: JSON output)`;

export const unsuspendHelp = `Usage: subops unsuspend --service-id <id> [--yes] [--json]

Lifts a service's suspension (UISP's cancel-suspend). A service that is not suspended is left
alone (exit 0, nothing written).

On a terminal the service is shown and you are asked to confirm (y/N); elsewhere --yes confirms,
and without it nothing is written (exit 1).

  --yes    lift the suspension without being asked
  --json   one object: the action, the outcome, the service before and after (docs/cli.md: JSON output)`;

export async function suspend(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { 'service-id': { type: 'string' }, reason: { type: 'string' }, json: { type: 'boolean' }, ...YES_FLAG });
  if (values.help) return writeLine(io.stdout, suspendHelp), EXIT.ok;
  const serviceId = flagValue('--service-id', readId(values['service-id'], 'Service id'));
  const reasonText = flagValue('--reason', readIdOrName(values.reason, 'Suspension reason'));
  return run(io, { action: 'suspend', serviceId, json: values.json ?? false, yes: values.yes ?? false, reasonText });
}

export async function unsuspend(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { 'service-id': { type: 'string' }, json: { type: 'boolean' }, ...YES_FLAG });
  if (values.help) return writeLine(io.stdout, unsuspendHelp), EXIT.ok;
  const serviceId = flagValue('--service-id', readId(values['service-id'], 'Service id'));
  return run(io, { action: 'unsuspend', serviceId, json: values.json ?? false, yes: values.yes ?? false });
}

interface SuspensionRequest {
  action: SuspensionAction;
  serviceId: number;
  json: boolean;
  /** --yes: confirmed without being asked. */
  yes: boolean;
  reasonText?: string;
}

/** What the confirmation step ended with: go ahead, or stop with nothing written. */
type Confirmation = { go: true } | { go: false; why: 'declined' | 'unconfirmed'; service: Service } | { go: false; why: 'nothing-to-write'; outcome: SuspensionOutcome };

async function run(io: CliIo, { action, serviceId, json, yes, reasonText }: SuspensionRequest): Promise<number> {
  const connection = await connectCli(io, json ? 'json' : 'text');
  try {
    const audit = await openCliAudit(io, connection.config.logLevel);
    const { suspensions } = connection.services;
    const label: StatusLabeller = (status) => connection.services.numbering.label(status);
    const reason = reasonText === undefined ? undefined : await suspensions.resolveReason(reasonText);
    let outcome: SuspensionOutcome;
    try {
      const confirmation: Confirmation = yes ? { go: true } : await confirmFirst(io, suspensions, { action, serviceId, reason, label });
      if (!confirmation.go && confirmation.why !== 'nothing-to-write') return notConfirmed(io, action, confirmation, json);
      outcome = confirmation.go ? (reason ? await suspensions.suspend(serviceId, reason) : await suspensions.unsuspend(serviceId)) : confirmation.outcome;
    } catch (error) {
      const failure = auditedFailure(error);
      if (failure) await audit.record(suspensionFailureAudit(action, { serviceId, ...(reason && { reasonId: reason.id }) }, failure));
      throw error;
    }
    const message = describe(outcome, label);
    if (json) writeLine(io.stdout, jsonLine(io, suspensionJson(outcome, message, label, reason)));
    else writeText(outcome.kind === 'refused' ? io.stderr : io.stdout, message);
    await audit.record(suspensionAudit(outcome, label));
    return outcome.kind === 'refused' ? EXIT.failed : EXIT.ok;
  } finally {
    await connection.close();
  }
}

/**
 * The Slack form's confirm step: the services layer's decision for the service as the CRM reports it
 * now. Nothing to write (already so, or not allowed in this state) ends here, from this read, without
 * asking and without a second read that could find something to write nobody confirmed. A write is
 * shown and asked about on a terminal; elsewhere it stops, unconfirmed.
 */
async function confirmFirst(
  io: CliIo,
  suspensions: SuspensionService,
  { action, serviceId, reason, label }: { action: SuspensionAction; serviceId: number; reason: SuspensionReason | undefined; label: StatusLabeller },
): Promise<Confirmation> {
  const service = await suspensions.getService(serviceId);
  const decision = suspensions.decide(action, service);
  if (decision === 'already') return { go: false, why: 'nothing-to-write', outcome: { kind: 'already', action, service } };
  if (decision === 'refused') return { go: false, why: 'nothing-to-write', outcome: { kind: 'refused', action, service, reason: 'not-active', status: service.status } };
  if (!canAsk(io)) return { go: false, why: 'unconfirmed', service };
  // The client's name, as the Slack confirmation shows it; the question stands without it.
  const client = await suspensions.getClient(service.clientId).catch(() => undefined);
  writeText(
    io.stderr,
    `Client: #${service.clientId}${client ? ` ${clientDisplayName(client)}` : ''}`,
    `Service: #${service.id}${service.name ? ` ${service.name}` : ''}`,
    `Current status: ${label(service.status)}`,
    ...(reason ? [`Reason: ${reason.name}`] : []),
  );
  const question = action === 'suspend' ? `Suspend service #${service.id}?` : `Lift the suspension of service #${service.id}?`;
  return (await confirm(io, question)) ? { go: true } : { go: false, why: 'declined', service };
}

/** Nothing was written: the person said no, or no one could be asked and --yes was not given (exit 1). */
function notConfirmed(io: CliIo, action: SuspensionAction, { why, service }: { why: 'declined' | 'unconfirmed'; service: Service }, json: boolean): number {
  const doing = action === 'suspend' ? 'Suspending' : 'Lifting the suspension of';
  const message =
    why === 'declined'
      ? 'Not confirmed: nothing was changed.'
      : `${doing} ${which(service)} needs confirmation: run it on a terminal to be asked, or add --yes. Nothing was changed.`;
  writeText(io.stderr, message);
  if (json) writeLine(io.stdout, jsonLine(io, errorJson([{ field: '--yes', message }])));
  return EXIT.failed;
}

const which = (service: Service) => `service #${service.id}${service.name ? ` (${service.name})` : ''} of client #${service.clientId}`;

/** The one sentence the terminal shows for an outcome. */
function describe(outcome: SuspensionOutcome, label: StatusLabeller): string {
  const { action, service } = outcome;
  const what = which(service);
  switch (outcome.kind) {
    case 'done': {
      const { after, suspensionReason } = outcome;
      const verb = action === 'suspend' ? `Suspended ${what}` : `Lifted the suspension of ${what}`;
      const now = after ? label(after.status) : 'unknown (the CRM accepted the change; reading it back failed)';
      return `${verb}${suspensionReason ? ` — reason: ${suspensionReason.name}` : ''}. Status: ${label(service.status)} → ${now}.`;
    }
    case 'already':
      return action === 'suspend'
        ? `Nothing to do: ${what} is already suspended. Nothing was changed. (To lift it: subops unsuspend --service-id ${service.id})`
        : `Nothing to do: ${what} is not suspended (status ${label(service.status)}). Nothing was changed.`;
    case 'refused':
      return outcome.reason === 'not-active'
        ? `Refused: ${what} is ${label(outcome.status)}; only an Active service can be suspended. Nothing was changed.`
        : `Refused: the CRM would not ${action === 'suspend' ? 'suspend' : 'lift the suspension of'} ${what} (status ${label(outcome.status)}). Nothing was changed; check the service in the CRM.`;
  }
}
