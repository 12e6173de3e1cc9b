/**
 * Commands worth trying in the playground, read from the simulator's data rather than written down,
 * so they stay true when the sample data changes: which device belongs to which client and what that
 * client's services make the activation do, which service can be suspended or unsuspended, whose
 * payments to list.
 */
import { statusLabel, type ServiceNumbering } from '../services/activation/service-status.js';
import type { SimulatorData } from '../simulator/index.js';

export interface SampleTry {
  command: string;
  /** What the command shows, from the data. */
  note: string;
}

type Client = SimulatorData['clients'][number];
type Device = SimulatorData['devices'][number];

// A name for the brand-new customer; any name works.
const NEW_CUSTOMER = 'Ada Lovelace';

/** `statuses`: the numbering of the simulator's world (the interface document's unless told otherwise). */
export function sampleTries(data: SimulatorData, statuses: ServiceNumbering): SampleTry[] {
  const people = data.clients.filter((c) => !c.isArchived && c.firstName && c.lastName);
  const servicesOf = (client: Client) => data.services.filter((s) => s.clientId === client.id);
  const describe = (client: Client) => {
    const services = servicesOf(client).map((s) => `service ${s.id} ${statusLabel(s.status, statuses)}`);
    return `${client.firstName} ${client.lastName} (#${client.id}), ${services.length ? services.join(', ') : 'no service yet'}`;
  };

  const activations = data.devices.flatMap((device): SampleTry[] => {
    const ip = device.identification.ip ?? device.ipAddress.split('/')[0];
    const client = ownerOf(device, data, people);
    if (client) return [{ command: `/activate ${ip} ${client.firstName} ${client.lastName}`, note: `${device.identification.name} → ${describe(client)}` }];
    if (!device.identification.authorized) return [{ command: `/activate ${ip} ${NEW_CUSTOMER}`, note: `${device.identification.name}, discovered, nobody's yet: a new customer` }];
    return [];
  });

  const withStatus = (status: number) => data.services.find((s) => s.status === status);
  const active = withStatus(statuses.active);
  const suspended = withStatus(statuses.suspended);
  const payer = people.find((c) => data.payments.some((p) => p.clientId === c.id));
  const newDevice = data.devices.find((d) => !d.identification.authorized && !ownerOf(d, data, people));
  const nameOf = (clientId: number) => {
    const client = data.clients.find((c) => c.id === clientId);
    return client ? [client.firstName, client.lastName].filter(Boolean).join(' ') || client.companyName : `#${clientId}`;
  };
  return [
    ...activations,
    ...(active ? [{ command: `/suspend ${active.id}`, note: `service of ${nameOf(active.clientId)}, Active` }] : []),
    ...(suspended ? [{ command: `/unsuspend ${suspended.id}`, note: `service of ${nameOf(suspended.clientId)}, Suspended` }] : []),
    { command: '/payments', note: 'the latest payments, with totals per currency' },
    ...(payer ? [{ command: `/payments ${payer.id}`, note: `${payer.firstName} ${payer.lastName}'s payments (/press Next, /press Export CSV)` }, { command: `/payments add ${payer.id}`, note: 'record a payment' }] : []),
    ...(suspended ? [{ command: `/client ${suspended.clientId}`, note: `${nameOf(suspended.clientId)}'s card (/press Unsuspend #${suspended.id})` }] : []),
    ...(newDevice ? [{ command: `/device ${newDevice.identification.ip ?? newDevice.ipAddress.split('/')[0]}`, note: `${newDevice.identification.name}'s card (/press Activate for a customer)` }] : []),
  ];
}

/** The client a device serves: its site's CRM client, or for a discovered device the client it is named after. */
function ownerOf(device: Device, data: SimulatorData, people: Client[]): Client | undefined {
  const siteId = device.identification.site?.id;
  const site = siteId === undefined ? undefined : data.sites.find((s) => s.id === siteId);
  const linked = site?.ucrm?.client?.id;
  if (linked !== undefined && linked !== null) return people.find((c) => String(c.id) === String(linked));
  if (device.identification.authorized) return undefined;
  const name = device.identification.name.toLowerCase();
  return people.find((c) => name.includes(String(c.lastName).toLowerCase()));
}

export function sampleTryLines(tries: SampleTry[]): string[] {
  const width = Math.max(...tries.map((t) => t.command.length));
  return tries.map((t) => `  ${t.command.padEnd(width)}   ${t.note}`);
}
