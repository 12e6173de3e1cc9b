/**
 * Metrics load prom-client on first use (it is no part of start-up): what is observed before and while
 * it loads is counted once, like what comes after.
 */
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/services/audit.js';
import { Metrics } from '../../src/services/metrics.js';

const suspendEndpoint = { system: 'crm' as const, method: 'PATCH', path: '/crm/api/v1.0/clients/services/101/suspend', endpoint: '/crm/api/v1.0/clients/services/{id}/suspend' };

describe('Metrics', () => {
  it('counts observations made while prom-client loads, once each, and those after it', async () => {
    let pendingLinks = 2;
    const metrics = new Metrics(() => pendingLinks);
    // All of these happen before the import of prom-client can have finished.
    metrics.uispObserver.request(suspendEndpoint)({ status: '2xx', durationMs: 40 });
    metrics.uispObserver.request(suspendEndpoint)({ status: '503', durationMs: 10 });
    metrics.slackApiError('chat.postMessage', 'channel_not_found');
    metrics.webhookEvent('service', 'notified');
    // The metrics sink reads only the kind and the outcome of a record.
    await metrics.auditSink.write({ action: 'suspend', result: 'suspended' } as AuditRecord);

    const first = await metrics.render();
    expect(first).toContain('subops_uisp_request_duration_seconds_count{system="crm",method="PATCH",endpoint="/crm/api/v1.0/clients/services/{id}/suspend",status="2xx"} 1');
    expect(first).toContain('subops_uisp_request_duration_seconds_count{system="crm",method="PATCH",endpoint="/crm/api/v1.0/clients/services/{id}/suspend",status="503"} 1');
    expect(first).toContain('subops_slack_api_errors_total{method="chat.postMessage",error="channel_not_found"} 1');
    expect(first).toContain('subops_webhook_events_total{entity="service",outcome="notified"} 1');
    expect(first).toContain('subops_operations_total{kind="suspend",outcome="suspended"} 1');
    expect(first).toContain('subops_pending_manual_links 2');

    metrics.slackApiError('chat.postMessage', 'channel_not_found');
    pendingLinks = 0;
    const second = await metrics.render();
    expect(second).toContain('subops_slack_api_errors_total{method="chat.postMessage",error="channel_not_found"} 2');
    expect(second).toContain('subops_operations_total{kind="suspend",outcome="suspended"} 1');
    expect(second).toContain('subops_pending_manual_links 0');
  });
});
