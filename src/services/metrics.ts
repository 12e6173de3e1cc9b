/**
 * The process's Prometheus metrics (prom-client), in a registry of their own — no global default
 * registry — created by the composition root and fed through injected hooks:
 * - operations by kind and outcome: an audit sink, so every audited write counts once;
 * - UISP request duration by system, method, endpoint and status: an observer of the HTTP core;
 * - Slack API errors by method and error: reported by the Slack client's fetch (src/slack/api-errors.ts);
 * - webhook events by entity and outcome, and the manual CRM–NMS links still pending;
 * - audit outbox rows set aside (not audit records: someone else wrote them into the store);
 * - operations in flight read back from the store and set aside (they did not validate);
 * - `subops_build_info{version, node}` 1: which SubOps (package.json) on which Node serves;
 * - prom-client's default metrics of the process (`process_*`: CPU, memory, open files; `nodejs_*`: event
 *   loop lag, heap, GC, handles), collected at each scrape.
 * `GET /metrics` serves `render()` in the Prometheus text format, on the ops listener (OPS_HOST:OPS_PORT,
 * loopback only by default), never on the Slack port: it is unauthenticated.
 *
 * prom-client (with the OpenTelemetry, cluster and push-gateway code its entry point loads) is a good
 * part of the bot's start-up time, and nothing needs it before the first request: it is loaded on first
 * use — the first observation or scrape — and what is observed while it loads is counted once it is in.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Counter, Histogram, Registry } from 'prom-client';
import type { AuditSink } from './audit.js';
import type { WebhookOutcome } from './events/webhooks.js';
import type { UispObserver } from './uisp/exchange.js';
import { subopsVersion } from '../version.js';

interface Instruments {
  registry: Registry;
  operations: Counter<'kind' | 'outcome'>;
  uispDuration: Histogram<'system' | 'method' | 'endpoint' | 'status'>;
  slackErrors: Counter<'method' | 'error'>;
  webhookEvents: Counter<'entity' | 'outcome'>;
  auditSetAside: Counter;
  inFlightSetAside: Counter;
}

export class Metrics {
  private instruments: Instruments | undefined;
  private loading: Promise<Instruments> | undefined;
  /** Observations made while prom-client loads. */
  private readonly waiting: Array<(instruments: Instruments) => void> = [];

  /** Read at each scrape: the link watch's pending links, and the audit records waiting in the store for Slack. */
  constructor(
    private readonly pendingLinks: () => number = () => 0,
    private readonly auditWaiting: () => Promise<number> = async () => 0,
  ) {}

  /** Times every UISP request attempt. */
  readonly uispObserver: UispObserver = {
    request: ({ system, method, endpoint }) => {
      return ({ status, durationMs }) => this.record((m) => m.uispDuration.observe({ system, method, endpoint, status }, durationMs / 1000));
    },
  };

  /** Counts every audited operation by kind and outcome. */
  readonly auditSink: AuditSink = {
    name: 'metrics',
    write: ({ action, result }) => {
      this.record((m) => m.operations.inc({ kind: action, outcome: result }));
    },
  };

  /** A row of the audit outbox that was not an audit record, set aside (src/slack/audit-outbox.ts). */
  auditRecordSetAside(): void {
    this.record((m) => m.auditSetAside.inc());
  }

  slackApiError(method: string, error: string): void {
    this.record((m) => m.slackErrors.inc({ method, error }));
  }

  webhookEvent(entity: string, outcome: WebhookOutcome): void {
    this.record((m) => m.webhookEvents.inc({ entity, outcome }));
  }

  /** An operation in flight read back from the store that did not validate: set aside, never posted. */
  inFlightSetAside(): void {
    this.record((m) => m.inFlightSetAside.inc());
  }

  async render(): Promise<string> {
    return (await this.load()).registry.metrics();
  }

  /** GET /metrics. */
  route(): (req: IncomingMessage, res: ServerResponse) => void {
    return (_req, res) => {
      void this.load()
        .then(async ({ registry }) => ({ text: await registry.metrics(), contentType: registry.contentType }))
        .then(
          ({ text, contentType }) => {
            res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
            res.end(text);
          },
          () => {
            res.writeHead(500, { 'content-type': 'text/plain' });
            res.end('metrics unavailable\n');
          },
        );
    };
  }

  private record(observe: (instruments: Instruments) => void): void {
    if (this.instruments) {
      observe(this.instruments);
      return;
    }
    this.waiting.push(observe);
    this.load().catch(() => {
      // A failed load shows at the scrape (500); observations have nowhere to go meanwhile.
      this.waiting.length = 0;
    });
  }

  private load(): Promise<Instruments> {
    this.loading ??= import('prom-client').then((prom) => {
      const instruments = createInstruments(prom, this.pendingLinks, this.auditWaiting);
      this.instruments = instruments;
      for (const observe of this.waiting.splice(0)) observe(instruments);
      return instruments;
    });
    return this.loading;
  }
}

