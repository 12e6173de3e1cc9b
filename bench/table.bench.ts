/**
 * `npm run bench`: every target of issue 11 (and of issues 35, 38 and 40) as rows of one table, each against
 * a baseline measured in this same run, printed at the end and written to BENCHMARKS.md with the date and
 * the machine. A row that misses its target fails its test, so the exit code says whether every target
 * holds.
 * `BENCH_ONLY=4,5 npm run bench` measures only those targets (the file is still rewritten).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { recordFailure, rowCount, rowsFrom, writeBenchmarks } from './report.js';
import { acks } from './rows/acks.js';
import { activationRoundTrips, slackOffCriticalPath } from './rows/activation.js';
import { coldStart } from './rows/cold-start.js';
import { firstSeconds } from './rows/first-seconds.js';
import { outagePoll } from './rows/outage-poll.js';
import { paymentsExport } from './rows/payments-export.js';
import { paymentsUnderLoad } from './rows/payments-slack.js';
import { scaleReads } from './rows/scale.js';
import { installSheet } from './rows/sheet.js';

const OUT = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));

const NOTES = `## How each row is measured

The code is in \`bench/\` (\`bench/rows/\` one file per target). Everything runs on loopback against
the project's UISP simulator (latency knob as stated per row) and the fake Slack Web API; the apps under
test run in their own processes (\`subops serve\`, \`subops …\`, and \`bench/bare-bolt-app.js\` for the
Bolt baselines), and requests are signed like Slack's by the playground's sender. Rows 1–4 send their
first request once \`subops serve\` says its store is open ("SubOps state: …", just after "listening"):
they measure operations, not the first seconds after start-up (row 7 measures those). Baselines are
measured in the same run, alternating with the figure they compare to, so the ratios hold on a busy
machine; the absolute times do not.

1. Round trips: the longest chain of UISP requests each starting after the previous one ended
   (\`sequentialRoundTrips\` of the simulator's request log), UISP at 80 ms, a fresh simulator per case;
   for Slack from the form submission to the last UISP request, the confirmation step included; on
   both UISPs the simulator plays (the interface document's NMS has none of the filters SubOps narrows
   its reads with: a process's first device question learns that, one round trip; on a stock one, a
   client none of whose services is bound to a site has its sites proved from the whole site list once
   its services are known, one round trip per read of the client: docs/design.md, issue #38).
2. Form submission to the end of the last UISP request of a new-customer activation, UISP at 100 ms,
   Slack answering at once or 100 ms late (a delaying proxy in front of the fake); median of 3 each.
3. 50 signed requests at once of each kind: \`/suspend 101\`, suspension-form submissions, a client id
   typed into the suspension form (a form action), \`/payments\`; 12 rounds, each followed by the work
   after the acks; time to the ack. Per kind, p99 over every round, and the slowest round's p99 against
   the bare app's slowest round (a stalled round shows there).
4. 200 \`/payments\` at once, UISP at 20 ms; time to the listing at its response_url; median over 3
   rounds after a warm-up round. Baseline: a Bolt app that acks, reads the same first page of payments
   and responds. UISP requests counted in the simulator's log.
5. \`subops payments --csv\` over 100 000 payments, UISP at 50 ms per page, as a process (peak RSS from
   \`process.resourceUsage()\`); baseline the same with \`UISP_PAGES_IN_FLIGHT=1\`; median of 2 each.
6. Spawn to exit (\`--help\`); for \`serve\` (against the simulator and the fake Slack) spawn to
   "listening" and spawn to "SubOps state: …" (its store is open: it answers everything it offers), both
   against the bare app's spawn to "ready"; median of 9 each. Serve's state is in a temp folder of the
   row's own, made by one untimed first start: the timed starts are restarts on existing state.
7. The first seconds (issue 35): \`subops serve\` on a fresh machine (a new, empty temp folder as
   XDG_STATE_HOME and HOME, no DATABASE_URL, not \`--simulator\`: the embedded store is made there), and
   after a restart (served once on a new folder until "SubOps state: …", stopped with SIGTERM, started
   again on it). From "listening", a signed \`/payments\` every 200 ms for 25 s, UISP at 20 ms; the
   process's peak RSS (VmHWM in \`/proc/<pid>/status\`) read at the 25 s end, before it is stopped, and
   the slowest ack (an ack not back in 10 s, or not HTTP 200, fails the row). Baseline: the bare app
   started the same way (also stopped and started again for the restart), acking and reading the same
   first page of payments; runs alternate, one 25 s window each. Peak RSS ≤ 1.5× the bare app's; every
   ack ≤ 1000 ms (Slack's 3 s deadline with a margin), the ratio to the bare app's slowest shown.
8. What each operation asks UISP (issue 38), at 30,000 customers against the same at 1,000 (the
   baseline): two data sets made by the simulator's \`generateDataSet\` (seed 1), served in the stock world
   (the official filters honoured), UISP at 0 ms, 1k then 30k (requests and bytes are exact; the
   times and RSS are one sample each). A counting proxy in front of the simulator logs every
   request and the bytes of each answer's body (1 MB = 10⁶ bytes). Both sizes get the same day's activity
   and the same pending links: the generated payments end three days before the digest's day, which has
   40 payments of its own, and 25 sites made by SubOps await their CRM link. As processes (peak RSS
   from \`process.resourceUsage()\`): \`subops device <ip>\` and \`device <mac>\` (a station
   on a live client's site) and \`client <id>\` (that client), each with \`--json\` (a card with a gap, or
   without its client, fails the row); \`payments --csv\` over 30 days; \`digest --date\` (without Slack:
   its UISP part); last, \`activate --device <ip> --yes\` for a new person on a discovered device. In
   this process on the services layer: one \`LinkWatcher\` check watching the 25 sites; Home's pending
   links (\`lookups.missingLinks()\`); the client typeahead on fresh services (no cache), asked again
   until an answer is complete and has suggestions (for an id: that client), timed from the first
   question. A size-independent operation's ratio is of the bytes (the export's of the requests); the
   digest, the poll and Home pass when both their bytes and their requests stay within 1.5× of 1k's.
   What each operation asked, per path, is printed as the row runs (not in the table).
9. The outage watch (issue 40): one poll with nothing changed, at 10,000 customers against the same at
   100 (the baseline), on data sets made like row 8's, in the stock world (it serves \`GET /outages\`),
   behind the same counting proxy, UISP at 0 ms. An \`OutageWatch\` on the services layer in this process,
   its claims in a memory store, its reports kept in memory (Slack is not UISP's cost): one untimed first
   poll (it takes the watch's lease), then 25 polls of each size, alternating: their requests and bytes
   per poll (the same requests at both sizes) and their median time (≤ 2× of 100's). Then tower 1's AP
   goes down (started 4 minutes earlier, past the 2-minute minimum) and one poll reports it: its
   requests (the poll's own two included, and whom the outage affects: at most 6 more, docs/design.md)
   and bytes.
10. Install sheets (issue 41): 40 new customers, each on a discovered device of its own, activated one
   after another through the services layer (the baseline), then 40 more as one sheet (checked, then run
   at SHEET_CONCURRENCY's default of 2), on one simulator answering every request after 50 ms: the
   sheet's wall time (≤ 0.6× of the 40 singles) and its UISP requests per row, its check's reads
   included (≤ 2× a single activation's).

Row 1 is measured, not chased (issue 19): every created record is read back before anything is built on
it or reported (docs/failure-modes.md: Concurrent activations), and through Slack a confirmation is read again before
any delete, one round trip more than the CLI.`;

const only = process.env.BENCH_ONLY?.split(',');

/** `timeoutMs`: a row that needs longer than the config's 300 s on a busy machine. */
function row(target: string, name: string, measure: () => Promise<void>, goal: string, timeoutMs?: number): void {
  (only && !only.includes(target) ? it.skip : it)(`${target}. ${name}`, async () => {
    const before = rowCount();
    try {
      await measure();
    } catch (error) {
      recordFailure(target, name, goal, error);
    }
    expect(rowsFrom(before).filter((r) => !r.pass).map((r) => `${r.name}: ${r.figure} (${r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}×, `}target ${r.goal})`)).toEqual([]);
  }, timeoutMs);
}

row('1', 'activation round trips', activationRoundTrips, '≤ 5 / 5 (Slack 6) / 2');
row('2', 'Slack off the critical path', slackOffCriticalPath, '≤ 1.10×');
row('3', 'acks under load', acks, '≤ 1.5×');
row('4', '/payments under load', paymentsUnderLoad, '≤ 1.5×, ≤ 3 requests');
row('5', 'long payment export', paymentsExport, '≤ 0.35×, ≤ 150 MB');
row('6', 'cold start', coldStart, '≤ 2×, ≤ 1.5×');
row('7', 'the first seconds', firstSeconds, '≤ 1.5×, every ack ≤ 1000 ms');
row('8', 'UISP reads at 1,000 and 30,000 customers', scaleReads, '≤ 20 requests and ≤ 1 MB, ≤ 0.5 MB, ≤ 200 requests, ≤ 1.5×, ≤ 1000 ms, ≤ 150 MB', 900_000);
row('9', 'outage poll at 100 and 10,000 customers', outagePoll, 'the same requests, ≤ 2×, ≤ 8 requests');
row('10', 'a 40-row install sheet', installSheet, '≤ 0.6×, ≤ 2× requests per row', 300_000);

afterAll(() => {
  writeBenchmarks(OUT, NOTES);
});
