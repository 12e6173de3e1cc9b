/**
 * "Export CSV": the whole range of a listing as the CLI's CSV (client names included), uploaded with
 * files.uploadV2 to the agent's DM with the bot (the listing is private, so is its export).
 */
import type { webApi } from '@slack/bolt';
import { csvHeader, paymentCsvLine } from '../../services/payments-csv.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { uploadToDm } from '../../slack/dm-file.js';
import { describeFailure, errorSummary } from '../../slack/errors.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import type { PaymentRange } from '../../slack/metadata.js';
import { notice } from '../../views/help.js';
import type { SlackMessage } from '../../views/kit.js';
import { paymentsExported } from '../../views/payments.js';

export async function exportPayments(deps: ListenerDeps, client: webApi.WebClient, userId: string, range: PaymentRange): Promise<SlackMessage> {
  const logger = deps.logger.child({ flow: 'payments-export', userId });
  const { payments } = deps.services;
  const query = { ...(range.clientId !== undefined && { clientId: range.clientId }), ...(range.from && { from: range.from }), ...(range.to && { to: range.to }) };
  const lines = [csvHeader()];
  let resolved: { from: string; to: string };
  try {
    resolved = payments.range(query);
    if (range.clientId !== undefined) await payments.getClient(range.clientId);
    for await (const page of payments.pagesWithClientNames(query)) for (const payment of page.payments) lines.push(paymentCsvLine(payment, page));
  } catch (error) {
    const failure = describeFailure(error);
    if (!failure.expected) logger.error({ err: error }, 'reading payments for the export failed');
    return notice(`:x: Could not read the payments to export: ${escapeMrkdwn(failure.message)}`);
  }
  const count = lines.length - 1;
  const filename = `payments-${range.clientId === undefined ? '' : `client-${range.clientId}-`}${resolved.from}-to-${resolved.to}.csv`;
  try {
    await uploadToDm(client, userId, {
      filename,
      content: `${lines.join('\n')}\n`,
      comment: `Payments from ${resolved.from} to ${resolved.to}: ${count} payment${count === 1 ? '' : 's'}.`,
    });
    return paymentsExported({ count, from: resolved.from, to: resolved.to, filename });
  } catch (error) {
    const summary = errorSummary(error);
    logger.error({ err: summary }, 'could not upload the payments export');
    return notice(`:x: Slack did not take the CSV file (${escapeMrkdwn(summary.slackError ?? summary.message)}); nothing was sent. If it says missing_scope, reinstall the app from manifest.yml.`);
  }
}
