/**
 * Row 4: 200 agents send /payments at once to `subops serve` (its own process), UISP answering in
 * 20 ms. The answer time is from the signed request leaving to the listing arriving at its
 * response_url. Baseline: the minimal Bolt app (bench/bare-bolt-app.js, same receiver) that acks,
 * reads one page of payments (the same query SubOps' listing starts with) and responds. Caches are warmed by a first round; rounds then alternate between the two apps.
 */
import { daysBefore, todayIn } from '../../src/services/dates.js';
import { median, ms, record } from '../report.js';
import { AGENT, CHANNEL, startBareBoltProcess, startStage, startSubOpsProcess, type RunningBot, type Stage } from '../support.js';

const USERS = 200;
const LATENCY_MS = 20;
const ROUNDS = 3;

/** The response_url paths awaited, and when each request left. (The fake takes listeners, never drops them: one per row.) */
const waiting = new Map<string, (at: number) => void>();

/** Sends `USERS` /payments at once; the ms each took to be answered at its response_url. */
async function round(stage: Stage, bot: RunningBot): Promise<number[]> {
  const times = await Promise.all(
    Array.from({ length: USERS }, async (_, user) => {
      const responseUrl = stage.fake.responseUrl();
      const answered = new Promise<number>((resolve) => waiting.set(new URL(responseUrl).pathname, resolve));
      const start = performance.now();
      const ack = await bot.sender.slashCommand({ command: '/payments', text: '', userId: user === 0 ? AGENT : `U0AGENT${user}`, channelId: CHANNEL, responseUrl });
      if (ack.status !== 200) throw new Error(`/payments answered HTTP ${ack.status}`);
      return (await answered) - start;
    }),
  );
  return times;
}

/** The query SubOps' /payments starts with: the last 30 days, newest first, a page of 500. */
export function firstPageQuery(): string {
  const to = todayIn('America/Guyana');
  return new URLSearchParams({ createdDateFrom: daysBefore(to, 30), createdDateTo: to, order: 'createdDate', direction: 'DESC', limit: '500', offset: '0' }).toString();
}

export async function paymentsUnderLoad(): Promise<void> {
  const stage = await startStage({ latencyMs: LATENCY_MS });
  stage.fake.on('response', (response) => {
    const path = new URL(response.url).pathname;
    waiting.get(path)?.(performance.now());
    waiting.delete(path);
  });
  const subops = await startSubOpsProcess(stage);
  const bare = await startBareBoltProcess(stage, { PAYMENTS_QUERY: firstPageQuery() });
  try {
    await round(stage, bare);
    await round(stage, subops);
    const subopsTimes: number[] = [];
    const bareTimes: number[] = [];
    let requests = 0;
    for (let r = 0; r < ROUNDS; r++) {
      bareTimes.push(...(await round(stage, bare)));
      const before = stage.sim.requests.length;
      subopsTimes.push(...(await round(stage, subops)));
      requests += stage.sim.requests.length - before;
    }
    const ratio = median(subopsTimes) / median(bareTimes);
    record({ target: '4', name: `/payments, ${USERS} at once, UISP ${LATENCY_MS} ms: median answer time`, figure: ms(median(subopsTimes)), baseline: `${ms(median(bareTimes))} (minimal Bolt app)`, ratio, goal: '≤ 1.5×', pass: ratio <= 1.5 });
    const perCommand = requests / (ROUNDS * USERS);
    record({ target: '4', name: '/payments with warm caches: UISP requests per command', figure: perCommand.toFixed(2), baseline: '—', ratio: undefined, goal: '≤ 3', pass: perCommand <= 3 });
  } finally {
    await bare.stop();
    await subops.stop();
    await stage.close();
  }
}
