/**
 * What a run that stopped before an irreversible write because its hold on the operation was gone says,
 * in the CLI and in Slack alike (src/services/errors.ts: LeaseLostError; an activation's 'lease-lost').
 */
export function leaseLostSentence(reason: 'lost' | 'store'): string {
  return reason === 'lost'
    ? "SubOps' hold on this operation ran out while the run was paused or slow, and another SubOps process may have taken it over: this run stopped before its next write, and sent nothing more to UISP. Read UISP before running it again."
    : "SubOps' store did not answer when this run checked its hold on the operation: it stopped before its next write, and sent nothing more to UISP. Read UISP before running it again.";
}
