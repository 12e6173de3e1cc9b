/** What the bot process itself tells agents: a repeated delivery, a restart in progress, an operation a stopped process left. */
import { notice } from './help.js';
import { CALLBACK } from './ids.js';
import { modal, section, type ModalView, type SlackMessage } from './kit.js';

export const RESTARTING = ':hourglass_flowing_sand: SubOps is restarting; try again in a minute. Nothing was run.';

export const ALREADY_PRESSED = ':information_source: That button was already pressed; SubOps acts on it once. Its progress and result are in the thread.';

const ALREADY_SUBMITTED = ':information_source: This form was already submitted; SubOps acts on it once. Close this to see where it stands.';

export function restartingMessage(): SlackMessage {
  return notice(RESTARTING);
}

export function alreadyPressedMessage(): SlackMessage {
  return notice(ALREADY_PRESSED);
}

/** Pushed on top of a submitted form (never replacing it), so the agent's form and values stay. */
export function restartingModal(): ModalView {
  return modal({ callbackId: CALLBACK.info, title: 'SubOps', close: 'Back', blocks: [section(`${RESTARTING} Your form is kept: go back and submit it again in a minute.`)] });
}

export function alreadySubmittedModal(): ModalView {
  return modal({ callbackId: CALLBACK.info, title: 'SubOps', close: 'Close', blocks: [section(ALREADY_SUBMITTED)] });
}

/**
 * What an operation's thread says when the SubOps process running it stopped hard before its end
 * (posted by the next process: src/slack/in-flight.ts). `what` names the operation, `check` says how to
 * see whether UISP has the change before trying again.
 */
export function operationStopped(what: string, check: string): SlackMessage {
  return notice(`:warning: *SubOps stopped* before ${what} ended (its process was restarted or killed): UISP may or may not have the change. ${check}`);
}
