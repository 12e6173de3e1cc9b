/**
 * The one escaping function for mrkdwn. Slack parses `<…>` as mentions and links and `&` as the start of
 * an entity, so any user- or UISP-supplied string goes through here before it is placed in mrkdwn:
 * a client named `<!channel>` then renders literally and pings nobody.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
