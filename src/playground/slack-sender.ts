/**
 * Plays Slack's side of a Bolt HTTP receiver: real signed POSTs carrying slash commands and
 * interactive payloads, byte for byte the way Slack encodes them, so the app's own signature check,
 * body parsing and ack path all run.
 */
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import {
  blockActionPayload,
  blockSuggestionPayload,
  eventCallbackPayload,
  slashCommandFields,
  viewClosedPayload,
  viewSubmissionPayload,
  type BlockActionInput,
  type BlockSuggestionInput,
  type PayloadStamps,
  type SlashCommandInput,
  type ViewClosedInput,
  type ViewSubmissionInput,
} from './slack-payloads.js';

export type { BlockActionInput, BlockSuggestionInput, SlashCommandInput, ViewClosedInput, ViewStateValues, ViewSubmissionInput } from './slack-payloads.js';

export interface SenderOptions {
  /** e.g. http://127.0.0.1:3000/slack/events */
  url: string;
  signingSecret: string;
  /** Unix seconds; the request timestamp and action_ts come from it. */
  now?: () => number;
  /**
   * Mints the response_url of payloads that carry one when the caller gave none; pass
   * `() => fake.responseUrl()`. Without it they carry a loopback URL nothing listens on, so an
   * app's respond() fails loudly instead of reaching the internet.
   */
  responseUrl?: () => string;
}

export interface SlackReply {
  status: number;
  /** Parsed JSON when the app answered JSON, else the text ('' for an empty ack); any, as apps ack anything. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- callers read whichever ack they expect
  body: any;
}

// Bolt compares the content type literally; Slack sends it without a charset.
const FORM = 'application/x-www-form-urlencoded';
const UNROUTABLE_RESPONSE_URL = 'http://127.0.0.1:9/response-url-not-configured';

/** Slack's v0 request signature: hex HMAC-SHA256 of `v0:{timestamp}:{body}` keyed by the signing secret. */
export function signSlackRequest(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export class SlackSender {
  private readonly now: () => number;
  private readonly stamps: PayloadStamps;
  private triggerCount = 0;
  private last: { body: string; contentType: string } | undefined;

  constructor(private readonly options: SenderOptions) {
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
    this.stamps = {
      triggerId: () => this.nextTriggerId(),
      responseUrl: options.responseUrl ?? (() => UNROUTABLE_RESPONSE_URL),
      nowSeconds: this.now,
    };
  }

  // The senders are async so that a payload that cannot be built rejects like a failed send.
  async slashCommand(input: SlashCommandInput): Promise<SlackReply> {
    return this.send(new URLSearchParams(slashCommandFields(input, this.stamps)).toString(), FORM);
  }

  async viewSubmission(input: ViewSubmissionInput): Promise<SlackReply> {
    return this.sendPayload(viewSubmissionPayload(input, this.stamps));
  }

  async viewClosed(input: ViewClosedInput): Promise<SlackReply> {
    return this.sendPayload(viewClosedPayload(input));
  }

  async blockAction(input: BlockActionInput): Promise<SlackReply> {
    return this.sendPayload(blockActionPayload(input, this.stamps));
  }

  /** Typing in a typeahead field: the options request Slack sends to the options load URL. */
  async blockSuggestion(input: BlockSuggestionInput): Promise<SlackReply> {
    return this.sendPayload(blockSuggestionPayload(input));
  }

  /** An Events API delivery (e.g. `{ type: 'app_home_opened', user, tab: 'home' }`), as Slack wraps it: JSON with a fresh event id. */
  async event(event: Record<string, unknown> & { type: string }): Promise<SlackReply> {
    return this.send(JSON.stringify(eventCallbackPayload(event, this.stamps)), 'application/json');
  }

  /**
   * Sends the last request again, byte for byte, freshly signed and marked as Slack marks its retries
   * (`x-slack-retry-num`, `x-slack-retry-reason`), as Slack does when it thinks a delivery was lost;
   * `to`: through another sender, to another replica behind the same load balancer.
   */
  async redeliver(retryNum = 1, retryReason = 'http_timeout', to: SlackSender = this): Promise<SlackReply> {
    if (!this.last) throw new Error('nothing was sent yet');
    return to.send(this.last.body, this.last.contentType, { retryNum, retryReason });
  }

  /** Raw access for the unhappy paths: a forged signature, a stale timestamp, a malformed body, a retry. */
  async send(body: string, contentType: string, headers: { timestamp?: number; signature?: string; retryNum?: number; retryReason?: string } = {}): Promise<SlackReply> {
    this.last = { body, contentType };
    const timestamp = headers.timestamp ?? this.now();
    const response = await fetch(this.options.url, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': headers.signature ?? signSlackRequest(this.options.signingSecret, timestamp, body),
        ...(headers.retryNum !== undefined && { 'x-slack-retry-num': String(headers.retryNum), 'x-slack-retry-reason': headers.retryReason ?? 'http_timeout' }),
      },
      body,
    });
    const text = await response.text();
    const isJson = response.headers.get('content-type')?.includes('json') ?? false;
    return { status: response.status, body: isJson && text !== '' ? (JSON.parse(text) as unknown) : text };
  }

  private sendPayload(payload: Record<string, unknown>): Promise<SlackReply> {
    return this.send(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), FORM);
  }

  /** Unique per sender and shaped like Slack's, e.g. '1700000000001.4821.9f0c…'. */
  private nextTriggerId(): string {
    this.triggerCount += 1;
    const counter = String(this.triggerCount).padStart(3, '0');
    return `${this.now()}${counter}.${randomInt(1_000_000_000)}.${randomBytes(16).toString('hex')}`;
  }
}
