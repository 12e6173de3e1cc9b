/**
 * The audit channel's notice of a late duplicate (two SubOps-made Active services, or SubOps sites, of
 * one client; or SubOps-made namesakes of the client with no service): the client, the record the
 * activation reported (kept; for clients, the client activations use), each late one with its **Remove
 * duplicate** button, and the notice as it reads after a click (removed, or not and why, and who
 * pressed). Pure Block Kit; the button's value is zod-checked on the way back (RemoveDuplicateValueSchema).
 */
import { lateDuplicateSentence } from '../render/activation.js';
import { describeRecord } from '../render/duplicates.js';
import type { LateDuplicate } from '../services/activation/types.js';
import { removalRequest, type RemovalOutcome, type RemovalRequest } from '../services/duplicates.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { encodeMetadata, RemoveDuplicateValueSchema } from '../slack/metadata.js';
import { channelLink, link, mention } from './format.js';
import { ACTION } from './ids.js';
import { button, context, message, section, type Block, type SlackMessage } from './kit.js';

/** Who met the duplicate: an activation's result, a `/client` card, a UISP event about a service. */
export type DuplicateSource = 'activation' | 'card' | 'event';

const MET_BY: Record<DuplicateSource, string> = {
  activation: 'an activation of this client',
  card: 'a /client card',
  event: 'a UISP event about one of the client’s services',
};

/** Slack message metadata of a notice: which duplicate it names (to find it again, e.g. after a restart). */
export const LATE_DUPLICATE_EVENT_TYPE = 'subops_late_duplicate';

/** How the notice words each kind of record: the kept one, the late ones, what the button checks, the fallback text. */
const WORDING: Record<LateDuplicate['record'], { kept: string; late: string; checks: string; never: string; counted: (duplicate: LateDuplicate) => string }> = {
  client: {
    kept: 'the one activations use',
    late: 'Empty namesake',
    checks:
      'reads both clients again and removes the namesake only if it is still SubOps-made, newer than the kept one and still named the same, with no service, no payment and no invoice',
    never: 'SubOps never removes another run’s client on its own.',
    counted: ({ others }) => `${others.length} SubOps-made namesake${others.length === 1 ? '' : 's'} with no service`,
  },
  service: {
    kept: 'the one the activation reported',
    late: 'Made late',
    checks: 'reads both again and removes the late one only if it is still SubOps-made and was never invoiced',
    never: 'SubOps never removes an Active service on its own.',
    counted: ({ others }) => `${others.length + 1} SubOps-made Active services`,
  },
  site: {
    kept: 'the one the activation reported',
    late: 'Made late',
    checks:
      'reads both again and removes the late one only if it is still SubOps-made, has no device on it and no CRM link, and was made for this client (or for an empty namesake of it, or one since removed)',
    never: 'SubOps never removes an Active service on its own.',
    counted: ({ others }) => `${others.length + 1} SubOps-made NMS sites`,
  },
};

/** The block of one late record (its button, later what came of it). */
export const lateBlockId = (request: Pick<RemovalRequest, 'record' | 'duplicateId'>): string => `late_duplicate:${request.record}:${request.duplicateId}`;
const outcomeBlockId = (request: Pick<RemovalRequest, 'record' | 'duplicateId'>): string => `${lateBlockId(request)}:outcome`;

export interface NoticeOptions {
  /** The client's page in the CRM web interface. */
  crmClientUrl: (clientId: number) => string;
}

