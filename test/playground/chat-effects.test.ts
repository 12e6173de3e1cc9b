/** How SubOps' Slack calls read in the transcript: where each message appeared, threads, updates, ephemerals. */
import { describe, expect, it } from 'vitest';
import { ChatEffects } from '../../src/playground/chat-effects.js';
import type { FakeMessage, RecordedCall } from '../../src/playground/fake-slack.js';

const call = (method: string, args: Record<string, unknown>, response: Record<string, unknown> = {}): RecordedCall => ({ method, args, token: 'xoxb-t', at: 0, status: 200, response: { ok: true, ...response } });
const message = (ts: string, text: string, thread_ts?: string): FakeMessage => ({ type: 'message', channel: 'C0SUPPORT', ts, ...(thread_ts && { thread_ts }), user: 'UBOT', bot_id: 'B1', app_id: 'A1', team: 'T1', text });

function effects(history: FakeMessage[] = []) {
  const printed: string[] = [];
  const chat = new ChatEffects({
    names: { user: (id) => ({ U0AGENT: 'agent', U0LEAD: 'lead' })[id], channel: (id) => ({ C0SUPPORT: 'support', C0AUDIT: 'subops-audit' })[id] },
    userId: 'U0AGENT',
    botName: 'SubOps',
    print: (lines) => printed.push(...lines),
    width: () => undefined,
    messages: () => history,
  });
  return { chat, printed };
}

describe('ChatEffects', () => {
  it('labels posts by channel, indents replies, and names a thread the transcript had left', () => {
    const history = [message('1.1', 'Activation of *x*'), message('1.2', 'step', '1.1'), message('1.3', 'audit')];
    const { chat, printed } = effects(history);
    chat.call(call('chat.postMessage', { channel: 'C0SUPPORT', text: 'Activation of *x*' }, { channel: 'C0SUPPORT', ts: '1.1' }));
    chat.call(call('chat.postMessage', { channel: 'C0SUPPORT', thread_ts: '1.1', text: 'step one' }, { channel: 'C0SUPPORT', ts: '1.2' }));
    chat.call(call('chat.postMessage', { channel: 'C0AUDIT', text: 'audit\nline two' }, { channel: 'C0AUDIT', ts: '1.3' }));
    chat.call(call('chat.postMessage', { channel: 'C0SUPPORT', thread_ts: '1.1', text: 'step two' }, { channel: 'C0SUPPORT', ts: '1.4' }));
    chat.call(call('chat.update', { channel: 'C0SUPPORT', ts: '1.2', text: 'step one, retried' }, { channel: 'C0SUPPORT', ts: '1.2' }));
    chat.call(call('chat.update', { channel: 'C0SUPPORT', ts: '1.1', text: 'Activated' }, { channel: 'C0SUPPORT', ts: '1.1' }));
    expect(printed).toEqual([
      '#support  SubOps: Activation of x',
      '  ↳ SubOps: step one',
      '#subops-audit  SubOps: audit',
      '                       line two',
      '#support  in the thread of “Activation of x”:',
      '  ↳ SubOps: step two',
      '  ↳ ✎ updated: step one, retried',
      '#support  ✎ updated: Activated',
    ]);
  });

  it('shows ephemerals and response_url answers as private, DMs as DMs, and skips failed calls', () => {
    const { chat, printed } = effects();
    chat.call(call('chat.postEphemeral', { channel: 'C0SUPPORT', user: 'U0AGENT', text: ':x: could not post' }));
    chat.call(call('chat.postEphemeral', { channel: 'C0SUPPORT', user: 'U0LEAD', text: 'for the lead' }));
    chat.call(call('chat.postMessage', { channel: 'U0AGENT', text: 'a DM' }, { channel: 'U0AGENT', ts: '2.1' }));
    chat.call({ ...call('chat.postMessage', { channel: 'C0SUPPORT', text: 'refused' }), response: { ok: false, error: 'not_in_channel' } });
    chat.response({ url: 'http://x/r', body: { response_type: 'ephemeral', text: 'Latest payments' } });
    chat.response({ url: 'http://x/r', body: { replace_original: true, text: 'Replaced' } });
    chat.response({ url: 'http://x/r', body: { response_type: 'in_channel', text: 'Everyone sees this' } });
    chat.response({ url: 'http://x/r', body: { delete_original: true } });
    chat.commandAck({ response_type: 'ephemeral', text: 'usage' });
    chat.commandAck({});
    expect(printed).toEqual([
      '(only you) SubOps: ❌ could not post',
      '(only @lead) SubOps: for the lead',
      'DM  SubOps: a DM',
      '(only you) SubOps: Latest payments',
      '(only you) ✎ updated: Replaced',
      '(in the channel) SubOps: Everyone sees this',
      '(only you) ✎ SubOps deleted its answer',
      '(only you) SubOps: usage',
    ]);
  });
});
