/**
 * GET /metrics (Prometheus text, prom-client) after real traffic: operations by kind and outcome, UISP
 * request durations by endpoint and status, Slack API errors by method, webhook events by entity and
 * outcome, and the pending manual links. Served on the ops listener (OPS_HOST:OPS_PORT), never on the Slack
 * port; in Socket Mode the WEBHOOK_PORT listener serves only the webhook.
 */
import { SHARED_STATUSES } from '../../src/services/activation/service-status.js';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startEventListener, startOpsListener } from '../../src/app.js';
import { loadAppConfig } from '../../src/config.js';
import { createEventServices } from '../../src/services/events/index.js';
import { Metrics } from '../../src/services/metrics.js';
import { createLogger } from '../../src/slack/logging.js';
import { crm } from '../simulator/helpers.js';
import { startUisp, type UispFixture } from '../support/uisp.js';
import { HealthProbe } from '../../src/slack/health.js';
import { inputs, startHarness, suspendThroughSlack, WEBHOOK_TOKEN, type Harness } from './harness.js';
import { memoryClaims } from '../support/store.js';

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
    await fetch(`${h.origin}/uisp/webhook?token=${WEBHOOK_TOKEN}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ uuid: '2c6984d7-03ae-4e48-a212-7b99378837a2' }) });
    await h.settled();
    await suspendThroughSlack(h, 101, 2);

    const text = await metricsOf(h.opsOrigin);
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

  it('carries prom-client’s default process metrics (process_*, nodejs_*)', async () => {
    h = await startHarness({ events: {} });
    const text = await metricsOf(h.opsOrigin);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    // In the app's own registry, beside SubOps' series.
    expect(text).toContain('subops_pending_manual_links 0');
  });

  it('carries subops_build_info: the version of package.json and of Node.js, value 1', async () => {
    h = await startHarness({ events: {} });
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(await metricsOf(h.opsOrigin)).toContain(`subops_build_info{version="${version}",node="${process.version}"} 1`);
  });

  it('health probes add no 404 to the UISP request durations: they read endpoints that exist', async () => {
    h = await startHarness({ events: {} });
    await suspendThroughSlack(h, 101, 2);
    expect((await fetch(`${h.opsOrigin}/healthz`)).status).toBe(200);
    const text = await metricsOf(h.opsOrigin);
    expect(text).toContain('subops_uisp_request_duration_seconds_count{system="crm",method="PATCH",endpoint="/crm/api/v1.0/clients/services/{id}/suspend",status="2xx"} 1');
    // The one 404 allowed is the status numbering's detection: the interface document's CRM has no GET /version.
    expect(text).not.toMatch(/subops_uisp_request_duration_seconds_count\{[^}]*endpoint="(?!\/crm\/api\/v1\.0\/version")[^"]*",status="404"\}/);
    expect(h.uisp.sim.requests.filter((r) => r.status === 404 && r.path !== '/crm/api/v1.0/version')).toEqual([]);
  });

  it('pending manual links: one per activation until it is linked', async () => {
    h = await startHarness({ events: {} });
    await h.command('/activate', '10.20.1.88 jane doe');
    const { id } = await h.openedView();
    await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'jane', lastName: 'doe' }));
    await h.fake.waitFor('chat.postMessage', (call) => String(call.args.text).includes('One manual step left'));
    await h.settled();
    expect(await metricsOf(h.opsOrigin)).toContain('subops_pending_manual_links 1');
    expect(await metricsOf(h.opsOrigin)).toContain('subops_operations_total{kind="activate",outcome="activated"} 1');
  });
});

describe('not on the Slack port', () => {
  it('by default GET /metrics and GET /healthz answer 404 on PORT and are served on the ops listener', async () => {
    h = await startHarness({ events: {} });
    expect((await fetch(`${h.origin}/metrics`)).status).toBe(404);
    expect((await fetch(`${h.origin}/healthz`)).status).toBe(404);
    expect(await metricsOf(h.opsOrigin)).toContain('subops_pending_manual_links 0');
    expect((await fetch(`${h.opsOrigin}/healthz`)).status).toBe(200);
    // The ops listener serves nothing else.
    expect((await fetch(`${h.opsOrigin}/uisp/webhook?token=${WEBHOOK_TOKEN}`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await fetch(`${h.opsOrigin}/slack/events`, { method: 'POST', body: '' })).status).toBe(404);
  });

  it('HEALTHZ_ON_SLACK_PORT=true answers /healthz on PORT too (the same shared probe), never /metrics', async () => {
    h = await startHarness({ events: {}, env: { HEALTHZ_ON_SLACK_PORT: 'true' } });
    expect((await fetch(`${h.origin}/healthz`)).status).toBe(200);
    expect((await fetch(`${h.opsOrigin}/healthz`)).status).toBe(200);
    expect(h.health.probes).toBe(1);
    expect((await fetch(`${h.origin}/metrics`)).status).toBe(404);
  });
});

describe('Socket Mode: the listener on WEBHOOK_PORT', () => {
  it('serves POST /uisp/webhook only; /metrics is on the ops listener', async () => {
    uisp = await startUisp();
    const { events: settings, slack } = loadAppConfig({ UISP_URL: uisp.sim.url, UISP_TOKEN: uisp.sim.token, SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', ALLOWED_EVERYONE: 'true', WEBHOOK_PORT: '3999', WEBHOOK_TOKEN: WEBHOOK_TOKEN });
    const metrics = new Metrics();
    const logger = createLogger('silent');
    const events = createEventServices({ services: uisp.services, settings: { ...settings, webhookPort: 0 }, statuses: SHARED_STATUSES, logger, metrics, claims: memoryClaims() });
    const listener = (await startEventListener(events, { host: '127.0.0.1' }))!;
    const health = new HealthProbe({ uisp: uisp.config.uisp, slack, logger });
    const ops = await startOpsListener({ health, work: { acceptingWork: true, inFlight: 0 }, metrics }, { port: 0, host: '127.0.0.1' });
    try {
      const origin = `http://127.0.0.1:${listener.port}`;
      await crm(uisp.sim, 'POST', '/payments', { clientId: 1001, amount: 100 });
      uisp.sim.setWebhookUrl(`${origin}/uisp/webhook?token=${WEBHOOK_TOKEN}`);
      uisp.sim.resendWebhook(uisp.sim.webhookEvents[0]!.uuid);
      await uisp.sim.webhooksSettled();
      await events.webhooks.idle();
      expect(uisp.sim.webhookDeliveries.map((d) => d.status)).toEqual([200]);
      expect(await metricsOf(`http://127.0.0.1:${ops.port}`)).toContain('subops_webhook_events_total{entity="payment",outcome="notified"} 1');
      expect((await fetch(`${origin}/metrics`)).status).toBe(404);
      expect((await fetch(`${origin}/slack/events`, { method: 'POST' })).status).toBe(404);
      expect((await fetch(`${origin}/uisp/webhook`)).status).toBe(404);
    } finally {
      await listener.close();
      await ops.close();
      await health.close();
    }
  });

  it('without WEBHOOK_TOKEN no listener is started at all', async () => {
    uisp = await startUisp();
    const { events: settings } = loadAppConfig({ UISP_URL: uisp.sim.url, UISP_TOKEN: uisp.sim.token, SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', ALLOWED_EVERYONE: 'true', WEBHOOK_PORT: '3999' });
    const events = createEventServices({ services: uisp.services, settings: { ...settings, webhookPort: 0 }, statuses: SHARED_STATUSES, logger: createLogger('silent'), claims: memoryClaims() });
    expect(await startEventListener(events, { host: '127.0.0.1' })).toBeUndefined();
  });
});
