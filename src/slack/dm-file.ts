/**
 * A file for the agent alone, in their DM with the bot (files.uploadV2): a payments export, the install
 * sheet template. Needs im:write and files:write; a refusal is thrown for the caller to word.
 */
import type { webApi } from '@slack/bolt';

export async function uploadToDm(client: webApi.WebClient, userId: string, file: { filename: string; content: string; comment: string }): Promise<void> {
  const dm = await client.conversations.open({ users: userId });
  const channelId = dm.channel?.id;
  if (!channelId) throw new Error('conversations.open returned no channel');
  await client.files.uploadV2({ channel_id: channelId, filename: file.filename, title: file.filename, content: file.content, initial_comment: file.comment });
}
