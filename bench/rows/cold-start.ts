/**
 * Row 6, cold start: `subops --help` against `node -e 0`, and `subops serve` against the bare Bolt app
 * (bench/bare-bolt-app.js), both pointed at the same fake Slack and simulator: serve until it listens,
 * and until it answers everything it offers (its store is open: "SubOps state: …"), against the bare
 * app until it is ready (it answers everything once it listens). Serve keeps its state in a folder of
 * its own, made by a first start that is not timed: the timed starts are restarts on existing state
 * (the first start on a fresh machine is row 7's). Runs alternate, so load on the machine hits both
 * alike; medians compared.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { record, median, ms } from '../report.js';
import { appEnv, BARE_BOLT, startStage, SUBOPS, timeChild } from '../support.js';

const RUNS = 9;
const LISTENING = /SubOps is listening/;
const STATE = /SubOps state: /;

export async function coldStart(): Promise<void> {
  const help: number[] = [];
  const bare: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    bare.push((await timeChild(['-e', '0'])).ms);
    const answer = await timeChild([SUBOPS, '--help']);
    if (answer.code !== 0) throw new Error(`subops --help exited ${answer.code}`);
    help.push(answer.ms);
  }
  const helpRatio = median(help) / median(bare);
  record({ target: '6', name: '`subops --help` start to exit (median)', figure: ms(median(help)), baseline: `${ms(median(bare))} (\`node -e 0\`)`, ratio: helpRatio, goal: '≤ 2×', pass: helpRatio <= 2 });

  const stage = await startStage();
  const home = await mkdtemp(join(tmpdir(), 'subops-bench-state-'));
  try {
    const listening: number[] = [];
    const answering: number[] = [];
    const bolt: number[] = [];
    // Serve's state (the embedded store) in the row's own folder, not the user's.
    const env = async () => ({ ...(await appEnv(stage)), XDG_STATE_HOME: home, HOME: home });
    const serve = async () => {
      const run = await timeChild([SUBOPS, 'serve'], { env: await env(), until: STATE, marks: [LISTENING] });
      const [listened] = run.marksMs;
      if (listened === undefined) throw new Error(`subops serve printed ${STATE} without ${LISTENING} before it`);
      return { listening: listened, answering: run.ms };
    };
    await serve();
    for (let run = 0; run < RUNS; run++) {
      bolt.push((await timeChild([BARE_BOLT], { env: await env(), until: /^ready$/ })).ms);
      const started = await serve();
      listening.push(started.listening);
      answering.push(started.answering);
    }
    const ratio = median(listening) / median(bolt);
    record({ target: '6', name: '`subops serve` start to listening (median)', figure: ms(median(listening)), baseline: `${ms(median(bolt))} (minimal Bolt app)`, ratio, goal: '≤ 1.5×', pass: ratio <= 1.5 });
    const answeringRatio = median(answering) / median(bolt);
    record({
      target: '6',
      name: '`subops serve` start to answering everything ("SubOps state:", store open; restart, median)',
      figure: ms(median(answering)),
      baseline: `${ms(median(bolt))} (minimal Bolt app, to ready)`,
      ratio: answeringRatio,
      goal: '≤ 1.5×',
      pass: answeringRatio <= 1.5,
    });
  } finally {
    await stage.close();
    await rm(home, { recursive: true, force: true });
  }
}
