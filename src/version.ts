/**
 * SubOps' version, for `subops --version`, `serve`'s start-up line and the `subops_build_info` metric:
 * package.json's, the one place it is written. Read on first use and kept (it sits one folder up from
 * both src/ and dist/).
 */
import { readFileSync } from 'node:fs';

let version: string | undefined;

export function subopsVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
