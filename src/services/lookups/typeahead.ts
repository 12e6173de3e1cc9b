/**
 * Typeahead for the forms' device and client fields. Devices: an index of the NMS devices (authorized
 * and discovered), cached for a short TTL and refreshed in the background; if UISP is slower than the
 * deadline the answer is what the cache has, marked incomplete (the front end adds a hint). Clients: the
 * CRM is asked for what was typed (./client-search.ts), so an answer costs the same at any ISP size and
 * is complete from the first keystroke; a question the CRM does not answer within the deadline leaves
 * the answer marked incomplete, and only a CRM that ignores its search makes the full client list
 * (cached like the devices') needed. Pure matching; front ends render the suggestions.
 */
import type { Logger } from 'pino';
import type { CrmClient } from '../uisp/crm-client.js';
import type { NmsClient } from '../uisp/nms-client.js';
import { ClientSearch, clientQuestions, type ClientAnswer, type ClientQuestion } from './client-search.js';
import { clientMatch, deviceKey, deviceLine } from './lines.js';
import type { ClientMatch, DeviceLine } from './types.js';

export interface Suggestion {
  /** What the agent reads, e.g. `#1001 Marcus Baptiste` or `cpe-baptiste · 10.20.1.21`. */
  label: string;
  /** What the form receives: a client id, or the device's IP, MAC or name (what the activation form accepts). */
  value: string;
  /** A second line that tells matches apart (address, model…), or undefined. */
  detail?: string | undefined;
}

export interface Suggestions {
  query: string;
  suggestions: Suggestion[];
  /**
   * Whether UISP's answers behind them are complete and current: false when UISP did not answer within
   * the deadline (the suggestions are what had come, or what the cache had, perhaps nothing) or could
   * not be read.
   */
  complete: boolean;
}

export interface TypeaheadOptions {
  crm: Pick<CrmClient, 'listClients' | 'getClient'>;
  nms: Pick<NmsClient, 'listDevices' | 'listDiscoveredDevices'>;
  logger?: Logger | undefined;
  /** How long a loaded index (or a client search's answer) is current; after half of it a read also refreshes the index in the background. */
  ttlMs?: number;
  /** The longest an answer waits for UISP; Slack wants options within 3 s, SubOps answers within 2.5 s. */
  deadlineMs?: number;
  /** At most this many suggestions (Slack shows 100 options at most). */
  limit?: number;
  now?: () => number;
  /** Resolves after `ms`; tests pass one they resolve themselves. */
  wait?: (ms: number) => Promise<void>;
}

export const TYPEAHEAD_TTL_MS = 60_000;
export const TYPEAHEAD_DEADLINE_MS = 2_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** One list read from UISP, served from memory, refreshed when old. */
class CachedList<T> {
  private loaded: { items: T[]; at: number } | undefined;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly name: string,
    private readonly load: () => Promise<T[]>,
    private readonly o: Required<Pick<TypeaheadOptions, 'ttlMs' | 'deadlineMs' | 'now' | 'wait'>> & { logger: Logger | undefined },
  ) {}

  /** The items, within the deadline: `complete` is false when they are older than the TTL, or missing. */
  async read(): Promise<{ items: T[]; complete: boolean }> {
    const age = this.loaded ? this.o.now() - this.loaded.at : Infinity;
    if (age < this.o.ttlMs) {
      if (age >= this.o.ttlMs / 2) void this.refresh();
      return { items: this.loaded!.items, complete: true };
    }
    const done = await Promise.race([this.refresh().then(() => true), this.o.wait(this.o.deadlineMs).then(() => false)]);
    const current = this.loaded && this.o.now() - this.loaded.at < this.o.ttlMs;
    return { items: this.loaded?.items ?? [], complete: done && Boolean(current) };
  }

  /** One load at a time; a failure is logged and leaves the old items in place. Never rejects. */
  private refresh(): Promise<void> {
    return (this.loading ??= this.load()
      .then((items) => {
        this.loaded = { items, at: this.o.now() };
      })
      .catch((error: unknown) => {
        this.o.logger?.warn({ err: error instanceof Error ? error.message : String(error), list: this.name }, 'could not refresh the typeahead index; answering from what it has');
      })
      .finally(() => {
        this.loading = undefined;
      }));
  }
}

export class TypeaheadIndex {
  private readonly devices: CachedList<DeviceLine>;
  /** The whole client list: read only for a CRM that ignores its client search. */
  private readonly clientList: CachedList<ClientMatch>;
  private readonly clientSearch: ClientSearch;
  private readonly limit: number;
  private readonly settings: Required<Pick<TypeaheadOptions, 'deadlineMs' | 'wait'>> & { logger: Logger | undefined };

