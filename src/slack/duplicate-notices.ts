/**
 * Late-duplicate notices in the audit channel (src/views/duplicates.ts), once per late record. Whoever
 * meets a late duplicate (an activation's result, a `/client` card, a UISP event) hands it here and goes
 * on: `post` queues the notice and returns at once, the post counts as work in flight (tests' `idle()`,
 * the SIGTERM drain), and Slack's refusal is logged, never thrown.
 *
 * "Once" is per process: the keys (`service:5007`, `site:<id>`, `client:1010`) live in memory, so
 * several activations or cards meeting the same duplicate post one notice; a notice Slack refused is
 * forgotten, so the next meeting posts it. After a restart, or on another replica, the first meeting posts
 * it again (one more notice for the same records; its button reads UISP again, so pressing either is safe).
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { LateDuplicate } from '../services/activation/types.js';
import { lateDuplicateMetadata, lateDuplicateNotice, type DuplicateSource } from '../views/duplicates.js';
import { errorSummary } from './errors.js';
import type { WorkTracker } from './work.js';

export interface LateDuplicateNotices {
  /** Queues one notice per duplicate naming the late records not yet posted by this process; returns at once. */
  post(found: readonly LateDuplicate[], source: DuplicateSource): void;
}

export interface NoticeDeps {
  client: webApi.WebClient;
  /** AUDIT_CHANNEL_ID; without it a late duplicate is logged only. */
  channelId: string | undefined;
  logger: Logger;
  work: WorkTracker;
  crmClientUrl: (clientId: number) => string;
  /** Keys remembered at most; the oldest are forgotten first. */
  maxKeys?: number;
}

export function createLateDuplicateNotices({ client, channelId, logger, work, crmClientUrl, maxKeys = 10_000 }: NoticeDeps): LateDuplicateNotices {
  const posted = new Set<string>();
  const log = logger.child({ flow: 'late-duplicates' });
  const keyOf = (duplicate: LateDuplicate, id: number | string) => `${duplicate.record}:${id}`;

  return {
    post(found, source) {
      for (const duplicate of found) {
        const fresh = duplicate.others.filter((other) => !posted.has(keyOf(duplicate, other.id)));
        if (!fresh.length) continue;
        const keys = fresh.map((other) => keyOf(duplicate, other.id));
        for (const key of keys) posted.add(key);
        while (posted.size > maxKeys) posted.delete(posted.values().next().value!);
        const facts = { record: duplicate.record, clientId: duplicate.client.id, keptId: duplicate.kept.id, lateIds: fresh.map((o) => o.id), source };
        if (!channelId) {
          log.warn(facts, 'a late duplicate was met (AUDIT_CHANNEL_ID is not set: no notice with Remove duplicate was posted)');
          continue;
        }
        const notice = { ...duplicate, others: fresh };
        void work.run(async () => {
          try {
            await client.chat.postMessage({ channel: channelId, ...lateDuplicateNotice(notice, source, { crmClientUrl }), metadata: lateDuplicateMetadata(notice), unfurl_links: false });
            log.info(facts, 'posted a late-duplicate notice');
          } catch (error) {
            // Forgotten, so the next meeting posts it.
            for (const key of keys) posted.delete(key);
            log.error({ ...facts, err: errorSummary(error), auditChannel: channelId }, 'could not post a late-duplicate notice (is the bot a member of the audit channel?)');
          }
        });
      }
    },
  };
}
