/**
 * The process's Prometheus metrics (prom-client), in a registry of their own — no global default
 * registry — created by the composition root and fed through injected hooks:
 * - operations by kind and outcome: an audit sink, so every audited write counts once;
 * - UISP request duration by system, method, endpoint and status: an observer of the HTTP core;
 * - Slack API errors by method and error: reported by the Slack client's fetch (src/slack/api-errors.ts);
 * - webhook events by entity and outcome, and the manual CRM–NMS links still pending.
 * `GET /metrics` serves `render()` in the Prometheus text format.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AuditSink } from './audit.js';
import type { WebhookOutcome } from './events/webhooks.js';
import type { UispObserver } from './uisp/exchange.js';

export class Metrics {
  readonly registry = new Registry();
  private readonly operations = new Counter({
    name: 'subops_operations_total',
    help: 'Audited operations (activate, suspend, unsuspend, payment) by outcome (activated, suspended, already-suspended, refused, failed, recorded…).',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly uispDuration = new Histogram({
    name: 'subops_uisp_request_duration_seconds',
    help: 'UISP request attempts by system, method, endpoint (ids as {id}) and status (HTTP status, 2xx, or none when no answer came).',
    labelNames: ['system', 'method', 'endpoint', 'status'] as const,
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [this.registry],
  });
  private readonly slackErrors = new Counter({
    name: 'subops_slack_api_errors_total',
    help: 'Slack Web API calls that failed, by method and error (a Slack error code, http_<status> or network).',
    labelNames: ['method', 'error'] as const,
    registers: [this.registry],
  });
  private readonly webhookEvents = new Counter({
    name: 'subops_webhook_events_total',
    help: 'UISP webhook events by entity (client, service, payment…; unknown before confirmation) and outcome (notified, own, ignored, duplicate, unverified, failed, refused).',
    labelNames: ['entity', 'outcome'] as const,
    registers: [this.registry],
  });

  /** `pendingLinks` is read at each scrape: the link watch's current count. */
  constructor(pendingLinks: () => number = () => 0) {
    new Gauge({
      name: 'subops_pending_manual_links',
      help: 'Activated sites whose manual CRM–NMS link has not been made yet.',
      registers: [this.registry],
      collect() {
        this.set(pendingLinks());
      },
    });
  }

  /** Times every UISP request attempt. */
  readonly uispObserver: UispObserver = {
    request: ({ system, method, endpoint }) => {
      return ({ status, durationMs }) => this.uispDuration.observe({ system, method, endpoint, status }, durationMs / 1000);
    },
  };

  /** Counts every audited operation by kind and outcome. */
  readonly auditSink: AuditSink = {
    name: 'metrics',
    write: ({ action, result }) => {
      this.operations.inc({ kind: action, outcome: result });
    },
  };

  slackApiError(method: string, error: string): void {
    this.slackErrors.inc({ method, error });
  }

  webhookEvent(entity: string, outcome: WebhookOutcome): void {
    this.webhookEvents.inc({ entity, outcome });
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** GET /metrics. */
  route(): (req: IncomingMessage, res: ServerResponse) => void {
    return (_req, res) => {
      void this.render().then(
        (text) => {
          res.writeHead(200, { 'content-type': this.registry.contentType, 'cache-control': 'no-store' });
          res.end(text);
        },
        () => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('metrics unavailable\n');
        },
      );
    };
  }
}