  constructor(options: TypeaheadOptions) {
    const settings = {
      ttlMs: options.ttlMs ?? TYPEAHEAD_TTL_MS,
      deadlineMs: options.deadlineMs ?? TYPEAHEAD_DEADLINE_MS,
      now: options.now ?? Date.now,
      wait: options.wait ?? sleep,
      logger: options.logger,
    };
    this.settings = settings;
    this.limit = options.limit ?? 50;
    const { crm, nms } = options;
    this.devices = new CachedList(
      'devices',
      async () => {
        const [authorized, discovered] = await Promise.all([nms.listDevices(), nms.listDiscoveredDevices()]);
        const known = new Set(authorized.map((d) => d.identification.id));
        return [...authorized.map((d) => deviceLine(d, 'authorized')), ...discovered.filter((d) => !known.has(d.identification.id)).map((d) => deviceLine(d, 'discovered'))];
      },
      settings,
    );
    this.clientList = new CachedList('clients', async () => (await crm.listClients()).map(clientMatch), settings);
    this.clientSearch = new ClientSearch({ crm, limit: this.limit, ttlMs: settings.ttlMs, now: settings.now, logger: settings.logger });
  }

  /** Devices whose name, IP, MAC or model contain every typed word; an exact IP, MAC or name first. */
  async device(query: string): Promise<Suggestions> {
    const { items, complete } = await this.devices.read();
    const found = rank(query, items, (d) => [d.name, d.ip, d.mac, d.model], (d) => [d.ip, d.mac, d.name]);
    return { query: query.trim(), complete, suggestions: found.slice(0, this.limit).map(deviceSuggestion) };
  }

  /**
   * Clients (people and companies, not archived ones) whose name, id, custom id, email or phone contain
   * every typed word, among those the CRM finds for the typed text or id; each question to the CRM is
   * bounded by the deadline, and one that missed it leaves the answer marked incomplete.
   */
  async client(query: string): Promise<Suggestions> {
    const typed = query.trim();
    const questions = clientQuestions(typed);
    const deadline = questions.length ? this.settings.wait(this.settings.deadlineMs).then(() => undefined) : undefined;
    const answers = await Promise.all(questions.map((question) => Promise.race([this.clientsFor(question), deadline])));
    const candidates = new Map<number, ClientMatch>();
    for (const answer of answers) for (const client of answer?.clients ?? []) candidates.set(client.id, client);
    // In the order the client list has them (by id), as the index had them.
    const active = [...candidates.values()].filter((c) => !c.archived).sort((a, b) => a.id - b.id);
    const found = rank(typed, active, (c) => [c.name, String(c.id), `#${c.id}`, c.userIdent, c.email, c.phone], (c) => [String(c.id), `#${c.id}`, c.name]);
    const complete = answers.every((answer) => answer?.complete === true);
    return { query: typed, complete, suggestions: found.slice(0, this.limit).map(clientSuggestion) };
  }

  /** The clients one question finds: the CRM's answer, or the whole list's for a CRM that ignored the search. Never rejects. */
  private async clientsFor(question: ClientQuestion): Promise<{ clients: ClientMatch[]; complete: boolean }> {
    let answer: ClientAnswer;
    try {
      answer = await this.clientSearch.ask(question);
    } catch (error) {
      this.settings.logger?.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not ask the CRM for the typed client; the suggestions may be incomplete');
      return { clients: [], complete: false };
    }
    if (!('ignored' in answer)) return { clients: answer.clients, complete: true };
    const { items, complete } = await this.clientList.read();
    return { clients: items, complete };
  }
}

/** The items matching every word of the query, those matching one of `exact` whole first, each group in index order. */
function rank<T>(query: string, items: T[], searchable: (item: T) => (string | null)[], exact: (item: T) => (string | null)[]): T[] {
  const typed = query.trim().toLowerCase();
  const words = typed.split(/\s+/).filter(Boolean);
  const matching = items.filter((item) => {
    const haystack = searchable(item).filter(Boolean).join(' ').toLowerCase();
    return words.every((word) => haystack.includes(word));
  });
  const isExact = (item: T) => exact(item).some((key) => key?.toLowerCase() === typed);
  return [...matching.filter(isExact), ...matching.filter((item) => !isExact(item))];
}

function deviceSuggestion(d: DeviceLine): Suggestion {
  const where = [d.ip, d.mac].filter(Boolean).join(' · ');
  return { label: where ? `${d.name} · ${where}` : d.name, value: deviceKey(d), detail: `${d.model ?? 'device'}${d.list === 'discovered' ? ', discovered' : ''}${d.online ? ', online' : ''}` };
}

function clientSuggestion(c: ClientMatch): Suggestion {
  const detail = [c.address, c.userIdent].filter(Boolean).join(' · ');
  return { label: `#${c.id} ${c.name}`, value: String(c.id), ...(detail && { detail }) };
}
