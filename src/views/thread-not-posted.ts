/** What the agent is told privately when Slack refused an operation's parent message (the bot is not in the channel, say). */
import { escapeMrkdwn } from '../slack/escape.js';
import { channelLink } from './format.js';
import { message, section, type SlackMessage } from './kit.js';

/** Where and why nothing of the thread was posted, then what the operation did (`outcome`, as the thread would have said it). */
export function threadNotPosted(channelId: string, problems: readonly string[], outcome: SlackMessage): SlackMessage {
  const head = `:warning: I could not post in ${channelLink(channelId)} (${escapeMrkdwn(problems.join(', '))}), so here is what happened. Invite me to the channel (\`/invite @SubOps\`) to follow the next operations there.`;
  return message(`${head}\n${outcome.text}`, [section(head), ...outcome.blocks]);
}
