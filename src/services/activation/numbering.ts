/**
 * Which service status numbering UISP uses (./service-status.ts): SERVICE_STATUS_NUMBERING when set, else
 * detected once from what the CRM answers. Every stock UISP CRM (and UCRM 2.x before it) serves
 * `GET /version`; the interface document's UISP does not (404). Any other answer (a timeout, a 5xx) tells
 * nothing: the verdict is "undetermined", not remembered, and asked again next time; meanwhile an
 * activation that would replace a service stops and says why instead of guessing.
 */
import type { CrmClient } from '../uisp/crm-client.js';
import { UispNotFoundError } from '../uisp/errors.js';
import { NUMBERINGS, statusLabel, STOCK_NUMBERING, INTERFACE_NUMBERING, type NumberingName, type ServiceNumbering } from './service-status.js';

export type NumberingSetting = 'auto' | NumberingName;

export type NumberingVerdict =
  | { numbering: ServiceNumbering; source: 'setting' | 'detected'; why: string }
  | { numbering: null; source: 'undetermined'; why: string };

/** The verdict when SERVICE_STATUS_NUMBERING names the numbering: nothing is asked. */
export const settingVerdict = (name: NumberingName): NumberingVerdict => ({ numbering: NUMBERINGS[name], source: 'setting', why: `SERVICE_STATUS_NUMBERING=${name}` });

export class StatusNumbering {
  private verdict: NumberingVerdict | undefined;
  private asking: Promise<NumberingVerdict> | undefined;

  constructor(
    setting: NumberingSetting,
    private readonly crm: Pick<CrmClient, 'getVersion'>,
  ) {
    if (setting !== 'auto') this.verdict = settingVerdict(setting);
  }

  /** The numbering in effect and why; concurrent callers share one question to the CRM. */
  resolve(): Promise<NumberingVerdict> {
    if (this.verdict) return Promise.resolve(this.verdict);
    return (this.asking ??= this.detect().finally(() => {
      this.asking = undefined;
    }));
  }

  /** The numbering once known (set, or detected earlier), else null. */
  known(): ServiceNumbering | null {
    return this.verdict?.numbering ?? null;
  }

  /** A status's name: under the known numbering, else only what both numberings agree on. */
  label(status: number): string {
    return statusLabel(status, this.known());
  }

  private async detect(): Promise<NumberingVerdict> {
    try {
      const version = await this.crm.getVersion();
      return (this.verdict = { numbering: STOCK_NUMBERING, source: 'detected', why: `the CRM answers GET /version (${version || 'no version given'}), as every stock UISP does` });
    } catch (error) {
      if (error instanceof UispNotFoundError) {
        return (this.verdict = { numbering: INTERFACE_NUMBERING, source: 'detected', why: "the CRM does not serve GET /version (404), as the interface document's UISP" });
      }
      const problem = error instanceof Error ? error.message : String(error);
      return { numbering: null, source: 'undetermined', why: `the CRM's GET /version could not be read (${problem}); set SERVICE_STATUS_NUMBERING to stock or interface` };
    }
  }
}

/** "stock (detected: …)" — how config check and the start-up line name the verdict. */
export function describeNumbering(verdict: NumberingVerdict): string {
  if (!verdict.numbering) return `undetermined: ${verdict.why}`;
  const { name, quoted, obsolete } = verdict.numbering;
  return `${name} (${quoted} Quoted, ${obsolete} Obsolete; ${verdict.source === 'setting' ? 'set by' : 'detected:'} ${verdict.why})`;
}
