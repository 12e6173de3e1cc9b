/**
 * The client typeahead's questions to the CRM, each costing what it asks, not what the ISP is big: for
 * typed text, the active clients the CRM's own search finds (GET /clients?query=&limit=, one page of
 * what can be shown; the CRM Blueprint wants at least two characters); for a typed id (`1001`,
 * `#1001`), that client (GET /clients/{id}). Answers are kept for a short TTL, so a repeated keystroke,
 * or an answer that landed after the typeahead's deadline, is answered at once.
 *
 * A search is a speed-up, never the source of truth: the typeahead still matches every typed word
 * itself, and an answer holding a client that mentions none of the typed words anywhere in its record
 * plainly ignores `query` (as does a CRM answering 404): such a question is marked `ignored`, for the
 * caller to answer from the full client list instead, which is said once in the log.
 */
import type { Logger } from 'pino';
import { TtlCache } from '../cache.js';
import type { CrmClient } from '../uisp/crm-client.js';
import { UispNotFoundError } from '../uisp/errors.js';
import type { Client } from '../uisp/schemas.js';
import { clientMatch } from './lines.js';
import type { ClientMatch } from './types.js';

export type ClientQuestion = { by: 'id'; id: number } | { by: 'text'; text: string };

/** The clients a question found, or that the CRM did not honour its search (ask the full list). */
export type ClientAnswer = { clients: ClientMatch[] } | { ignored: true };

export interface ClientSearchOptions {
  crm: Pick<CrmClient, 'listClients' | 'getClient'>;
  /** The most clients one search asks for (what the typeahead can show). */
  limit: number;
  ttlMs: number;
  now: () => number;
  logger?: Logger | undefined;
}

/** The CRM's search needs at least two characters (CRM API Blueprint, GET /clients `query`). */
const MIN_QUERY_LENGTH = 2;
const LARGEST_ID = 2 ** 31 - 1;

/** What to ask the CRM for typed text: the id it names, if any, and the text itself when the search can take it. */
export function clientQuestions(typed: string): ClientQuestion[] {
  const id = /^#?(\d+)$/.exec(typed)?.[1];
  const questions: ClientQuestion[] = id !== undefined && Number(id) >= 1 && Number(id) <= LARGEST_ID ? [{ by: 'id', id: Number(id) }] : [];
  // `#1001` names an id and nothing else, as in the index's matching (`#` + id).
  if (typed.length >= MIN_QUERY_LENGTH && !typed.startsWith('#')) questions.push({ by: 'text', text: typed });
  return questions;
}

export class ClientSearch {
  private readonly answers: TtlCache<string, ClientAnswer>;
  private toldIgnored = false;

  constructor(private readonly o: ClientSearchOptions) {
    this.answers = new TtlCache({ ttlMs: o.ttlMs, now: o.now, maxEntries: 500 });
  }

  /** The answer to one question, from the cache or the CRM; rejects when the CRM could not be read. */
  ask(question: ClientQuestion): Promise<ClientAnswer> {
    const key = question.by === 'id' ? `id:${question.id}` : `text:${question.text}`;
    return this.answers.get(key, () => (question.by === 'id' ? this.byId(question.id) : this.byText(question.text)));
  }

  private async byId(id: number): Promise<ClientAnswer> {
    try {
      const client = await this.o.crm.getClient(id);
      return { clients: client.id === id ? [clientMatch(client)] : [] };
    } catch (error) {
      if (error instanceof UispNotFoundError) return { clients: [] };
      throw error;
    }
  }

  private async byText(text: string): Promise<ClientAnswer> {
    let found: Client[];
    try {
      found = await this.o.crm.listClients({ query: text, limit: this.o.limit });
    } catch (error) {
      if (!(error instanceof UispNotFoundError)) throw error;
      return this.ignored(text, 'the CRM answered 404 to GET /clients?query=');
    }
    const words = squashedWords(text);
    const stranger = words.length > 0 && found.find((client) => !mentionsAny(client, words));
    if (stranger) return this.ignored(text, `the CRM's answer to GET /clients?query= holds client ${stranger.id}, which mentions none of the typed words`);
    return { clients: found.map(clientMatch) };
  }

  private ignored(text: string, why: string): ClientAnswer {
    if (!this.toldIgnored) {
      this.toldIgnored = true;
      this.o.logger?.warn({ query: text, why }, 'the CRM does not honour its client search; the typeahead reads the whole client list for such questions');
    }
    return { ignored: true };
  }
}

/**
 * Lower case, accents and punctuation dropped: how leniently an answer is checked against the typed
 * words, so that a CRM matching `6001001` to `+592 600 1001` or `jose` to `José` is not taken for one
 * that ignores the search.
 */
function squash(text: string): string {
  return text.normalize('NFD').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

function squashedWords(text: string): string[] {
  return text.split(/\s+/).map(squash).filter(Boolean);
}

/** Whether any value of the record (names, custom id, contacts, address, anything the CRM sent) holds one of the words. */
function mentionsAny(record: unknown, words: string[]): boolean {
  if (typeof record === 'string' || typeof record === 'number') {
    const value = squash(String(record));
    return words.some((word) => value.includes(word));
  }
  if (Array.isArray(record)) return record.some((item) => mentionsAny(item, words));
  if (record && typeof record === 'object') return Object.values(record).some((value) => mentionsAny(value, words));
  return false;
}
