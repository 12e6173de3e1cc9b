/**
 * Clients' display names for a payments listing or export, kept as id → name (never whole records).
 * What it asks the CRM is picked by count: a few names are read one client at a time (GET /clients/{id}:
 * the cost of the question, whatever the ISP's size); past CLIENT_READS_BEFORE_LISTING, the CRM's client
 * list is read once instead, a page of CLIENTS_PAGE at a time (GET /clients?limit=&offset=), and every
 * name it gives is kept for the rest of the export; when many names are still missing after it (archived
 * clients, which GET /clients leaves out), the archived clients' list too. A client the lists leave out
 * (new since its page was read, say) is still read on its own: a list is a speed-up, never the only source.
 */
import type { Client } from './uisp/schemas.js';
import { clientDisplayName, CLIENTS_PAGE, type CrmClient } from './uisp/crm-client.js';
import { UispNotFoundError, UispRejectedError, UispValidationError } from './uisp/errors.js';

/** Client reads an export has in flight at once while naming a page's clients. */
export const CLIENT_READS_IN_FLIGHT = 8;

/**
 * How many clients one export reads on its own before it reads the client list instead. The list of the
 * largest ISP SubOps is built for (30,000 clients) is 60 pages of CLIENTS_PAGE: past 60 names, reading
 * the list is never more requests than reading each client, at any ISP size up to that; below, reading
 * each client asks only for the records needed (~1.5 KB each) and costs the same at any ISP size.
 */
export const CLIENT_READS_BEFORE_LISTING = 60;

/**
 * How many clients an export reads on its own after the client list before it reads the archived
 * clients' list: those it left out are archived ones (or new since), and archived clients are a few in
 * a hundred, a page or two of the list at any ISP size.
 */
export const READS_AFTER_LIST_BEFORE_ARCHIVED = 20;

/**
 * The CRM's client list, read in pages and checked: a page longer than asked (`limit` ignored) or one
 * bringing no client not already listed (`offset` ignored) stops the reading; so does a 404 or a refused
 * parameter (400, 422). Such a CRM is remembered (said once through `notice`) and not asked for its list again:
 * names are then read one client at a time, as they were before the list was used. Names already taken
 * from its answers stay: each sits beside its own client's id, whatever the paging did.
 */
export class ClientList {
  private pages = true;

  constructor(
    private readonly crm: CrmClient,
    private readonly notice: (line: string) => void,
  ) {}

  /** False once the CRM showed it does not page GET /clients as asked. */
  get usable(): boolean {
    return this.pages;
  }

  /**
   * Adds the name of every client the list gives to `names` (`archived`: the archived clients' list);
   * a failed read leaves the rest to per-client reads.
   */
  async nameInto(names: Map<number, string>, { archived = false }: { archived?: boolean } = {}): Promise<void> {
    const listed = new Set<number>();
    try {
      for await (const page of this.crm.clientNamePages(CLIENTS_PAGE, { archived })) {
        const fresh = page.filter((client) => !listed.has(client.id));
        for (const client of fresh) {
          listed.add(client.id);
          names.set(client.id, clientDisplayName(client));
        }
        if (page.length > CLIENTS_PAGE) return this.notPaged(`answered ${page.length} clients to limit=${CLIENTS_PAGE}`);
        if (fresh.length === 0) return this.notPaged(`answered offset=${listed.size} with clients it had already listed`);
      }
    } catch (error) {
      if (error instanceof UispNotFoundError || error instanceof UispRejectedError || error instanceof UispValidationError) return this.notPaged(`refused it (${error.message})`);
      // A timeout or an outage is not the CRM's way of paging: asked again next time.
    }
  }

  private notPaged(why: string): void {
    this.pages = false;
    this.notice(`The CRM does not page GET /clients as asked (it ${why}): payment exports read each client's name on its own (GET /clients/{id}) from now on.`);
  }
}

/** The names of one listing or export: read as its pages need them, kept until it ends. */
export class ClientNameBook {
  private readonly names = new Map<number, string>();
  /** Clients read on their own (named or not): each at most once. */
  private readonly asked = new Set<number>();
  private listRead = false;
  private archivedRead = false;
  /** Clients read on their own since the client list was read. */
  private readAfterList = 0;

  constructor(
    private readonly list: ClientList,
    /** One client, as the listing's cache has it or read afresh. */
    private readonly readClient: (id: number) => Promise<Client>,
    inHand: readonly Client[] = [],
  ) {
    for (const client of inHand) this.names.set(client.id, clientDisplayName(client));
  }

  /** id → display name of every client named so far (a client that could not be read is left out). */
  get known(): ReadonlyMap<number, string> {
    return this.names;
  }

  /** Names these clients (those not named yet), by the client list or one at a time: see the file's comment. */
  async add(ids: Iterable<number>): Promise<void> {
    let wanted = [...new Set(ids)].filter((id) => !this.names.has(id) && !this.asked.has(id));
    if (wanted.length === 0) return;
    const manyToRead = () => this.list.usable && this.asked.size + wanted.length > CLIENT_READS_BEFORE_LISTING;
    if (!this.listRead && manyToRead()) {
      this.listRead = true;
      await this.list.nameInto(this.names);
      wanted = wanted.filter((id) => !this.names.has(id));
    }
    // Archived clients still pay off their balances, and GET /clients leaves them out: when the export goes
    // on reading clients after the list, the archived clients' list too (a few pages: 2 % of the clients).
    if (this.listRead && !this.archivedRead && this.list.usable && this.readAfterList + wanted.length > READS_AFTER_LIST_BEFORE_ARCHIVED) {
      this.archivedRead = true;
      await this.list.nameInto(this.names, { archived: true });
      wanted = wanted.filter((id) => !this.names.has(id));
    }
    if (this.listRead) this.readAfterList += wanted.length;
    for (const id of wanted) this.asked.add(id);
    await eachAtMost(CLIENT_READS_IN_FLIGHT, wanted, async (id) => {
      // Names are a nicety: a client that cannot be read is shown by id.
      const client = await this.readClient(id).catch(() => undefined);
      if (client) this.names.set(id, clientDisplayName(client));
    });
  }
}

/** Runs `task` for every item, at most `limit` at a time; resolves when all are done. */
async function eachAtMost<T>(limit: number, items: T[], task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
