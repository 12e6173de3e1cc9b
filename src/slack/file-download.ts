/**
 * Reading a file an agent picked in a modal's file_input. Slack hands the app the file's url_private,
 * which answers only to the bot token (Authorization: Bearer, with the files:read scope). The download
 * is bounded: a size limit checked before and while the bytes stream in (never buffered past it), and
 * a deadline. The token is sent only to Slack's file host or the Web API's own origin (SLACK_API_URL),
 * and a failure is a sentence for the agent that holds neither the token nor the URL.
 */
import { errorSummary } from './errors.js';

/** A file as the submission's file_input state lists it (the fields read here). */
export interface SlackFileRef {
  name: string;
  /** The size Slack reports; the download is bounded whatever it says. */
  size?: number | undefined;
  url_private?: string | undefined;
}

export interface DownloadLimits {
  token: string;
  /** The Web API base the bot calls (its origin may serve files too: a test's fake Slack). */
  apiUrl: string;
  maxBytes: number;
  timeoutMs: number;
}

export type FileDownload = { ok: true; text: string } | { ok: false; problem: string };

const SLACK_FILE_ORIGIN = 'https://files.slack.com';

const kilobytes = (bytes: number) => `${Math.ceil(bytes / 1024)} KB`;

/** Why the file is refused before any download, or undefined: no URL, or a size over the limit. */
export function fileRefusal(file: SlackFileRef, maxBytes: number): string | undefined {
  if (!file.url_private) return 'Slack gave no address to download it from';
  if (file.size !== undefined && file.size > maxBytes) return `it is ${kilobytes(file.size)}; a sheet file may be at most ${kilobytes(maxBytes)}`;
  return undefined;
}

export async function downloadSlackFile(file: SlackFileRef, limits: DownloadLimits): Promise<FileDownload> {
  const refused = fileRefusal(file, limits.maxBytes);
  if (refused) return { ok: false, problem: refused };
  const url = new URL(file.url_private!);
  if (url.origin !== SLACK_FILE_ORIGIN && url.origin !== new URL(limits.apiUrl).origin) return { ok: false, problem: `its address is not on ${SLACK_FILE_ORIGIN}, so SubOps did not send its token there` };
  let response: Response;
  try {
    response = await fetch(url, { headers: { authorization: `Bearer ${limits.token}` }, redirect: 'manual', signal: AbortSignal.timeout(limits.timeoutMs) });
  } catch (error) {
    return { ok: false, problem: failureSentence(error, limits.timeoutMs) };
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    return { ok: false, problem: 'Slack sent its sign-in page instead of the file: the app needs the files:read scope (reinstall it from manifest.yml)' };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return { ok: false, problem: `Slack answered HTTP ${response.status}` };
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limits.maxBytes) {
    await response.body?.cancel();
    return { ok: false, problem: `it is ${kilobytes(declared)}; a sheet file may be at most ${kilobytes(limits.maxBytes)}` };
  }
  return readBounded(response, limits);
}

/** The body as UTF-8 text, read chunk by chunk and abandoned as soon as it passes the limit. */
async function readBounded(response: Response, limits: DownloadLimits): Promise<FileDownload> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = (response.body as ReadableStream<Uint8Array> | null)?.getReader();
  try {
    for (let read = await reader?.read(); read && !read.done; read = await reader!.read()) {
      total += read.value.byteLength;
      if (total > limits.maxBytes) {
        await reader!.cancel();
        return { ok: false, problem: `it is over ${kilobytes(limits.maxBytes)}, the most a sheet file may be` };
      }
      chunks.push(read.value);
    }
  } catch (error) {
    return { ok: false, problem: failureSentence(error, limits.timeoutMs) };
  }
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)) };
  } catch {
    return { ok: false, problem: 'it is not UTF-8 text: save it as "CSV UTF-8" and upload it again' };
  }
}

/** What went wrong with the connection, in words: a deadline, or the network's own code (never the URL). */
function failureSentence(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `Slack did not send it within ${timeoutMs / 1000} s`;
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const { code, message } = errorSummary(cause);
  return `the download failed (${code ?? message})`;
}
