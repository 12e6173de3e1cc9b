/**
 * Late-duplicate notices in the audit channel (src/views/duplicates.ts), once per late record across
 * replicas and restarts. Whoever meets a late duplicate (an activation's result, a `/client` card, a UISP
 * event) hands it here and goes on: `post` queues the notice and returns at once, the post counts as work
 * in flight (tests' `idle()`, the SIGTERM drain), and Slack's refusal is logged, never thrown.
 *
 * Each late record (`service:5007`, `site:<id>`, `client:1010`) is claimed in the store before its notice
 * is posted: of two replicas meeting the same record, one posts. A notice Slack refused releases its
 * claims, so the next meeting posts it; a posted one keeps them for KEEP_MS.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { LateDuplicate } from '../services/activation/types.js';
import { lateDuplicateMetadata, lateDuplicateNotice, type DuplicateSource } from '../views/duplicates.js';
import { errorSummary } from './errors.js';
import type { WorkTracker } from './work.js';
import type { ClaimLedger } from '../store/index.js';

export interface LateDuplicateNotices {
  /** Queues one notice per duplicate naming the late records no notice has named yet; returns at once. */
  post(found: readonly LateDuplicate[], source: DuplicateSource): void;
}

export interface NoticeDeps {
  client: webApi.WebClient;
  /** AUDIT_CHANNEL_ID; without it a late duplicate is logged only. */
  channelId: string | undefined;
  logger: Logger;
  work: WorkTracker;
  crmClientUrl: (clientId: number) => string;
  /** The store's claims: which late records have their notice. */
  claims: ClaimLedger;
}

/** How long a late record's notice is remembered: its Remove duplicate button stays where it was posted. */
const KEEP_MS = 90 * 24 * 3_600_000;

export function createLateDuplicateNotices({ client, channelId, logger, work, crmClientUrl, claims }: NoticeDeps): LateDuplicateNotices {
  const log = logger.child({ flow: 'late-duplicates' });
  const keyOf = (duplicate: LateDuplicate, id: number | string) => `late-duplicate:${duplicate.record}:${id}`;

  /** The late records of this duplicate no notice names yet, each claimed for this one. */
  const claimFresh = async (duplicate: LateDuplicate) => {
    const claimed = [];
    for (const other of duplicate.others) {
      const outcome = await claims.claim(keyOf(duplicate, other.id));
      if (outcome.won) claimed.push({ other, claim: outcome.claim });
    }
    return claimed;
  };

  return {
    post(found, source) {
      for (const duplicate of found) {
        void work.run(async () => {
          const base = { record: duplicate.record, clientId: duplicate.client.id, keptId: duplicate.kept.id, source };
          let claimed;
          try {
            claimed = await claimFresh(duplicate);
          } catch (error) {
            return log.error({ ...base, err: errorSummary(error) }, 'could not claim a late-duplicate notice in the store: not posted');
          }
          if (!claimed.length) return;
          const facts = { ...base, lateIds: claimed.map(({ other }) => other.id) };
          const notice = { ...duplicate, others: claimed.map(({ other }) => other) };
          try {
            if (!channelId) {
              // Nothing posted, so nothing to remember: once AUDIT_CHANNEL_ID is set, the next meeting posts it.
              log.warn(facts, 'a late duplicate was met (AUDIT_CHANNEL_ID is not set: no notice with Remove duplicate was posted)');
              for (const { claim } of claimed) await claim.release();
              return;
            }
            await client.chat.postMessage({ channel: channelId, ...lateDuplicateNotice(notice, source, { crmClientUrl }), metadata: lateDuplicateMetadata(notice), unfurl_links: false });
            log.info(facts, 'posted a late-duplicate notice');
            for (const { claim } of claimed) await claim.done(KEEP_MS);
          } catch (error) {
            // Released, so the next meeting posts it.
            for (const { claim } of claimed) await claim.release().catch(() => undefined);
            log.error({ ...facts, err: errorSummary(error), auditChannel: channelId }, 'could not post a late-duplicate notice (is the bot a member of the audit channel?)');
          }
        });
      }
    },
  };
}
