/** Reading what the app answered to a slash command's response_url, for tests of ephemeral answers. */
import { expect } from 'vitest';
import { expectValidMessage } from './block-kit.js';
import type { Harness } from './harness.js';

export type Answer = Record<string, unknown> & { text: string; blocks: Record<string, unknown>[] };

/** The n-th answer sent to a response_url, once the app has settled: ephemeral and valid Block Kit. */
export async function answer(harness: Harness, index: number): Promise<Answer> {
  await harness.settled();
  const body = harness.fake.responses[index]!.body as Answer;
  expect(body.response_type).toBe('ephemeral');
  expectValidMessage(body);
  return body;
}
