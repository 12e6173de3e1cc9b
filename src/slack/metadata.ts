/**
 * private_metadata of our modals: who opened it, where, and what was decided so far. Slack round-trips
 * it untouched on every submission and block action, so a later step knows the channel of the original
 * command without any server-side session. Parsed with zod because it comes back over the wire.
 */
import { z } from 'zod';
import { ApprovalReasonSchema } from '../services/approvals.js';
import { SHEET_MAX_ROWS } from '../services/sheets/sheet.js';
import type { SheetCheck } from '../services/sheets/types.js';
import { ShownServiceSchema } from '../services/suspensions.js';
import { LIMITS } from '../views/limits.js';

/** Where a command ran: progress is posted there; response_url reaches the agent even where the bot is not a member. */
export const OriginSchema = z.object({
  channelId: z.string().min(1),
  userId: z.string().min(1),
  responseUrl: z.string().optional(),
});
export type Origin = z.infer<typeof OriginSchema>;

export function originOfCommand(command: { channel_id: string; user_id: string; response_url?: string }): Origin {
  return { channelId: command.channel_id, userId: command.user_id, ...(command.response_url && { responseUrl: command.response_url }) };
}

/** Where a button was pressed: its channel (a message's), else the agent's DM with the bot (App Home). */
export function originOfAction(body: { user: { id: string }; channel?: { id?: string } | undefined; container?: { channel_id?: string } | undefined; response_url?: string }): Origin {
  const channelId = body.channel?.id ?? body.container?.channel_id ?? body.user.id;
  return { channelId, userId: body.user.id, ...(body.response_url && { responseUrl: body.response_url }) };
}

export const ActivationRequestSchema = z.object({
  device: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  clientId: z.number().int().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
});

/** What the agent confirmed before a run: moving the device off that site, deleting those services (ActivationConfirmation). */
const ConfirmationSchema = z.object({ moveFrom: z.string().min(1).optional(), deletes: z.union([z.array(z.number().int()), z.literal('any')]).optional() });

export const ConfirmedDeletesSchema = z.array(z.object({ id: z.number().int().positive(), status: z.number().int() }));
export const ConfirmedMoveSchema = z.object({ deviceId: z.string().min(1), siteId: z.string().min(1) });

export const ActivationMetaSchema = z.object({
  origin: OriginSchema,
  /**
   * On the confirmation view: the request, the services the agent agreed to delete (id and the status
   * shown), and the device move. On submission UISP is read again and compared with these: anything
   * different is shown to the agent again before any write.
   */
  request: ActivationRequestSchema.optional(),
  confirmedDeletes: ConfirmedDeletesSchema.optional(),
  confirmedMove: ConfirmedMoveSchema.optional(),
  /** The existing client the confirmed plan was for: its services are read again with the name lookup. */
  confirmedClientId: z.number().int().optional(),
});

/**
 * An install sheet's modal: where /activate sheet ran and, on the check, the id of the check as the store
 * keeps it (./sheet-records.ts: too big for Slack's 3000 characters, and Run may reach another replica).
 */
export const SheetMetaSchema = z.object({ origin: OriginSchema, sheetId: z.string().uuid().optional() });

/** Continue's button value on a stopped install sheet: the sheet in the store, and the approval it ran under (checked again when pressed). */
export const SheetContinueSchema = z.object({ sheetId: z.string().uuid(), approvalId: z.string().uuid().optional() });
export type SheetContinue = z.infer<typeof SheetContinueSchema>;

export const SuspensionActionSchema = z.enum(['suspend', 'unsuspend']);
export type SuspensionAction = z.infer<typeof SuspensionActionSchema>;

export const SuspensionMetaSchema = z.object({
  action: SuspensionActionSchema,
  origin: OriginSchema,
  /** Set once the agent picked a client, so the submission knows which client's services were listed. */
  clientId: z.number().int().optional(),
  /** Set on the confirm view: exactly what the agent confirmed. */
  serviceId: z.number().int().optional(),
  reasonId: z.number().int().optional(),
  /** Set on the confirm view: the service as it showed it; a different one is shown again before anything is written. */
  shown: ShownServiceSchema.optional(),
});

export const PaymentMetaSchema = z.object({ origin: OriginSchema });

/** A payments listing's filters and page, carried by its Previous, Next, Filter and Export buttons. */
export const PaymentRangeSchema = z.object({
  clientId: z.number().int().optional(),
  /** YYYY-MM-DD; the listing resolves missing dates as the command does. */
  from: z.string().optional(),
  to: z.string().optional(),
  page: z.number().int().min(1),
});
export type PaymentRange = z.infer<typeof PaymentRangeSchema>;

/**
 * The Retry button's value: the request to re-run, who started the original run (the parent message
 * names them), what they confirmed, and the approval request it ran under (the store holds whether that
 * approval still stands).
 */
export const RetryValueSchema = z.object({ request: ActivationRequestSchema, startedBy: z.string().min(1), confirm: ConfirmationSchema.optional(), approvalId: z.string().min(1).optional() });
export type RetryValue = z.infer<typeof RetryValueSchema>;

