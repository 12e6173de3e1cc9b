/** Building the payments listing: the client (by id, or a name resolved in the CRM), the page, names. */
import type { ClientKey } from '../../services/input/grammar.js';
import { clientMatch } from '../../services/lookups/index.js';
import type { PaymentQuery } from '../../services/payments.js';
import type { Client } from '../../services/uisp/schemas.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure } from '../../slack/errors.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import { encodeMetadata, PaymentRangeSchema, type PaymentRange } from '../../slack/metadata.js';
import { notice } from '../../views/help.js';
import type { SlackMessage } from '../../views/kit.js';
import { clientMatchesMessage } from '../../views/lookups.js';
import { PAYMENTS_ACTION, paymentsList } from '../../views/payments.js';

/** The listing, or what went wrong in one line (listing only reads: nothing was changed). */
export async function answer(deps: ListenerDeps, userId: string, build: () => Promise<SlackMessage>): Promise<SlackMessage> {
  try {
    return await build();
  } catch (error) {
    const failure = describeFailure(error);
    if (!failure.expected) deps.logger.error({ err: error, userId }, 'listing payments failed');
    return notice(`:x: ${escapeMrkdwn(failure.message)}`);
  }
}

/** Payments per page; the totals always cover the whole range. */
export const PAGE_SIZE = 20;

export type ClientResolution = { clientId: number | undefined } | { problem: string } | { matches: Client[]; query: string };

/** A client id as typed, or the one client a name matches; several matches are for the agent to pick from. */
export async function resolveClient(deps: ListenerDeps, key: ClientKey | undefined): Promise<ClientResolution> {
  if (key === undefined) return { clientId: undefined };
  if ('id' in key) return { clientId: key.id };
  const found = await deps.services.lookups.findClients(key);
  if (found.length === 1) return { clientId: found[0]!.id };
  if (!found.length) return { problem: `No CRM client matches “${key.name}”.` };
  return { matches: found, query: key.name };
}

/** The first page for the typed filters; a name of several clients lists them, each with a button for its payments. */
export async function listingFor(deps: ListenerDeps, filters: { client?: ClientKey; from?: string; to?: string }): Promise<SlackMessage> {
  const resolved = await resolveClient(deps, filters.client);
  const range = { ...(filters.from && { from: filters.from }), ...(filters.to && { to: filters.to }), page: 1 };
  if ('problem' in resolved) return notice(`:x: ${escapeMrkdwn(resolved.problem)}`);
  if ('matches' in resolved) {
    return clientMatchesMessage(resolved.query, resolved.matches.map(clientMatch), {
      actionId: PAYMENTS_ACTION.forClient,
      text: 'Show payments',
      value: (match) => encodeMetadata(PaymentRangeSchema, { ...range, clientId: match.id }),
    });
  }
  return pageOf(deps, { ...range, ...(resolved.clientId !== undefined && { clientId: resolved.clientId }) });
}

/** One page of a range, with the totals of that page and of the whole range. */
export async function pageOf(deps: ListenerDeps, range: PaymentRange): Promise<SlackMessage> {
  const { payments } = deps.services;
  const query: PaymentQuery = { ...(range.clientId !== undefined && { clientId: range.clientId }), ...(range.from && { from: range.from }), ...(range.to && { to: range.to }), show: PAGE_SIZE, skip: (range.page - 1) * PAGE_SIZE };
  const [summary, methods] = await Promise.all([payments.summarize(query), payments.listMethods().catch(() => [])]);
  // The summary reads the client first: a wrong id says "no client #42" rather than "no payments".
  const { client } = summary;
  const clientNames = await payments.clientNames(summary.payments, client ? [client] : []);
  return paymentsList({ summary, client, clientNames, methodNames: new Map(methods.map((m) => [m.id, m.name])) });
}
