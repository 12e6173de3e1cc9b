/**
 * What the UISP HTTP core tells an injected observer about each request it sends: metrics time them,
 * and the services layer notes SubOps' own writes so a webhook about them is recognised. The core works
 * the same with no observer; observers never change a request or its outcome.
 */
import type { UispSystem } from './errors.js';

export interface UispExchange {
  system: UispSystem;
  method: string;
  /** The concrete path, without the query: /crm/api/v1.0/clients/services/101/suspend. */
  path: string;
  /** The path with ids as `{id}`, a label of bounded cardinality: /crm/api/v1.0/clients/services/{id}/suspend. */
  endpoint: string;
}

export interface UispExchangeOutcome {
  /** The HTTP status of a refusal or failure; `2xx` for any success; `none` when no answer came (timeout, reset). */
  status: string;
  durationMs: number;
  /** The JSON body of a successful answer (null when it was empty). */
  body?: unknown;
}

export interface UispObserver {
  /** Called as each attempt is sent; the function it returns is called once, when the attempt ends. */
  request(exchange: UispExchange): (outcome: UispExchangeOutcome) => void;
}

// Numeric CRM ids, NMS GUIDs and other opaque ids (hex with dashes, 16+ characters).
const ID_SEGMENT = /^(\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f-]{16,})$/i;

export function endpointOf(path: string): string {
  return path
    .split('/')
    .map((segment) => (ID_SEGMENT.test(segment) ? '{id}' : segment))
    .join('/');
}

/** One observer that hands every exchange to each of these. */
export function allOf(observers: readonly UispObserver[]): UispObserver {
  return {
    request(exchange) {
      const finishes = observers.map((observer) => observer.request(exchange));
      return (outcome) => {
        for (const finish of finishes) finish(outcome);
      };
    },
  };
}
