/** How a person names a client: "First Last" for residential clients, the company name otherwise. A pure function, so views use it without the CRM client's I/O. */
export function clientDisplayName(client: { id: number; firstName?: string | null; lastName?: string | null; companyName?: string | null }): string {
  return [client.firstName, client.lastName].filter(Boolean).join(' ') || client.companyName || `client #${client.id}`;
}
