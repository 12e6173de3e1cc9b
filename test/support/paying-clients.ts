/**
 * An ISP with many paying clients, for counting what a payments export asks UISP: the simulator's data
 * plus `count` clients (residential ones, companies every seventh, some names a CSV must quote), each
 * with one payment in March 2020 (before any of the sample data's payments), an archived client who paid
 * then too, and a payment of a client the CRM no longer has.
 */
import type { RunningSimulator } from '../../src/simulator/index.js';
import { clientDisplayName } from '../../src/services/uisp/client-name.js';
import type { Services } from '../../src/services/container.js';
import { csvHeader, paymentCsvLine } from '../../src/services/payments-csv.js';

/** The range the generated payments fall in: `--from`, `--to`. */
export const PAYING_RANGE = { from: '2020-03-01', to: '2020-03-31' } as const;

export const FIRST_PAYER_ID = 20_000;
export const ARCHIVED_PAYER_ID = 19_999;
export const GONE_PAYER_ID = 19_998;

export function addPayingClients(sim: RunningSimulator, count: number): void {
  const { clients, payments } = sim.data;
  const client = clients[0]!;
  const payment = payments[0]!;
  const person = (id: number, i: number) =>
    i % 7 === 3
      ? { ...client, id, clientType: 2 as const, firstName: null, lastName: null, companyName: `Rupununi Traders ${i}, Ltd.` }
      : { ...client, id, firstName: i % 11 === 5 ? `Anne "Nan" ${i}` : `Payer${i}`, lastName: `Demerara${i}`, companyName: null };
  const add = (clientId: number, i: number) =>
    payments.push({ ...payment, id: 900_000 + i, clientId, amount: 1000 + i, note: null, createdDate: `2020-03-${String(1 + (i % 28)).padStart(2, '0')}T${String(8 + (i % 10)).padStart(2, '0')}:00:00+0000` });
  for (let i = 0; i < count; i++) {
    clients.push({ ...person(FIRST_PAYER_ID + i, i), userIdent: `PAY-${i}`, contacts: [], tags: [] });
    add(FIRST_PAYER_ID + i, i);
  }
  clients.push({ ...person(ARCHIVED_PAYER_ID, 0), userIdent: 'PAY-ARCHIVED', contacts: [], tags: [], isArchived: true });
  add(ARCHIVED_PAYER_ID, count);
  add(GONE_PAYER_ID, count + 1);
}

/**
 * The CSV of the range as SubOps wrote it before client names came from the client list: every payment
 * of the range, newest first, each client's name read on its own (GET /clients/{id}; none when that fails).
 */
export async function csvByClientReads(services: Services, range: { from: string; to: string }): Promise<string> {
  const methodNames = new Map((await services.crm.listPaymentMethods()).map((m) => [m.id, m.name] as const));
  const clientNames = new Map<number, string>();
  const lines = [csvHeader()];
  for await (const page of services.crm.paymentPages({ createdDateFrom: range.from, createdDateTo: range.to, direction: 'DESC' })) {
    for (const payment of page) {
      const id = payment.clientId;
      if (id != null && !clientNames.has(id)) {
        const client = await services.crm.getClient(id).catch(() => undefined);
        if (client) clientNames.set(id, clientDisplayName(client));
      }
      lines.push(paymentCsvLine(payment, { clientNames, methodNames }));
    }
  }
  return `${lines.join('\n')}\n`;
}
