// The baselines' Bolt app, run as its own process like `subops serve`: Bolt's HTTP receiver on PORT
// with the same signing secret and Web API base (SLACK_API_URL, the fake Slack), and the least each
// row's requests need — acks for /suspend, the suspension form, its client lookup and /payments (row 3), and for
// /payments an ack, one page of payments read from UISP_URL, and the answer at response_url (rows 4 and 7). Rows 6
// and 7 time its start until "ready"; row 7 reads its peak RSS.
/* global fetch */
import { App, LogLevel } from '@slack/bolt';

const { SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, SLACK_API_URL, UISP_URL, UISP_TOKEN, PAYMENTS_QUERY, PORT } = process.env;

const app = new App({ token: SLACK_BOT_TOKEN, signingSecret: SLACK_SIGNING_SECRET, clientOptions: { slackApiUrl: `${SLACK_API_URL}/` }, logLevel: LogLevel.ERROR });
app.command('/suspend', async ({ ack }) => ack());
app.view('suspension_form', async ({ ack }) => ack());
app.action('suspension_client_lookup', async ({ ack }) => ack());
app.command('/payments', async ({ ack, respond }) => {
  await ack();
  // Row 3 times acks alone: there, without PAYMENTS_QUERY, the baseline does nothing after its ack.
  if (PAYMENTS_QUERY === undefined) return;
  const answer = await fetch(`${UISP_URL}/crm/api/v1.0/payments?${PAYMENTS_QUERY ?? ''}`, { headers: { 'X-Auth-Token': UISP_TOKEN ?? '' } });
  const payments = await answer.json();
  await respond({ response_type: 'ephemeral', text: payments.slice(0, 20).map((p) => `#${p.id} ${p.amount}`).join('\n') });
});
await app.start(Number(PORT));
// Listening for the stop signal before saying it is ready: a SIGTERM right after that line still stops it cleanly.
process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
console.log('ready');
