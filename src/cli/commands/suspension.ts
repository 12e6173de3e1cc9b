/** `subops suspend` and `subops unsuspend`: one flow, two actions. Lifting uses cancel-suspend. */
import type { SuspensionOutcome } from '../../services/suspensions.js';
import { statusLabel } from '../../services/activation/service-status.js';
import { flagValue, parseFlags } from '../args.js';
import { connect } from '../../connect.js';
import { readId, readIdOrName } from '../../services/input/grammar.js';
import { EXIT, writeLine, writeText, type CliIo } from '../io.js';

export const suspendHelp = `Usage: subops suspend --service-id <id> --reason <id or name> [--json]

Suspends a CRM service for a suspension reason (see \`subops reasons\`).`;

export const unsuspendHelp = `Usage: subops unsuspend --service-id <id> [--json]

Lifts a service's suspension (UISP's cancel-suspend).`;

export async function suspend(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { 'service-id': { type: 'string' }, reason: { type: 'string' }, json: { type: 'boolean' } });
  if (values.help) return writeLine(io.stdout, suspendHelp), EXIT.ok;
  const serviceId = flagValue('--service-id', readId(values['service-id'], 'Service id'));
  const reasonText = flagValue('--reason', readIdOrName(values.reason, 'Suspension reason'));
  return withConnection(io, values.json, async ({ suspensions }) => {
    const [service, reason] = await Promise.all([suspensions.getService(serviceId), suspensions.resolveReason(reasonText)]);
    return suspensions.suspend(service, reason);
  });
}

export async function unsuspend(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { 'service-id': { type: 'string' }, json: { type: 'boolean' } });
  if (values.help) return writeLine(io.stdout, unsuspendHelp), EXIT.ok;
  const serviceId = flagValue('--service-id', readId(values['service-id'], 'Service id'));
  return withConnection(io, values.json, async ({ suspensions }) => suspensions.unsuspend(await suspensions.getService(serviceId)));
}

async function withConnection(
  io: CliIo,
  json: boolean | undefined,
  action: (services: Awaited<ReturnType<typeof connect>>['services']) => Promise<SuspensionOutcome>,
): Promise<number> {
  const connection = await connect(io.env, (line) => writeLine(io.stderr, line));
  try {
    const outcome = await action(connection.services);
    const statuses = connection.config.activation.statuses;
    if (json) writeLine(io.stdout, JSON.stringify(outcome));
    else {
      const { service, after, reason } = outcome;
      const verb = reason ? `Suspended service #${service.id}` : `Lifted the suspension of service #${service.id}`;
      writeText(
        io.stdout,
        `${verb}${service.name ? ` (${service.name})` : ''} of client #${service.clientId}${reason ? ` — reason: ${reason.name}` : ''}. Status: ${statusLabel(service.status, statuses)} → ${after ? statusLabel(after.status, statuses) : 'unknown (the CRM accepted the change; reading it back failed)'}.`,
      );
    }
    return EXIT.ok;
  } finally {
    await connection.close();
  }
}
