/**
 * GET /metrics (Prometheus text, prom-client) after real traffic: operations by kind and outcome, UISP
 * request durations by endpoint and status, Slack API errors by method, webhook events by entity and
 * outcome, and the pending manual links. In Socket Mode the same routes are served on WEBHOOK_PORT.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEventListener } from '../../src/app.js';
import { loadAppConfig } from '../../src/config.js';
import { createEventServices } from '../../src/services/events/index.js';
import { Metrics } from '../../src/services/metrics.js';
import { createLogger } from '../../src/slack/logging.js';
import { crm } from '../simulator/helpers.js';
import { startUisp, type UispFixture } from '../support/uisp.js';
import { inputs, startHarness, suspendThroughSlack, type Harness } from './harness.js';

let h: Harness | undefined;
let uisp: UispFixture | undefined;
afterEach(async () => {
  await h?.close();
  await uisp?.close();
  h = undefined;
  uisp = undefined;
});

const metricsOf = async (origin: string) => {
  const response = await fetch(`${origin}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
};

describe('GET /metrics', () => {
  it('counts what happened, labelled by what an operator filters on', async () => {
    h = await startHarness({ events: {} });
    // A change made in UISP whose notice Slack refuses, a forged webhook, and a suspension through Slack.
    h.fake.failNext('chat.postMessage', { error: 'channel_not_found' });
    await crm(h.uisp.sim, 'PATCH', '/clients/services/105/suspend', { suspensionReasonId: 1 });
    await h.uisp.sim.webhooksSettled();
    await h.settled();
    await fetch(`${h.origin}/uisp/webhook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ uuid: '2c6984d7-03ae-4e48-a212-7b99378837a2' }) });
    await h.settled();
    await suspendThroughSlack(h, 101, 2);

    const text = await metricsOf(h.origin);
    expect(text).toContain('subops_operations_total{kind="suspend",outcome="suspended"} 1');
    expect(text).toContain('subops_webhook_events_total{entity="service",outcome="notified"} 1');
    expect(text).toContain('subops_webhook_events_total{entity="service",outcome="own"} 1');
    expect(text).toContain('subops_webhook_events_total{entity="unknown",outcome="unverified"} 1');
    expect(text).toContain('subops_slack_api_errors_total{method="chat.postMessage",error="channel_not_found"} 1');
    expect(text).toContain('subops_uisp_request_duration_seconds_count{system="crm",method="GET",endpoint="/crm/api/v1.0/webhook-events/{id}",status="2xx"} 2');
    expect(text).toContain('subops_uisp_request_duration_seconds_count{system="crm",method="GET",endpoint="/crm/api/v1.0/webhook-events/{id}",status="404"} 1');
    expect(text).toContain('subops_uisp_request_duration_seconds_count{system="crm",method="PATCH",endpoint="/crm/api/v1.0/clients/services/{id}/suspend",status="2xx"} 1');
    expect(text).toMatch(/subops_uisp_request_duration_seconds_bucket\{le="0\.025",system="crm",method="GET",endpoint="\/crm\/api\/v1\.0\/clients\/services\/\{id\}",status="2xx"\} \d+/);
    expect(text).toContain('subops_pending_manual_links 0');
  });

  it('pending manual links: one per activation until it is linked', async () => {
    h = await startHarness({ events: {} });
    await h.command('/activate', '10.20.1.88 jane doe');
    const { id } = await h.openedView();
    await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'jane', lastName: 'doe' }));
    await h.fake.waitFor('chat.postMessage', (call) => String(call.args.text).includes('One manual step left'));
    await h.settled();
    expect(await metricsOf(h.origin)).toContain('subops_pending_manual_links 1');
    expect(await metricsOf(h.origin)).toContain('subops_operations_total{kind="activate",outcome="activated"} 1');
  });
});

describe('Socket Mode: the listener on WEBHOOK_PORT', () => {
  it('serves POST /uisp/webhook and GET /metrics, and nothing else', async () => {
    uisp = await startUisp();
    const { events: settings } = loadAppConfig({ UISP_URL: uisp.sim.url, UISP_TOKEN: uisp.sim.token, SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', WEBHOOK_PORT: '3999' });
    const events = createEventServices({ services: uisp.services, settings: { ...settings, webhookPort: 0 }, statuses: uisp.config.activation.statuses, logger: createLogger('silent'), metrics: new Metrics() });
    const listener = (await startEventListener(events, { host: '127.0.0.1' }))!;
    try {
      const origin = `http://127.0.0.1:${listener.port}`;
      await crm(uisp.sim, 'POST', '/payments', { clientId: 1001, amount: 100 });
      uisp.sim.setWebhookUrl(`${origin}/uisp/webhook`);
      uisp.sim.resendWebhook(uisp.sim.webhookEvents[0]!.uuid);
      await uisp.sim.webhooksSettled();
      await events.webhooks.idle();
      expect(uisp.sim.webhookDeliveries.map((d) => d.status)).toEqual([200]);
      expect(await metricsOf(origin)).toContain('subops_webhook_events_total{entity="payment",outcome="notified"} 1');
      expect((await fetch(`${origin}/slack/events`, { method: 'POST' })).status).toBe(404);
      expect((await fetch(`${origin}/uisp/webhook`)).status).toBe(404);
    } finally {
      await listener.close();
    }
  });
});
