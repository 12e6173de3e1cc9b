import { parseFlags } from '../args.js';
import type { CheckResult, CheckStatus } from '../../config-check.js';
import { EXIT, UsageError, writeLine, writeText, type CliIo } from '../io.js';
import { jsonLine } from '../json.js';
import { unknownSubcommand } from '../../process/suggest.js';

export const configHelp = `Usage: subops config check [--cli] [--json]

Checks the configuration, read from the environment and from .env in the working directory (variables
already set in the environment win; the first line names the file, or says none was read), then asks
UISP and Slack once each, without retrying, and prints one line per check. Nothing is written anywhere.
A service that did not answer (network, DNS, timeout) is "unreachable"; one that answered no (a token
it does not take) "refused". No ALLOWED_* set is a warning: access is open to the whole workspace.
  configuration     every setting \`subops serve\` reads; with --cli, what the CLI reads
  UISP CRM          one read with the CRM token (UISP_CRM_TOKEN, else UISP_TOKEN)
  UISP NMS          one read with the NMS token (UISP_NMS_TOKEN, else UISP_TOKEN)
  Slack auth        auth.test with SLACK_BOT_TOKEN (--cli: only with AUDIT_CHANNEL_ID)
  Slack app token   Socket Mode: SLACK_APP_TOKEN (apps.connections.open; no socket is opened)
  audit channel     when AUDIT_CHANNEL_ID is set: the bot can post there
Each problem names the variable to fix; tokens and secrets are never shown.

Exit codes: 0 every check passed (warnings included), 1 a check failed, 2 the configuration is invalid
(every problem listed; UISP and Slack were not asked).
--json prints one object: {type: "config-check", ok, exitCode, envFile, problems, checks: [{check, status, message, ms}]}.`;

const MARK: Record<CheckStatus, string> = { ok: '✓', warning: '!', failed: '✗', skipped: '↷' };
const NAME_WIDTH = 'Slack app token'.length;

export async function config(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { cli: { type: 'boolean' }, json: { type: 'boolean' } }, 1);
  if (values.help) return writeLine(io.stdout, configHelp), EXIT.ok;
  if (positionals[0] !== 'check') throw new UsageError(unknownSubcommand('config', positionals[0], ['check']), '<command>');
  const { checkConfiguration } = await import('../../config-check.js');
  const { envFileLocation } = await import('../../process/env-file.js');
  // The process entry reads the .env from the working directory (src/process/env-file.ts): none read, the check says where it looked.
  const run = checkConfiguration(io.env, { scope: values.cli ? 'cli' : 'app', envFile: io.envFile, envFileSought: io.envFile ? undefined : envFileLocation(io.env, process.cwd()) });
  const results: CheckResult[] = [];
  // They run at once; each line is printed as soon as it and those above it are done.
  for (const check of run.checks) {
    const result = await check;
    results.push(result);
    if (!values.json) {
      writeText(io.stdout, `${MARK[result.status]} ${result.check.padEnd(NAME_WIDTH)}  ${result.message}`);
      if (result.check === 'configuration') writeText(io.stdout, ...run.problems.map((problem) => `    - ${problem}`));
    }
  }
  const exitCode = run.problems.length ? EXIT.usage : results.some((result) => result.status === 'failed') ? EXIT.failed : EXIT.ok;
  if (values.json) writeLine(io.stdout, jsonLine(io, { type: 'config-check', ok: exitCode === EXIT.ok, exitCode, envFile: io.envFile ?? null, problems: run.problems, checks: results }));
  return exitCode;
}
