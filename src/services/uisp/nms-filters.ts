/**
 * Which of the NMS's official filters (NMS Swagger: `GET /sites?id=&ip=&deviceId=&type=&ucrm=`,
 * `GET /devices?siteId=`, `GET /devices/mac/{mac}`, `GET /sites/{id}/clients`) this UISP honours, as learnt from its answers.
 *
 * A filter is a speed-up, never a source of truth: every narrowed answer is checked against what it
 * asked for. A UISP without a query filter ignores it and answers the whole list (the interface
 * document's NMS names none of them); one without a path answers 404. Either way the question is
 * answered from the whole list instead (today's read, never a wrong answer), the filter is not asked
 * again by this process, and that is said once.
 */
export type NmsFilter = 'sites.id' | 'sites.ip' | 'sites.deviceId' | 'sites.type' | 'sites.ucrm' | 'sites.clients' | 'devices.siteId' | 'devices.mac';

const ASKED: Record<NmsFilter, string> = {
  'sites.id': 'GET /sites?id=',
  'sites.ip': 'GET /sites?ip=',
  'sites.deviceId': 'GET /sites?deviceId=',
  'sites.type': 'GET /sites?type=',
  'sites.ucrm': 'GET /sites?ucrm=',
  'sites.clients': 'GET /sites/{id}/clients',
  'devices.siteId': 'GET /devices?siteId=',
  'devices.mac': 'GET /devices/mac/{mac}',
};

export class NmsFilters {
  private readonly lacking = new Set<NmsFilter>();
  private readonly confirmed = new Set<NmsFilter>();

  /** `notice`: where the operator is told (the bot's log, the CLI's stderr). */
  constructor(private readonly notice: (line: string) => void = () => undefined) {}

  honours(filter: NmsFilter): boolean {
    return !this.lacking.has(filter);
  }

  /** Whether an answer has shown that the NMS honours it (a probe need not be asked again). */
  known(filter: NmsFilter): boolean {
    return this.confirmed.has(filter) || this.lacking.has(filter);
  }

  /** An answer showed the NMS honours the filter. */
  honoured(filter: NmsFilter): void {
    this.confirmed.add(filter);
  }

  /** The NMS answered as if it had no such filter: from now on the whole list is read instead, said once. */
  lacks(filter: NmsFilter, how: string): void {
    if (this.lacking.has(filter)) return;
    this.lacking.add(filter);
    this.notice(`UISP's NMS does not honour ${ASKED[filter]} (${how}): SubOps reads the whole list for those questions instead, which costs more on a large network.`);
  }
}