export function lateDuplicateNotice(duplicate: LateDuplicate, source: DuplicateSource, { crmClientUrl }: NoticeOptions): SlackMessage {
  const { client, record } = duplicate;
  const wording = WORDING[record];
  const described = (r: { id: number | string; name: string | null }) => describeRecord(record, r, r.id);
  // A client is linked to its CRM page, so the person can look before pressing.
  const named = (r: { id: number | string; name: string | null }) => (record === 'client' ? link(crmClientUrl(Number(r.id)), described(r)) : escapeMrkdwn(described(r)));
  const blocks: Block[] = [
    section(`:warning: *Late duplicate* for client ${link(crmClientUrl(client.id), `#${client.id} ${client.name}`)}\n${escapeMrkdwn(lateDuplicateSentence(duplicate))}.`),
    section(`*Kept:* ${named(duplicate.kept)}, ${wording.kept}.`),
    ...duplicate.others.map((other) => {
      const request = removalRequest(duplicate, other.id);
      const remove = button({ actionId: `${ACTION.removeDuplicate}:${request.duplicateId}`, text: 'Remove duplicate', style: 'danger', value: encodeMetadata(RemoveDuplicateValueSchema, request) });
      return { ...section(`*${wording.late}:* ${named(other)}`, remove), block_id: lateBlockId(request) };
    }),
    context(`Met by ${MET_BY[source]}. *Remove duplicate* ${wording.checks}; otherwise it says why and changes nothing. ${wording.never}`),
  ];
  // NMS site ids are UISP's strings, escaped like its names.
  const lates = duplicate.others.map((o) => `#${o.id}`).join(', ');
  return message(`Late duplicate: client #${client.id} ${escapeMrkdwn(client.name)} has ${wording.counted(duplicate)} (kept ${escapeMrkdwn(String(duplicate.kept.id))}; late ${escapeMrkdwn(lates)})`, blocks);
}

export function lateDuplicateMetadata(duplicate: LateDuplicate): { event_type: string; event_payload: Record<string, string | number> } {
  return {
    event_type: LATE_DUPLICATE_EVENT_TYPE,
    event_payload: { record: duplicate.record, client_id: duplicate.client.id, kept_id: duplicate.kept.id, late_ids: duplicate.others.map((o) => o.id).join(',') },
  };
}

const ICON: Record<RemovalOutcome['kind'], string> = { removed: ':wastebasket:', refused: ':no_entry_sign:', failed: ':x:' };

/** One line: what a click did, in the render's words, and who pressed. */
export function removalLine(outcome: RemovalOutcome, sentence: string, userId: string): string {
  const who = outcome.kind === 'removed' ? `removed by ${mention(userId)}` : `pressed by ${mention(userId)}`;
  const what = outcome.kind === 'refused' && outcome.refusal.reason !== 'gone' ? `Not removed: ${escapeMrkdwn(sentence)}` : escapeMrkdwn(sentence);
  return `${ICON[outcome.kind]} ${what} (${who})`;
}

/**
 * The notice's blocks after a click on the late record `request` names: its button goes (kept after a
 * failure, which may be pressed again) and the line says what happened. Null when that record's block is
 * gone or already answered (no button): the notice already says what came of it.
 */
export function noticeAfterClick(blocks: readonly Block[], outcome: RemovalOutcome, line: string): Block[] | null {
  const id = lateBlockId(outcome.request);
  const index = blocks.findIndex((b) => b.block_id === id);
  const block = blocks[index];
  if (!block || block.type !== 'section' || !block.accessory) return null;
  const { accessory: _button, ...answered } = block;
  const late: Block = outcome.kind === 'failed' ? block : answered;
  const result: Block = { ...context(line), block_id: outcomeBlockId(outcome.request) };
  const rest = blocks.filter((b, i) => i !== index && b.block_id !== outcomeBlockId(outcome.request));
  rest.splice(index, 0, late, result);
  return rest;
}

/** What the presser is told when the removal waits for an approver (APPROVAL_REQUIRED_FOR=delete-service), or could not be asked. */
export function removalApprovalAsked(request: Pick<RemovalRequest, 'record' | 'duplicateId'>, outcome: { asked: string } | { problem: string }): string {
  const what = request.record === 'client' ? `client #${request.duplicateId} (with anything under it)` : `Active service #${request.duplicateId}`;
  if ('problem' in outcome) return `:x: Removing ${what} needs approval, and SubOps could not post the request: ${escapeMrkdwn(outcome.problem)} Nothing was changed.`;
  return `:lock: Removing ${what} needs an approver's approval: the request is in ${channelLink(outcome.asked)}. Nothing was changed yet; it runs once approved, after reading UISP again.`;
}