/** An Activate button's value (client and device cards): what the activation form is filled with. */
export const ActivatePrefillSchema = z.object({
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  clientId: z.number().int().optional(),
  device: z.string().optional(),
});

/**
 * A Remove duplicate button's value (the late-duplicate notice): which client, which kind of record, the
 * one kept (the activation reported it) and the late one to remove. CRM ids are numbers, NMS ids strings.
 * A client: the kept one is the client itself (`keptId` = `clientId`), the late one a namesake of it.
 */
export const RemoveDuplicateValueSchema = z.discriminatedUnion('record', [
  z
    .object({ clientId: z.number().int().positive(), record: z.literal('client'), keptId: z.number().int().positive(), duplicateId: z.number().int().positive() })
    .refine((v) => v.keptId === v.clientId, { message: 'a client duplicate keeps the client itself', path: ['keptId'] }),
  z.object({ clientId: z.number().int().positive(), record: z.literal('service'), keptId: z.number().int().positive(), duplicateId: z.number().int().positive() }),
  z.object({ clientId: z.number().int().positive(), record: z.literal('site'), keptId: z.string().min(1), duplicateId: z.string().min(1) }),
]);
export type RemoveDuplicateValue = z.infer<typeof RemoveDuplicateValueSchema>;

/** A sheet's check as its approval request keeps it: each row and the totals, as the service made them. */
const SheetCheckShape = z.object({
  rows: z.array(z.object({ row: z.number().int().positive(), line: z.number().int().positive(), kind: z.enum(['problem', 'refused', 'plan']) })).min(1).max(SHEET_MAX_ROWS),
  totals: z.object({ rows: z.number().int(), toRun: z.number().int(), needConfirmation: z.number().int(), alreadyDone: z.number().int(), inError: z.number().int() }),
});
/**
 * The check is the service's own JSON (plans, refusals), read back only from a row whose seal verifies
 * (../slack/approval-requests.ts), so SubOps wrote it: its outline is checked here, not re-typed field by field.
 */
const SheetCheckSchema = z.custom<SheetCheck>((value) => SheetCheckShape.safeParse(value).success, { message: 'not an install sheet check' });

/** The confirmed operation, exactly as the requester confirmed it: what runs on approval, after a fresh read. */
export const ApprovedOperationSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('activation'),
    request: ActivationRequestSchema,
    confirmedDeletes: ConfirmedDeletesSchema,
    confirmedMove: ConfirmedMoveSchema.optional(),
    confirmedClientId: z.number().int().optional(),
  }),
  z.object({
    kind: z.literal('suspension'),
    action: z.enum(['suspend', 'unsuspend']),
    serviceId: z.number().int().positive(),
    reasonId: z.number().int().optional(),
    /** The service's CRM status when the request was made: a different one on approval stops the run. */
    status: z.number().int(),
    clientName: z.string(),
  }),
  z.object({
    kind: z.literal('payment'),
    input: z.object({ clientId: z.number().int().positive(), amount: z.number().positive(), method: z.string().optional(), note: z.string().optional() }),
    clientName: z.string(),
    currency: z.string().optional(),
  }),
  /** A Remove duplicate press: the removal it asks, decided again (both records read) when it runs. */
  z.object({ kind: z.literal('remove-duplicate'), removal: RemoveDuplicateValueSchema }),
  /**
   * An install sheet (issue #41): its check as shown, each row's deletes and move confirmed as it showed
   * them; `approvalRows`: the rows whose deletes or move the approval rule covers; `sheetId`: the sheet as the store
   * keeps it, where its rows' ends are recorded for Continue. Every row is read again as it runs.
   */
  z.object({ kind: z.literal('sheet'), sheetId: z.string().uuid(), check: SheetCheckSchema, approvalRows: z.array(z.number().int().positive()).min(1) }),
]);
export type ApprovedOperation = z.infer<typeof ApprovedOperationSchema>;

export const ApprovalRequestSchema = z.object({
  /** Names the request in its decisions' claims. */
  id: z.string().min(1),
  requester: z.string().min(1),
  /** Where the requester acted: the approved operation reports there, as it would have. */
  origin: OriginSchema,
  requestedAt: z.number().int(),
  expiresAt: z.number().int(),
  reasons: z.array(ApprovalReasonSchema).min(1),
  operation: ApprovedOperationSchema,
});
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>;

/** A request as read back from Slack: where its message is. */
export interface StoredRequest {
  channel: string;
  ts: string;
  request: ApprovalRequest;
}

/** Checked against the schema that will read it back, so writer and reader cannot drift apart. */
export function encodeMetadata<T>(schema: z.ZodType<T>, value: T): string {
  const encoded = JSON.stringify(schema.parse(value));
  if (encoded.length > LIMITS.privateMetadata) throw new RangeError(`private_metadata would be ${encoded.length} characters; Slack allows ${LIMITS.privateMetadata}`);
  return encoded;
}

export function decodeMetadata<T>(schema: z.ZodType<T>, raw: string | undefined): T {
  return schema.parse(JSON.parse(raw || 'null'));
}

/** As decodeMetadata, for a value anyone may have sent (a button's): undefined when it is not JSON of that shape. */
export function readMetadata<T>(schema: z.ZodType<T>, raw: string | undefined): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw || 'null');
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
