/**
 * An activation result as the front ends show it: the services' facts, with the sentences the renderer
 * words for them (the CLI's `--json` fields `message`, `done`, `notDone` and `error`). Tests assert what
 * an agent reads, so they read it through the one renderer.
 */
import { candidateLines, errorSentence, resultLists, resultSentence } from '../../src/render/activation.js';
import type { ActivationResult } from '../../src/services/activation/types.js';

export function worded(result: ActivationResult) {
  const error = result.outcome === 'failed' ? { code: result.error.code, message: errorSentence(result.error), candidates: candidateLines(result.error) } : undefined;
  return { ...result, message: resultSentence(result), ...resultLists(result), error };
}

export type WordedResult = ReturnType<typeof worded>;
