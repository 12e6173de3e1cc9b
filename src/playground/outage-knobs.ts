/**
 * The demo's knobs on its simulated network: `/takedown <device>` and `/bringback <device>` take a device
 * of the simulated UISP down and bring it back, then let the bot's outage watch poll at once, so its
 * thread (and later the recovery) shows without waiting for the next interval.
 *
 * A device taken down is down since a moment already past OUTAGE_MIN_MINUTES: the watch posts no outage
 * shorter than that (flapping), and a demo should not make anyone wait two minutes.
 */
import type { OutageWatch } from '../services/events/outage-watch.js';
import type { RunningSimulator, SimulatorData } from '../simulator/index.js';
import type { SampleTry } from './intro.js';
import type { ChatCommand } from './terminal-chat.js';

type Device = SimulatorData['devices'][number];

export interface OutageKnobsOptions {
  simulator: RunningSimulator;
  watch: OutageWatch;
  /** OUTAGE_MIN_MINUTES in ms. */
  minMs: number;
  /** Where outages are posted, as the chat names it (e.g. #subops-audit). */
  channelName: string;
  now?: () => number;
}

/** One poll that started after now: a poll already running may have read UISP before the change. */
async function pollAfterChange(watch: OutageWatch): Promise<void> {
  await watch.poll();
  await watch.poll();
}

const clock = (at: Date) => at.toISOString().slice(11, 16);

export function outageKnobs({ simulator, watch, minMs, channelName, now = Date.now }: OutageKnobsOptions): ChatCommand[] {
  const authorized = () => simulator.data.devices.filter((d) => d.identification.authorized);
  /** The device typed (its name or id), or why there is none. */
  const find = (typed: string): Device | string => {
    const wanted = typed.trim().toLowerCase();
    const device = authorized().find((d) => d.identification.name.toLowerCase() === wanted || d.identification.id === wanted);
    return device ?? `${wanted ? `No device “${typed.trim()}” in the simulated UISP` : 'Which device?'}: give an authorized device's name, e.g. ${exampleAp(simulator.data)?.identification.name ?? 'its name'}.`;
  };
  const isDown = (device: Device) => simulator.data.outages?.some((o) => o.deviceId === device.identification.id && o.end === null) ?? false;
  return [
    {
      name: '/takedown',
      usageHint: '<device>',
      description: `take a device of the simulated UISP down (SubOps posts the outage in ${channelName})`,
      run: async (text, print) => {
        const device = find(text);
        if (typeof device === 'string') return device;
        const name = device.identification.name;
        if (isDown(device)) return `${name} is already down in the simulated UISP.`;
        const since = new Date(now() - minMs - 60_000);
        simulator.takeDown(device.identification.id, since);
        print([`  (simulated UISP) ${name} is down since ${clock(since)} UTC, past OUTAGE_MIN_MINUTES; SubOps' outage watch polls…`]);
        await pollAfterChange(watch);
        return undefined;
      },
    },
    {
      name: '/bringback',
      usageHint: '<device>',
      description: 'bring a device taken down back (SubOps posts the recovery in its thread)',
      run: async (text, print) => {
        const device = find(text);
        if (typeof device === 'string') return device;
        const name = device.identification.name;
        if (!isDown(device)) return `${name} is not down in the simulated UISP.`;
        simulator.bringBack(device.identification.id, new Date(now()));
        print([`  (simulated UISP) ${name} answers again; SubOps' outage watch polls…`]);
        await pollAfterChange(watch);
        return undefined;
      },
    },
  ];
}

/** An access point at a tower: what to take down to show an outage with customers behind it. */
function exampleAp(data: SimulatorData): Device | undefined {
  return data.devices.find((d) => d.identification.authorized && d.identification.role === 'ap' && d.identification.site);
}

/** The intro's line for the knobs, from the sample data. */
export function outageTries(data: SimulatorData, channelName: string): SampleTry[] {
  const ap = exampleAp(data);
  if (!ap) return [];
  const site = data.sites.find((s) => s.id === ap.identification.site?.id)?.identification.name;
  return [{ command: `/takedown ${ap.identification.name}`, note: `${site ?? 'a tower'}'s AP down: an outage thread in ${channelName} with its customers (then /bringback ${ap.identification.name})` }];
}
