/**
 * Row 3: how fast Slack gets its ack with 50 requests in flight, `subops serve` in its own process, for
 * the requests agents send most: slash commands (/suspend 101, which opens a modal and reads the CRM after
 * the ack; /payments, which reads a page of payments and answers at the response_url after the ack), view
 * submissions (the suspension form, acked with "checking" before the CRM is read) and form actions (a
 * client id typed into the suspension form, which re-renders it with that client's services). Baseline:
 * the bare Bolt app (bench/bare-bolt-app.js, same receiver) acking the same payloads. Rounds alternate
 * between the apps; p99 over every ack of each kind, and the worst round's p99 against the bare app's
 * worst, so that a few stalled rounds cannot hide in a pooled figure.
 */
import { percentile, ms, record } from '../report.js';
import { AGENT, CHANNEL, moreCalls, startBareBoltProcess, startStage, startSubOpsProcess, type RunningBot, type Stage } from '../support.js';

const IN_FLIGHT = 50;
const ROUNDS = 12;
const LATENCY_MS = 20;
const GOAL = 1.5;

type View = Record<string, unknown>;

const timed = async (send: () => Promise<{ status: number }>) => {
  const start = performance.now();
  const reply = await send();
  if (reply.status !== 200) throw new Error(`ack answered HTTP ${reply.status}`);
  return performance.now() - start;
};

const all = (send: (i: number) => () => Promise<{ status: number }>) => Promise.all(Array.from({ length: IN_FLIGHT }, (_, i) => timed(send(i))));

const suspend = (bot: RunningBot, i: number) => () => bot.sender.slashCommand({ command: '/suspend', text: '101', userId: AGENT, channelId: CHANNEL, triggerId: `bench.${i}.${Math.random()}` });
const payments = (stage: Stage, bot: RunningBot, i: number) => () => bot.sender.slashCommand({ command: '/payments', text: '', userId: `U0AGENT${i}`, channelId: CHANNEL, responseUrl: stage.fake.responseUrl() });

const reasonValue = (value: string) => ({ value: { type: 'static_select', selected_option: { text: { type: 'plain_text', text: value }, value } } });
const submitSuspension = (bot: RunningBot, view: View) => () =>
  bot.sender.viewSubmission({ userId: AGENT, view, values: { service: { value: { type: 'plain_text_input', value: '101' } }, reason: reasonValue('2') } });
const lookUpClient = (bot: RunningBot, view: View) => () =>
  bot.sender.blockAction({ userId: AGENT, view, actionId: 'suspension_client_lookup', value: '1001', values: { service: { value: { type: 'plain_text_input', value: '' } } } });

interface Kind {
  name: string;
  /** One round: 50 requests at once, and the ms each waited for its ack; resolves once SubOps' work after the acks is done. */
  round(bot: RunningBot, forms: View[]): Promise<number[]>;
}

/** Resolves once `count` more calls of `method` reached the fake Slack (SubOps' work after its acks). */
const afterCalls = async (stage: Stage, bot: RunningBot, subops: RunningBot, method: string, send: () => Promise<number[]>) => {
  const done = bot === subops ? moreCalls(stage.fake, method, IN_FLIGHT) : Promise.resolve();
  const times = await send();
  await done;
  return times;
};

export async function acks(): Promise<void> {
  const stage = await startStage({ latencyMs: LATENCY_MS });
  const subops = await startSubOpsProcess(stage);
  const bare = await startBareBoltProcess(stage);
  // SubOps answers /payments at the response_url: the round ends once every answer arrived.
  let answered = 0;
  let onAnswer = () => {};
  stage.fake.on('response', () => {
    answered++;
    onAnswer();
  });
  const paymentAnswers = (count: number) => {
    const target = answered + count;
    return new Promise<void>((resolve) => {
      onAnswer = () => answered >= target && resolve();
      onAnswer();
    });
  };
  const kinds: Kind[] = [
    { name: '/suspend', round: (bot) => afterCalls(stage, bot, subops, 'views.open', () => all((i) => suspend(bot, i))) },
    { name: 'suspension form submissions', round: (bot, forms) => afterCalls(stage, bot, subops, 'views.update', () => Promise.all(forms.map((view) => timed(submitSuspension(bot, view))))) },
    { name: 'form actions (client id in the suspension form)', round: (bot, forms) => afterCalls(stage, bot, subops, 'views.update', () => Promise.all(forms.map((view) => timed(lookUpClient(bot, view))))) },
    {
      name: '/payments',
      round: async (bot) => {
        // SubOps' listing is read after the ack; the bare app only acks (its baseline is the ack alone).
        const done = bot === subops ? paymentAnswers(IN_FLIGHT) : Promise.resolve();
        const times = await all((i) => payments(stage, bot, i));
        await done;
        return times;
      },
    },
  ];
  try {
    // The forms the submissions and form actions come from: ones SubOps opened (also a warm-up).
    const opened = async () => {
      const before = stage.fake.callsTo('views.open').length;
      const done = moreCalls(stage.fake, 'views.open', IN_FLIGHT);
      await all((i) => suspend(subops, i));
      await done;
      const forms = stage.fake.callsTo('views.open').slice(before).map((call) => call.response.view as View);
      if (forms.length !== IN_FLIGHT) throw new Error(`expected ${IN_FLIGHT} suspension forms, got ${forms.length}`);
      return forms;
    };
    const forms = await opened();
    for (const kind of kinds) await kind.round(subops, forms);
    const samples = new Map(kinds.map((kind) => [kind, { subops: [] as number[][], bare: [] as number[][] }]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of kinds) {
        const sample = samples.get(kind)!;
        sample.bare.push(await kind.round(bare, forms));
        sample.subops.push(await kind.round(subops, forms));
      }
    }
    for (const kind of kinds) {
      const { subops: mine, bare: theirs } = samples.get(kind)!;
      const figure = percentile(mine.flat(), 99);
      const baseline = percentile(theirs.flat(), 99);
      record({ target: '3', name: `acks of ${kind.name}, ${IN_FLIGHT} in flight, ${ROUNDS} rounds: p99`, figure: ms(figure), baseline: `${ms(baseline)} (bare Bolt app)`, ratio: figure / baseline, goal: `≤ ${GOAL}×`, pass: figure / baseline <= GOAL });
      const worst = Math.max(...mine.map((times) => percentile(times, 99)));
      const worstBare = Math.max(...theirs.map((times) => percentile(times, 99)));
      record({ target: '3', name: `acks of ${kind.name}: the slowest round's p99`, figure: ms(worst), baseline: `${ms(worstBare)} (bare Bolt app's slowest)`, ratio: worst / worstBare, goal: `≤ ${GOAL}×`, pass: worst / worstBare <= GOAL });
    }
  } finally {
    await bare.stop();
    await subops.stop();
    await stage.close();
  }
}
