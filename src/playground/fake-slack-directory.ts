/**
 * Who is who in the fake workspace: auth.test (Bolt's token check), users.info, usergroups.users.list
 * (access checks) and conversations.info.
 */
import {
  apiError,
  conversationProblem,
  missingArguments,
  type ApiArgs,
  type ApiResult,
  type FakeWorkspaceIdentity,
  type MethodHandler,
} from './fake-slack-api.js';

export interface FakeUser {
  name: string;
  real_name?: string;
  tz?: string;
}

export interface FakeChannel {
  name: string;
  is_private?: boolean;
  /** Whether the bot is in the channel; default true. */
  is_member?: boolean;
  is_archived?: boolean;
}

export interface FakeDirectoryContents {
  users: Record<string, FakeUser>;
  /** usergroup id -> member user ids */
  usergroups: Record<string, string[]>;
  channels: Record<string, FakeChannel>;
}

// Slack's default for a workspace that never set one.
const DEFAULT_TIME_ZONE = 'America/Los_Angeles';
const CREATED = 1_700_000_000;

export class FakeDirectory {
  readonly methods: Record<string, MethodHandler> = {
    'auth.test': () => this.authTest(),
    'users.info': (args) => this.userInfo(args),
    'usergroups.users.list': (args) => this.usergroupMembers(args),
    'conversations.info': (args) => this.conversationInfo(args),
  };

  constructor(
    private readonly identity: FakeWorkspaceIdentity,
    private readonly contents: FakeDirectoryContents,
  ) {}

  private authTest(): ApiResult {
    const { teamDomain, teamId, botUserId, botName, botId, appId } = this.identity;
    return {
      ok: true,
      url: `https://${teamDomain}.slack.com/`,
      team: 'SubOps Playground',
      user: botName,
      team_id: teamId,
      user_id: botUserId,
      bot_id: botId,
      app_id: appId,
      is_enterprise_install: false,
    };
  }

  private userInfo(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['user']);
    if (invalid) return invalid;
    const id = String(args.user);
    const isBot = id === this.identity.botUserId;
    const user = isBot ? { name: this.identity.botName } : this.contents.users[id];
    if (!user) return apiError('user_not_found');
    const realName = user.real_name ?? user.name;
    const tz = user.tz ?? DEFAULT_TIME_ZONE;
    return {
      ok: true,
      user: {
        id,
        team_id: this.identity.teamId,
        name: user.name,
        deleted: false,
        real_name: realName,
        tz,
        tz_label: timeZoneName(tz, 'long'),
        tz_offset: utcOffsetSeconds(tz),
        profile: {
          real_name: realName,
          real_name_normalized: realName,
          display_name: user.name,
          display_name_normalized: user.name,
          team: this.identity.teamId,
          ...(isBot ? { bot_id: this.identity.botId, api_app_id: this.identity.appId } : {}),
        },
        is_admin: false,
        is_owner: false,
        is_primary_owner: false,
        is_restricted: false,
        is_ultra_restricted: false,
        is_bot: isBot,
        is_app_user: false,
        updated: CREATED,
      },
    };
  }

  private usergroupMembers(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['usergroup']);
    if (invalid) return invalid;
    const members = this.contents.usergroups[String(args.usergroup)];
    return members ? { ok: true, users: [...members] } : apiError('no_such_subteam');
  }

  private conversationInfo(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['channel']) ?? conversationProblem(args.channel);
    if (invalid) return invalid;
    const id = String(args.channel);
    const known = this.contents.channels[id];
    const isIm = id.startsWith('D');
    const name = known?.name ?? id.toLowerCase();
    const emptyText = { value: '', creator: '', last_set: 0 };
    return {
      ok: true,
      channel: {
        id,
        ...(isIm ? {} : { name, name_normalized: name }),
        is_channel: !isIm,
        is_group: false,
        is_im: isIm,
        is_mpim: false,
        is_private: isIm || (known?.is_private ?? false),
        created: CREATED,
        is_archived: known?.is_archived ?? false,
        is_general: false,
        is_member: known?.is_member ?? true,
        is_shared: false,
        is_ext_shared: false,
        is_org_shared: false,
        context_team_id: this.identity.teamId,
        topic: emptyText,
        purpose: emptyText,
      },
    };
  }
}

function timeZoneName(timeZone: string, style: 'long' | 'longOffset'): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: style }).formatToParts(new Date());
  return parts.find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
}

/** Seconds east of UTC right now, from names like 'GMT-08:00' ('GMT' alone for UTC). */
function utcOffsetSeconds(timeZone: string): number {
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(timeZoneName(timeZone, 'longOffset'));
  if (!match) return 0;
  const seconds = Number(match[2]) * 3600 + Number(match[3]) * 60;
  return match[1] === '-' ? -seconds : seconds;
}
