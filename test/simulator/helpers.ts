/** Small fetch helpers for the simulator tests: real loopback HTTP with the global fetch. */
import type { RunningSimulator } from '../../src/simulator/index.js';

export const CRM = '/crm/api/v1.0';

/** The ids of a listing, in its order. */
export const ids = (list: { id: number }[]) => list.map((item) => item.id);
/** UISP's date-time form in CRM answers (`createdDate`, `activeTo`…). */
export const UISP_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$/;
export const NMS = '/nms/api/v2.1';

export interface Answer {
  status: number;
  /** Parsed JSON; `any` because tests assert on it field by field. */
  body: any;
}

export async function call(sim: RunningSimulator, method: string, path: string, body?: unknown, headers: Record<string, string> = { 'X-Auth-Token': sim.token }): Promise<Answer> {
  const res = await fetch(sim.url + path, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

export const crm = (sim: RunningSimulator, method: string, path: string, body?: unknown) => call(sim, method, CRM + path, body);
export const nms = (sim: RunningSimulator, method: string, path: string, body?: unknown) => call(sim, method, NMS + path, body);

