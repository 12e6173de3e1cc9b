/**
 * `subops suspend` and `subops unsuspend`: one flow, two actions. The services layer reads the service
 * and decides: done (exit 0), already so / nothing to lift (exit 0, nothing written), or refused
 * (exit 1, nothing written). Every attempt that reached UISP is audited. Lifting uses cancel-suspend.
 */
import { suspensionAudit, suspensionFailureAudit } from '../../services/audit-records.js';
import { statusLabel } from '../../services/activation/service-status.js';
import type { SuspensionAction, SuspensionOutcome } from '../../services/suspensions.js';
import { connect } from '../../connect.js';
import { readId, readIdOrName } from '../../services/input/grammar.js';
import { flagValue, parseFlags } from '../args.js';
import { auditedFailure, openCliAudit } from '../audit.js';
import { EXIT, writeLine, writeText, type CliIo } from '../io.js';
import { suspensionJson, type StatusLabeller } from '../json.js';

export const suspendHelp = `Usage: subops suspend --service-id <id> --reason <id or name> [--json]

Suspends an Active CRM service for a suspension reason (see \`subops reasons\`). A service that is
already suspended is left alone (exit 0); one that is not Active (Quoted, Obsolete…) is refused
(exit 1). Nothing is written in either case.`;

export const unsuspendHelp = `Usage: subops unsuspend --service-id <id> [--json]

Lifts a service's suspension (UISP's cancel-suspend). A service that is not suspended is left
alone (exit 0, nothing written).`;

export async function suspend(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { 'service-id': { type: 'string' }, reason: { type: 'string' }, json: { type: 'boolean' } });
  if (values.help) return writeLine(io.stdout, suspendHelp), EXIT.ok;
  const serviceId = flagValue('--service-id', readId(values['service-id'], 'Service id'));
  const reasonText = flagValue('--reason', readIdOrName(values.reason, 'Suspension reason'));
  return run(io, { action: 'suspend', serviceId, json: values.json ?? false, reasonText });
}

export async function unsuspend(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { 'service-id': { type: 'string' }, json: { type: 'boolean' } });
  if (values.help) return writeLine(io.stdout, unsuspendHelp), EXIT.ok;
  const serviceId = flagValue('--service-id', readId(values['service-id'], 'Service id'));
  return run(io, { action: 'unsuspend', serviceId, json: values.json ?? false });
}

interface SuspensionRequest {
  action: SuspensionAction;
  serviceId: number;
  json: boolean;
  reasonText?: string;
}

async function run(io: CliIo, { action, serviceId, json, reasonText }: SuspensionRequest): Promise<number> {
  const connection = await connect(io.env, (line) => writeLine(io.stderr, line));
  try {
    const audit = await openCliAudit(io, connection.config.logLevel);
    const { suspensions } = connection.services;
    const label: StatusLabeller = (status) => statusLabel(status, connection.config.activation.statuses);
    const reason = reasonText === undefined ? undefined : await suspensions.resolveReason(reasonText);
    let outcome: SuspensionOutcome;
    try {
      outcome = reason ? await suspensions.suspend(serviceId, reason) : await suspensions.unsuspend(serviceId);
    } catch (error) {
      const failure = auditedFailure(error);
      if (failure) await audit.record(suspensionFailureAudit(action, { serviceId, ...(reason && { reasonId: reason.id }) }, failure));
      throw error;
    }
    const message = describe(outcome, label);
    if (json) writeLine(io.stdout, JSON.stringify(suspensionJson(outcome, message, label, reason)));
    else writeText(outcome.kind === 'refused' ? io.stderr : io.stdout, message);
    await audit.record(suspensionAudit(outcome, label));
    return outcome.kind === 'refused' ? EXIT.failed : EXIT.ok;
  } finally {
    await connection.close();
  }
}

/** The one sentence the terminal shows for an outcome. */
function describe(outcome: SuspensionOutcome, label: StatusLabeller): string {
  const { action, service } = outcome;
  const which = `service #${service.id}${service.name ? ` (${service.name})` : ''} of client #${service.clientId}`;
  switch (outcome.kind) {
    case 'done': {
      const { after, suspensionReason } = outcome;
      const verb = action === 'suspend' ? `Suspended ${which}` : `Lifted the suspension of ${which}`;
      const now = after ? label(after.status) : 'unknown (the CRM accepted the change; reading it back failed)';
      return `${verb}${suspensionReason ? ` — reason: ${suspensionReason.name}` : ''}. Status: ${label(service.status)} → ${now}.`;
    }
    case 'already':
      return action === 'suspend'
        ? `Nothing to do: ${which} is already suspended. Nothing was changed. (To lift it: subops unsuspend --service-id ${service.id})`
        : `Nothing to do: ${which} is not suspended (status ${label(service.status)}). Nothing was changed.`;
    case 'refused':
      return outcome.reason === 'not-active'
        ? `Refused: ${which} is ${label(outcome.status)}; only an Active service can be suspended. Nothing was changed.`
        : `Refused: the CRM would not ${action === 'suspend' ? 'suspend' : 'lift the suspension of'} ${which} (status ${label(outcome.status)}). Nothing was changed; check the service in the CRM.`;
  }
}
