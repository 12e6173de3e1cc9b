/**
 * Holds every UISP request at the services' HTTP client until released: a test can see what the app
 * does while UISP has not answered (ack first, nothing shown yet) without a simulated latency to wait out.
 */
import { Agent, type Dispatcher } from 'undici';

export class UispGate {
  private released = false;
  private readonly held: (() => void)[] = [];
  private readonly onHold: (() => void)[] = [];

  /** A dispatcher for createServices({ dispatcher }) that parks requests while the gate is shut. */
  readonly dispatcher: Dispatcher = new Agent().compose((dispatch) => (options, handler) => {
    if (this.released) return dispatch(options, handler);
    this.held.push(() => dispatch(options, handler));
    for (const wake of this.onHold.splice(0)) wake();
    return true;
  });

  /** Requests parked so far. */
  get heldCount(): number {
    return this.held.length;
  }

  /** Resolves once at least one request is parked. */
  async somethingHeld(): Promise<void> {
    if (this.held.length === 0) await new Promise<void>((resolve) => this.onHold.push(resolve));
  }

  /** Parks requests again from now on. */
  shut(): void {
    this.released = false;
  }

  /** Lets the parked requests and every later one through. */
  release(): void {
    this.released = true;
    for (const send of this.held.splice(0)) send();
  }

  close(): Promise<void> {
    this.release();
    return this.dispatcher.close();
  }
}
