/**
 * Row 3: how fast Slack gets its ack with 50 requests in flight, for slash commands (/suspend 101,
 * which opens a modal and reads the CRM after the ack) and view submissions (the suspension form,
 * acked with "checking" before the CRM is read), `subops serve` in its own process. Baseline: the bare
 * Bolt app (bench/bare-bolt-app.js, same receiver) acking the same payloads. Rounds alternate between
 * the apps; p99 over every ack of each.
 */
import { percentile, ms, record } from '../report.js';
import { AGENT, CHANNEL, moreCalls, startBareBoltProcess, startStage, startSubOpsProcess, type RunningBot } from '../support.js';

const IN_FLIGHT = 50;
const ROUNDS = 6;
const LATENCY_MS = 20;

const timed = async (send: () => Promise<{ status: number }>) => {
  const start = performance.now();
  const reply = await send();
  if (reply.status !== 200) throw new Error(`ack answered HTTP ${reply.status}`);
  return performance.now() - start;
};

const suspend = (bot: RunningBot, i: number) => () => bot.sender.slashCommand({ command: '/suspend', text: '101', userId: AGENT, channelId: CHANNEL, triggerId: `bench.${i}.${Math.random()}` });

const reasonValue = (value: string) => ({ value: { type: 'static_select', selected_option: { text: { type: 'plain_text', text: value }, value } } });
const submitSuspension = (bot: RunningBot, view: Record<string, unknown>) => () =>
  bot.sender.viewSubmission({ userId: AGENT, view, values: { service: { value: { type: 'plain_text_input', value: '101' } }, reason: reasonValue('2') } });

export async function acks(): Promise<void> {
  const stage = await startStage({ latencyMs: LATENCY_MS });
  const subops = await startSubOpsProcess(stage);
  const bare = await startBareBoltProcess(stage);
  try {
    // SubOps' work after the acks ends with a views.open per command and a views.update per submission.
    const openedForms = async (send: () => Promise<number[]>) => {
      const before = stage.fake.callsTo('views.open').length;
      const opened = moreCalls(stage.fake, 'views.open', IN_FLIGHT);
      const times = await send();
      await opened;
      return { times, forms: stage.fake.callsTo('views.open').slice(before).map((call) => call.response.view as Record<string, unknown>) };
    };
    const commands = (bot: RunningBot) => () => Promise.all(Array.from({ length: IN_FLIGHT }, (_, i) => timed(suspend(bot, i))));
    const submissions = async (bot: RunningBot, forms: Record<string, unknown>[]) => {
      if (forms.length !== IN_FLIGHT) throw new Error(`expected ${IN_FLIGHT} suspension forms, got ${forms.length}`);
      const updated = bot === subops ? moreCalls(stage.fake, 'views.update', IN_FLIGHT) : Promise.resolve();
      const times = await Promise.all(forms.map((view) => timed(submitSuspension(bot, view))));
      await updated;
      return times;
    };
    // Warm-up, and the forms the bare app is sent: the ones SubOps opened.
    const { forms: sampleForms } = await openedForms(commands(subops));
    const samples = { subops: [] as number[], bare: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      samples.bare.push(...(await commands(bare)()), ...(await submissions(bare, sampleForms)));
      const { times, forms } = await openedForms(commands(subops));
      samples.subops.push(...times, ...(await submissions(subops, forms)));
    }
    const figure = percentile(samples.subops, 99);
    const baseline = percentile(samples.bare, 99);
    record({
      target: '3',
      name: `acks of /suspend and the suspension form, ${IN_FLIGHT} in flight: p99`,
      figure: ms(figure),
      baseline: `${ms(baseline)} (bare Bolt app)`,
      ratio: figure / baseline,
      goal: '≤ 1.5×',
      pass: figure / baseline <= 1.5,
    });
  } finally {
    await bare.stop();
    await subops.stop();
    await stage.close();
  }
}
