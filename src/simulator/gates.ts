/**
 * Gates: tests force interleavings with these instead of timing. A gate holds every request that
 * matches it, as it arrives, until the test releases it — in the order the test chooses, answered, or
 * applied with its answer lost (the connection reset after the write, as a lost answer is). A request
 * released after its client gave up is a write UISP applied late.
 */

/** What a gate sees of a request (the server's GatedRequest). */
export interface GatedRequest {
  method: string;
  path: string;
  body: unknown;
}

export interface GateMatch {
  /** e.g. 'POST'; any method when omitted. */
  method?: string;
  /** An exact pathname, or a RegExp tested on it. */
  path: string | RegExp;
}

/**
 * What happens to a released request: applied and answered, applied with the answer lost, or refused
 * with a 503 and not applied (a write that fails without being applied).
 */
export type Release = 'answer' | 'lose-answer' | 'unavailable';

export interface SimulatorGate {
  /** The requests held so far, in arrival order (released ones stay listed). */
  readonly held: readonly GatedRequest[];
  /** Resolves once `count` requests have been held in all. */
  arrived(count: number): Promise<void>;
  /** Lets the held request at `index` through; resolves once it has been handled. */
  release(index: number, how?: Release): Promise<void>;
  /**
   * Resets the held request's connection without applying it, and keeps holding it: its client sees no
   * answer, and a later `release` (or `open`) applies it late, after the client gave up, as UISP may.
   * Resolves once the connection is reset.
   */
  drop(index: number): Promise<void>;
  /** Lets every held request through, answered, and holds nothing from now on. */
  open(): void;
}

interface Parked {
  record: GatedRequest;
  go: (how: Release) => void;
  handled: Promise<void>;
  done: () => void;
  drop: () => void;
  dropped: Promise<void>;
}

/** What the server waits on for a parked request (./server.ts). */
export interface Hold {
  /** How it is released; first settles with 'dropped' when the test drops it before that. */
  how: Promise<Release>;
  dropping: Promise<'dropped'>;
  /** The server reset the connection of a dropped request. */
  dropped: () => void;
  done: () => void;
}

export class Gate implements SimulatorGate {
  private readonly parked: Parked[] = [];
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  private opened = false;

  constructor(private readonly match: GateMatch) {}

  get held(): readonly GatedRequest[] {
    return this.parked.map((p) => p.record);
  }

  /** Parks a matching request (the server awaits the answer before applying it); undefined when it passes. */
  hold(record: GatedRequest): Hold | undefined {
    if (this.opened || !matches(this.match, record)) return undefined;
    let go!: (how: Release) => void;
    let done!: () => void;
    let drop!: (value: 'dropped') => void;
    let dropped!: () => void;
    const how = new Promise<Release>((resolve) => (go = resolve));
    const handled = new Promise<void>((resolve) => (done = resolve));
    const dropping = new Promise<'dropped'>((resolve) => (drop = resolve));
    const reset = new Promise<void>((resolve) => (dropped = resolve));
    this.parked.push({ record, go, handled, done, drop: () => drop('dropped'), dropped: reset });
    for (const waiter of this.waiters.filter((w) => w.count <= this.parked.length)) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    return { how, dropping, dropped, done };
  }

  arrived(count: number): Promise<void> {
    return this.parked.length >= count ? Promise.resolve() : new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  release(index: number, how: Release = 'answer'): Promise<void> {
    const parked = this.parked[index];
    if (!parked) throw new RangeError(`no held request #${index} (${this.parked.length} held)`);
    parked.go(how);
    return parked.handled;
  }

  drop(index: number): Promise<void> {
    const parked = this.parked[index];
    if (!parked) throw new RangeError(`no held request #${index} (${this.parked.length} held)`);
    parked.drop();
    return parked.dropped;
  }

  open(): void {
    this.opened = true;
    for (const parked of this.parked) parked.go('answer');
  }
}

function matches({ method, path }: GateMatch, record: GatedRequest): boolean {
  if (method !== undefined && method.toUpperCase() !== record.method) return false;
  return path instanceof RegExp ? path.test(record.path) : path === record.path;
}
