/** The demo's suggestions come from the simulator's data, so they follow it when it changes. */
import { describe, expect, it } from 'vitest';
import { sampleTries } from '../../src/playground/intro.js';
import { INTERFACE_NUMBERING } from '../../src/services/activation/service-status.js';
import { sampleData } from '../../src/simulator/index.js';

describe('sampleTries', () => {
  it('pairs each customer device with its client and says what that client’s services make the activation do', () => {
    const tries = sampleTries(sampleData(), INTERFACE_NUMBERING);
    expect(tries.map((t) => `${t.command} | ${t.note}`)).toEqual([
      '/activate 10.20.1.21 Marcus Baptiste | cpe-baptiste → Marcus Baptiste (#1001), service 101 Active',
      '/activate 10.20.2.44 Ravi Persaud | cpe-persaud → Ravi Persaud (#1005), service 104 Suspended',
      '/activate 10.20.1.51 Priya Ramnarine | LBE-Ramnarine → Priya Ramnarine (#1002), service 102 Quoted',
      '/activate 10.20.2.37 Dwayne Fraser | NS-Fraser → Dwayne Fraser (#1003), service 103 Obsolete',
      '/activate 10.20.3.12 Shanice Williams | LiteBeam-Williams → Shanice Williams (#1004), no service yet',
      "/activate 10.20.1.88 Ada Lovelace | PowerBeam 5AC, discovered, nobody's yet: a new customer",
      '/suspend 101 | service of Marcus Baptiste, Active',
      '/unsuspend 104 | service of Ravi Persaud, Suspended',
      '/payments | the latest payments, with totals per currency',
      "/payments 1001 | Marcus Baptiste's payments (/press Next, /press Export CSV)",
      '/payments add 1001 | record a payment',
      "/client 1005 | Ravi Persaud's card (/press Unsuspend #104)",
      "/device 10.20.1.88 | PowerBeam 5AC's card (/press Activate for a customer)",
    ]);
  });

  it('follows the data: a changed status and a renamed device show up', () => {
    const data = sampleData();
    data.services.find((s) => s.id === 102)!.status = INTERFACE_NUMBERING.obsolete;
    data.devices.find((d) => d.identification.name === 'PowerBeam 5AC')!.identification.name = 'PBE-Lovelace';
    const notes = sampleTries(data, INTERFACE_NUMBERING).map((t) => t.note);
    expect(notes).toContain('LBE-Ramnarine → Priya Ramnarine (#1002), service 102 Obsolete');
    expect(notes).toContain("PBE-Lovelace, discovered, nobody's yet: a new customer");
  });
});
