#!/usr/bin/env node
// Thin launcher: the TypeScript sources are compiled to dist/ by `npm ci` (the `prepare` script).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});
