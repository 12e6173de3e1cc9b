/**
 * An approved operation runs as the requester's, where they asked for it, once the requester is found to
 * still hold the grant it needs (ACCESS_*, user groups read as for any request) and after reading UISP
 * again: if the grant is gone, or anything it was confirmed on changed meanwhile (a service's status, the
 * device's site, a refusal now), it stops and says so, and nothing is written. The request it is given
 * is the one read from a row whose seals verified (src/slack/approval-requests.ts), never the row as stored.
 */
import type { Logger } from 'pino';
import { grantNeeded } from '../../services/approvals.js';
import { duplicateRemovalAudit, paymentAudit } from '../../services/audit-records.js';
import { removalSentence } from '../../render/duplicates.js';
import { changeSentence, errorSentence } from '../../render/activation.js';
import type { ApprovalRequest } from '../../slack/metadata.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure } from '../../slack/errors.js';
import { ACTION_LABEL } from '../../views/access.js';
import { runActivation, type RunOutcome } from '../activation/run.js';
import { runSheet } from '../activation/sheet-run.js';
import { recordPayment } from '../payments/recording.js';
import { loadSuspensionTarget, runSuspension } from '../suspension/run.js';

const unread = (error: unknown): RunOutcome => ({ ok: false, sentence: `Could not read UISP again: ${describeFailure(error).message} Nothing was written.` });

export async function runApproved(deps: ListenerDeps, request: ApprovalRequest, approver: string, logger: Logger): Promise<RunOutcome> {
  const { operation } = request;
  const origin = { ...request.origin, userId: request.requester };
  const grant = await deps.access.check(request.requester, grantNeeded(operation));
  if (!grant.allowed) {
    // Plain text, as every outcome sentence: the reply names the requester first.
    const what = grant.action ? `${ACTION_LABEL[grant.action]} is` : 'SubOps is';
    logger.warn({ requestId: request.id, requester: request.requester, action: grant.action }, 'the requester no longer holds the grant: the approved request did not run');
    return { ok: false, sentence: `${what} no longer granted to the requester (the access settings changed since the request), so the approved request did not run. Nothing was written.` };
  }
  switch (operation.kind) {
    case 'activation': {
      const { request: activation, confirmedDeletes, confirmedMove, confirmedClientId } = operation;
      const shown = { deletes: confirmedDeletes, ...(confirmedClientId !== undefined && { clientId: confirmedClientId }), ...(confirmedMove && { moveFrom: confirmedMove.siteId }) };
      let checked;
      try {
        checked = await deps.services.activation.recheck(activation, shown);
      } catch (error) {
        return unread(error);
      }
      if (checked.decision.kind === 'refused') return { ok: false, sentence: `UISP refuses it now: ${errorSentence(checked.decision.refusal)} Nothing was written.` };
      if (checked.changes.length) {
        return { ok: false, sentence: `UISP changed since the request, so nothing was written: ${checked.changes.map(changeSentence).join('; ')}. Start the activation again to see the plan as it is now.` };
      }
      return runActivation(deps, {
        request: activation,
        origin,
        startedBy: request.requester,
        confirm: { deletes: confirmedDeletes.map((s) => s.id), ...(confirmedMove && { moveFrom: confirmedMove.siteId }) },
        decided: checked.decision,
        approvedBy: approver,
        approvalId: request.id,
      });
    }
    case 'suspension': {
      let target;
      try {
        target = await loadSuspensionTarget(deps.services.suspensions, operation.serviceId, operation.reasonId);
      } catch (error) {
        return unread(error);
      }
      if (target.service.status !== operation.status) {
        return {
          ok: false,
          sentence: `Service #${operation.serviceId} is ${deps.statusLabel(target.service.status)} now (it was ${deps.statusLabel(operation.status)} when asked), so nothing was written.`,
        };
      }
      return runSuspension(deps, { action: operation.action, origin, target, approvedBy: approver });
    }
    case 'payment': {
      // The request names the operation: an approval acted on twice records one payment.
      const recording = await recordPayment(deps, { input: operation.input, origin, operationKey: `approval-${request.id}`, approvedBy: approver, logger });
      return recording.ok ? { ok: true, sentence: paymentAudit(recording.recorded).summary } : { ok: false, sentence: `${recording.failure.message} ${recording.failure.changed}` };
    }
    case 'remove-duplicate': {
      // Both records are read again and the removal decided again, as for a press with no approval needed.
      let outcome;
      try {
        outcome = await deps.services.duplicates.remove(operation.removal);
      } catch (error) {
        return unread(error);
      }
      const sentence = removalSentence(outcome);
      await deps.audit.record({ actorId: request.requester, approvedBy: approver, ...duplicateRemovalAudit(outcome, sentence) });
      return { ok: outcome.kind === 'removed', sentence };
    }
    case 'sheet': {
      // Every row is read again as it runs and deletes or moves only what the check showed (`shown`).
      await runSheet(deps, { origin, startedBy: request.requester, sheetId: operation.sheetId, check: operation.check, approvedBy: approver, approvalId: request.id });
      return { ok: true, sentence: 'The install sheet ran as approved: each row\'s outcome is in its thread, in the channel it came from.' };
    }
  }
}
