/**
 * Who may do what, one rule for every front end that acts for a person (today the Slack app: commands,
 * forms, buttons, shortcuts and options loads all ask `check`). Two layers, both from configuration:
 * - who may use SubOps at all (ALLOWED_USER_IDS / ALLOWED_USERGROUP_ID; or, only when asked for by
 *   ALLOWED_EVERYONE=true, everyone: the configuration refuses neither);
 * - per action (ACCESS_<ACTION>): user ids and/or user groups. An action left unset is granted to
 *   everyone who may use SubOps, which is the behaviour before per-action grants existed.
 * The CLI is run by whoever holds the UISP token and is not subject to these grants.
 */

export const ACCESS_ACTIONS = ['lookup', 'activate', 'suspend', 'unsuspend', 'record-payment', 'approve', 'acknowledge-outage'] as const;
export type AccessAction = (typeof ACCESS_ACTIONS)[number];

/** Every action: what a view offers when it is not told the user's grants. */
export const EVERY_ACTION: ReadonlySet<AccessAction> = new Set(ACCESS_ACTIONS);

/** Users listed by id, and members of the listed user groups. */
export interface Grant {
  userIds: readonly string[];
  groupIds: readonly string[];
}

export interface AccessSettings {
  /** Who may use SubOps at all; undefined: everyone in the workspace (ALLOWED_EVERYONE=true). */
  everyone: Grant | undefined;
  /** Per action; an action not listed is granted to everyone who may use SubOps. */
  actions: Partial<Record<AccessAction, Grant>>;
}

/** The members of a user group (a cached Slack read; an unreadable group has no members: fail closed). */
export type GroupMembers = (groupId: string) => Promise<ReadonlySet<string>>;

/**
 * `allowed`, or what the user lacks: `action` undefined means SubOps at all; `needs` names who has it.
 */
export type AccessDecision = { allowed: true } | { allowed: false; action: AccessAction | undefined; needs: Grant };

export class AccessPolicy {
  constructor(
    private readonly settings: AccessSettings,
    private readonly members: GroupMembers,
  ) {}

  /** True when nobody is restricted in any way (startup warns). */
  get open(): boolean {
    return !this.settings.everyone && Object.keys(this.settings.actions).length === 0;
  }

  /** May this user use SubOps at all and, when `action` is given, do that? Reads group lists only as needed. */
  async check(userId: string, action?: AccessAction): Promise<AccessDecision> {
    const { everyone } = this.settings;
    if (everyone && !(await this.holds(everyone, userId))) return { allowed: false, action: undefined, needs: everyone };
    const grant = action && this.settings.actions[action];
    if (grant && !(await this.holds(grant, userId))) return { allowed: false, action, needs: grant };
    return { allowed: true };
  }

  /** Every action this user may do: which buttons a card, the Home tab or a form offers them. */
  async allowedActions(userId: string): Promise<ReadonlySet<AccessAction>> {
    const checks = await Promise.all(ACCESS_ACTIONS.map(async (action) => [action, (await this.check(userId, action)).allowed] as const));
    return new Set(checks.filter(([, allowed]) => allowed).map(([action]) => action));
  }

  private async holds(grant: Grant, userId: string): Promise<boolean> {
    if (grant.userIds.includes(userId)) return true;
    for (const groupId of grant.groupIds) if ((await this.members(groupId)).has(userId)) return true;
    return false;
  }
}

/** Slack ids as configuration names them: users start with U (W on Enterprise Grid), user groups with S. */
export const isSlackUserId = (id: string) => /^[UW][A-Z0-9]+$/.test(id);
export const isSlackUserGroupId = (id: string) => /^S[A-Z0-9]+$/.test(id);

/** A grant from a list of user and user group ids; anything else is `invalid`. */
export function grantOf(ids: readonly string[]): { grant: Grant; invalid: string[] } {
  const invalid = ids.filter((id) => !isSlackUserId(id) && !isSlackUserGroupId(id));
  return { grant: { userIds: ids.filter(isSlackUserId), groupIds: ids.filter(isSlackUserGroupId) }, invalid };
}