function createInstruments({ collectDefaultMetrics, Counter, Gauge, Histogram, Registry }: typeof import('prom-client'), pendingLinks: () => number, auditWaiting: () => Promise<number>): Instruments {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const instruments: Instruments = {
    registry,
    operations: new Counter({
      name: 'subops_operations_total',
      help: 'Audited operations (activate, suspend, unsuspend, payment) by outcome (activated, suspended, already-suspended, refused, failed, recorded…).',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    }),
    uispDuration: new Histogram({
      name: 'subops_uisp_request_duration_seconds',
      help: 'UISP request attempts by system, method, endpoint (ids as {id}) and status (HTTP status, 2xx, or none when no answer came).',
      labelNames: ['system', 'method', 'endpoint', 'status'] as const,
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
      registers: [registry],
    }),
    slackErrors: new Counter({
      name: 'subops_slack_api_errors_total',
      help: 'Slack Web API calls that failed, by method and error (a Slack error code, http_<status> or network).',
      labelNames: ['method', 'error'] as const,
      registers: [registry],
    }),
    webhookEvents: new Counter({
      name: 'subops_webhook_events_total',
      help: 'UISP webhook events by entity (client, service, payment…; unknown before confirmation) and outcome (notified, own, ignored, stale — no longer what the CRM says, duplicate, unverified, failed, refused — wrong token or body, limited — over the rate, busy — backlog full).',
      labelNames: ['entity', 'outcome'] as const,
      registers: [registry],
    }),
    auditSetAside: new Counter({
      name: 'subops_audit_records_set_aside_total',
      help: 'Rows of the audit outbox in the store that were not audit records: taken out and logged, never posted.',
      registers: [registry],
    }),
    inFlightSetAside: new Counter({
      name: 'subops_in_flight_set_aside_total',
      help: 'Operations in flight read back from the store that did not validate (not as SubOps records one, or their check did not verify): removed, never posted.',
      registers: [registry],
    }),
  };
  new Gauge({
    name: 'subops_build_info',
    help: 'Always 1: the SubOps version (package.json) and the Node.js version (as nodejs_version_info has it) of this process.',
    labelNames: ['version', 'node'] as const,
    registers: [registry],
  }).set({ version: subopsVersion(), node: process.version }, 1);
  new Gauge({
    name: 'subops_pending_manual_links',
    help: 'Activated sites whose manual CRM–NMS link has not been made yet.',
    registers: [registry],
    collect() {
      this.set(pendingLinks());
    },
  });
  new Gauge({
    name: 'subops_audit_records_waiting',
    help: 'Audit records kept in the store because Slack did not take them; posted in order when it does (-1: the store is not open yet, or did not answer).',
    registers: [registry],
    async collect() {
      this.set(await auditWaiting().catch(() => -1));
    },
  });
  return instruments;
}
