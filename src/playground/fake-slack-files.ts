/**
 * File uploads of the fake Slack, the three steps of files.uploadV2: files.getUploadURLExternal hands out
 * an upload URL on the fake, the client POSTs the bytes there, and files.completeUploadExternal shares the
 * uploaded files in a conversation. conversations.open gives the DM with a user, where SubOps sends exports.
 * A file an agent picks in a modal's file_input (`add`) is served at its url_private, as Slack does, only
 * to a request carrying a bot token; without one Slack redirects to its sign-in page, and so does the fake.
 */
import { randomBytes } from 'node:crypto';
import { apiError, conversationProblem, missingArguments, stringField, type ApiArgs, type ApiResult, type MethodHandler } from './fake-slack-api.js';
import { authProblem } from './fake-slack-request.js';

export interface FakeFile {
  id: string;
  filename: string;
  /** The uploaded bytes as text (SubOps uploads CSV). */
  content: string;
  /** Set once the upload is completed: where it was shared, under which title and comment. */
  channel?: string;
  title?: string;
  initialComment?: string;
}

const UPLOAD_PATH = '/upload/v1/';
const PRIVATE_PATH = '/files-pri/';

/** A file as a view_submission's file_input state lists it (the fields SubOps reads, and a few more Slack sends). */
export interface SlackFileObject {
  id: string;
  name: string;
  title: string;
  filetype: string;
  mimetype: string;
  size: number;
  url_private: string;
  url_private_download: string;
}

export interface AddedFile {
  filename: string;
  content: string;
  /** Slack's file type: 'csv' for a .csv name unless given. */
  filetype?: string;
  /** The size Slack reports, when a test wants it to differ from the content's (a file that grew). */
  size?: number;
}

export class FakeFiles {
  /** Every file whose upload URL was handed out, by id. */
  readonly files = new Map<string, FakeFile>();

  readonly methods: Record<string, MethodHandler> = {
    'files.getUploadURLExternal': (args) => this.uploadUrl(args),
    'files.completeUploadExternal': (args) => this.complete(args),
    'conversations.open': (args) => this.openDm(args),
  };

  constructor(private readonly origin: () => string) {}

  /** A file the agent uploaded in Slack (a modal's file_input): kept, and described as the submission's state lists it. */
  add(file: AddedFile): SlackFileObject {
    const id = `F${randomBytes(5).toString('hex').toUpperCase()}`;
    this.files.set(id, { id, filename: file.filename, content: file.content });
    const filetype = file.filetype ?? (/\.csv$/i.test(file.filename) ? 'csv' : 'text');
    const url = `${this.origin()}${PRIVATE_PATH}${id}/${encodeURIComponent(file.filename)}`;
    return {
      id,
      name: file.filename,
      title: file.filename,
      filetype,
      mimetype: filetype === 'csv' ? 'text/csv' : 'text/plain',
      size: file.size ?? Buffer.byteLength(file.content),
      url_private: url,
      url_private_download: `${url}?download=1`,
    };
  }

  /** True when the path is a file's url_private on this fake. */
  isPrivatePath(path: string): boolean {
    return path.startsWith(PRIVATE_PATH);
  }

  /** GET url_private: the bytes to a bot token (Authorization: Bearer), the sign-in redirect to anyone else, 404 for no such file. */
  serve(path: string, authorization: string | undefined): { status: number; headers: Record<string, string>; body: string } {
    const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (authProblem(token)) return { status: 302, headers: { location: `${this.origin()}/?redir=${encodeURIComponent(path)}`, 'content-type': 'text/html' }, body: '<html>Sign in</html>' };
    const file = this.files.get(path.slice(PRIVATE_PATH.length).split('/')[0] ?? '');
    if (!file) return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'file_not_found' };
    return { status: 200, headers: { 'content-type': 'text/csv' }, body: file.content };
  }

  /** True when the path is an upload URL this fake handed out. */
  isUploadPath(path: string): boolean {
    return path.startsWith(UPLOAD_PATH) && this.files.has(path.slice(UPLOAD_PATH.length));
  }

  /** The POST to an upload URL: a multipart form whose one file part is the content. Answers like Slack: 200 "OK". */
  async receive(path: string, contentType: string, body: string): Promise<{ status: number; text: string }> {
    const file = this.files.get(path.slice(UPLOAD_PATH.length))!;
    try {
      const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
      const part = [...form.values()].find((value): value is File => typeof value !== 'string');
      file.content = part ? await part.text() : body;
    } catch {
      file.content = body;
    }
    return { status: 200, text: `OK - ${file.content.length}` };
  }

  private uploadUrl(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['filename', 'length']);
    if (invalid) return invalid;
    const id = `F${randomBytes(5).toString('hex').toUpperCase()}`;
    this.files.set(id, { id, filename: String(args.filename), content: '' });
    return { ok: true, upload_url: `${this.origin()}${UPLOAD_PATH}${id}`, file_id: id };
  }

  private complete(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['files']) ?? (args.channel_id === undefined ? undefined : conversationProblem(args.channel_id));
    if (invalid) return invalid;
    let listed: unknown;
    try {
      listed = typeof args.files === 'string' ? JSON.parse(args.files) : args.files;
    } catch {
      return apiError('invalid_arguments', ['[ERROR] files is not valid JSON [json-pointer:/files]']);
    }
    if (!Array.isArray(listed)) return apiError('invalid_arguments', ['[ERROR] files must be an array [json-pointer:/files]']);
    const completed: FakeFile[] = [];
    for (const entry of listed as { id?: string; title?: string }[]) {
      const file = entry.id ? this.files.get(entry.id) : undefined;
      if (!file) return apiError('file_not_found');
      const channel = stringField(args, 'channel_id');
      const initialComment = stringField(args, 'initial_comment');
      Object.assign(file, { ...(channel && { channel }), ...(entry.title && { title: entry.title }), ...(initialComment && { initialComment }) });
      completed.push(file);
    }
    return { ok: true, files: completed.map((f) => ({ id: f.id, name: f.filename, title: f.title ?? f.filename })) };
  }

  /** The DM between the bot and a user: D + the user id without its first letter. */
  private openDm(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['users']);
    if (invalid) return invalid;
    const users = String(args.users).split(',');
    if (users.length !== 1 || !/^[UW][A-Z0-9]+$/.test(users[0]!)) return apiError('user_not_found');
    return { ok: true, channel: { id: `D${users[0]!.slice(1)}` } };
  }
}
