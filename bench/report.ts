/** Prints one aligned result line per measurement, so `npm run bench` reads as a table. */
export function report(name: string, value: number, unit: string, target: string): void {
  console.log(`${name.padEnd(48)} ${value.toFixed(1).padStart(10)} ${unit.padEnd(10)} target ${target}`);
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function heapUsedMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 1_048_576;
}
