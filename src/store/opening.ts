/**
 * An engine opened on first use (or on `ready()`): every call waits for it, and nothing is opened for a
 * process that never asks (`subops --help`, a CLI command that writes nothing).
 */
export class Opening<Engine extends { close(): Promise<void> }> {
  private opening: Promise<Engine> | undefined;
  private opened = false;

  constructor(private readonly open: () => Promise<Engine>) {}

  /** Whether the engine is open now: what must answer at once (/healthz) asks this instead of waiting. */
  get isOpen(): boolean {
    return this.opened;
  }

  /** Opens the engine if nothing has yet; resolves once it is open (rejects with why it could not open). */
  async ready(): Promise<void> {
    await this.engine();
  }

  /** Closes the engine when it was opened; one never opened stays closed. */
  async close(): Promise<void> {
    const engine = await this.opening?.catch(() => undefined);
    await engine?.close();
  }

  protected engine(): Promise<Engine> {
    return (this.opening ??= this.open().then((engine) => {
      this.opened = true;
      return engine;
    }));
  }
}
