/**
 * More discovered devices than the sample data has: an install sheet of many new customers needs a device
 * each (the benchmark's 40-row sheet, the tests' crash mid-sheet). Each is the sample data's first
 * discovered device, cloned under a name, MAC and IP of its own.
 */
import type { RunningSimulator } from './index.js';

/** Adds `count` discovered devices numbered from `from` (`bench-cpe-<n>`, IP 10.77.x.y); their IPs. */
export function addDiscoveredDevices(sim: Pick<RunningSimulator, 'data'>, count: number, from: number): string[] {
  const template = sim.data.devices.find((device) => !device.identification.authorized)!;
  const ips: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = from + i;
    const hex = (n + 0x100).toString(16).slice(-2);
    const ip = `10.77.${Math.floor(n / 200)}.${(n % 200) + 10}`;
    const device = structuredClone(template);
    device.identification = { ...device.identification, id: `bench-sheet-device-${n}`, name: `bench-cpe-${n}`, mac: `02:00:00:77:${Math.floor(n / 256).toString(16).padStart(2, '0')}:${hex}`, ip };
    if ('ipAddress' in device) (device as { ipAddress: string | null }).ipAddress = `${ip}/24`;
    sim.data.devices.push(device);
    ips.push(ip);
  }
  return ips;
}
