/**
 * Row 6, cold start: `subops --help` against `node -e 0`, and `subops serve` until it listens against
 * the bare Bolt app until it listens (bench/bare-bolt-app.js), both pointed at the same fake Slack
 * and simulator. Runs alternate, so load on the machine hits both alike; medians compared.
 */
import { record, median, ms } from '../report.js';
import { appEnv, BARE_BOLT, startStage, SUBOPS, timeChild } from '../support.js';

const RUNS = 9;

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
  try {
    const serve: number[] = [];
    const bolt: number[] = [];
    const env = () => appEnv(stage);
    for (let run = 0; run < RUNS; run++) {
      bolt.push((await timeChild([BARE_BOLT], { env: await env(), until: /^ready$/ })).ms);
      serve.push((await timeChild([SUBOPS, 'serve'], { env: await env(), until: /SubOps is listening/ })).ms);
    }
    const ratio = median(serve) / median(bolt);
    record({ target: '6', name: '`subops serve` start to listening (median)', figure: ms(median(serve)), baseline: `${ms(median(bolt))} (minimal Bolt app)`, ratio, goal: '≤ 1.5×', pass: ratio <= 1.5 });
  } finally {
    await stage.close();
  }
}
