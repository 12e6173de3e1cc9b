// Preloaded into a child process (`node --import ./bench/peak-rss.js …`): reports the process's peak
// resident set size and CPU time on stderr as it exits, for the benchmark's memory rows.
process.on('exit', () => {
  const usage = process.resourceUsage();
  process.stderr.write(`peak-rss-kb ${usage.maxRSS} cpu-ms ${Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000)}\n`);
});
