/**
 * The CRM's webhooks in the simulator. Every change a CRM route makes is recorded as a webhook event
 * (GET /crm/api/v1.0/webhook-events/{uuid} finds it, as in UISP) and, when a webhook URL is set, POSTed
 * there after the change's own answer, in UISP's body shape: `{uuid, changeType, entity, entityId,
 * eventName, extraData: {entity, entityBeforeEdit}}`. Like UISP's webhook queue, deliveries go out one
 * at a time, in order; one attempt each. `settled()` resolves when every delivery so far has been
 * answered, so tests wait on a signal, never a delay.
 */
import { randomUUID } from 'node:crypto';
import { uispDateTime } from './records.js';

/** A change as a route reports it. */
export interface WebhookChange {
  entity: 'client' | 'service' | 'payment';
  entityId: number;
  /** UISP's change types: insert, edit, delete, archive, suspend, unsuspend, end. */
  changeType: string;
  /** UISP's event names: client.add, service.suspend, service.suspend_cancel, payment.add… */
  eventName: string;
  /** The record after the change, sent as extraData.entity. */
  record: unknown;
}

/** What GET /webhook-events/{uuid} answers (the blueprint's WebhookEvent, plus the event name and time). */
export interface WebhookEventRecord {
  uuid: string;
  changeType: string;
  entity: string;
  entityId: number;
  eventName: string;
  createdDate: string;
}

export interface WebhookDelivery {
  uuid: string;
  url: string;
  /** The HTTP status the receiver answered; 0 when it could not be reached. */
  status: number;
  /** How long the receiver took to answer, in ms. */
  ms: number;
}

export class WebhookSender {
  readonly events: WebhookEventRecord[] = [];
  readonly deliveries: WebhookDelivery[] = [];
  private readonly bodies = new Map<string, object>();
  /** The delivery queue: each POST starts when the one before it was answered. */
  private queue: Promise<void> = Promise.resolve();

  constructor(public url: string | undefined) {}

  /** Records the change as an event; returns the send to run once the change's answer is out. */
  record(change: WebhookChange): () => void {
    const event: WebhookEventRecord = {
      uuid: randomUUID(),
      changeType: change.changeType,
      entity: change.entity,
      entityId: change.entityId,
      eventName: change.eventName,
      createdDate: uispDateTime(new Date()),
    };
    this.events.push(event);
    const { createdDate: _createdDate, ...fields } = event;
    // UISP sends the id as a string, with the record as it is after the change.
    this.bodies.set(event.uuid, { ...fields, entityId: String(event.entityId), extraData: { entity: structuredClone(change.record), entityBeforeEdit: null } });
    return () => this.send(event.uuid);
  }

  find(uuid: string): WebhookEventRecord | undefined {
    return this.events.find((event) => event.uuid === uuid);
  }

  /** POSTs the event (again) to the webhook URL, as UISP does after a failed attempt; a no-op without a URL. */
  send(uuid: string): void {
    const body = this.bodies.get(uuid);
    const url = this.url;
    if (!body || !url) return;
    this.queue = this.queue.then(async () => {
      const started = performance.now();
      const ms = () => Math.round(performance.now() - started);
      try {
        const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
        await response.arrayBuffer();
        this.deliveries.push({ uuid, url, status: response.status, ms: ms() });
      } catch {
        this.deliveries.push({ uuid, url, status: 0, ms: ms() });
      }
    });
  }

  /** Resolves when every delivery started so far has been answered (or failed). */
  async settled(): Promise<void> {
    let last: Promise<void> | undefined;
    while (last !== this.queue) await (last = this.queue);
  }
}
