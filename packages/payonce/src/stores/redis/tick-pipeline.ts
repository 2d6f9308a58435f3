import type { AdaptivePipelining } from './adaptive-pipelining.js';

/**
 * The part of a connection's socket that `TickPipeline` holds back: Node's `Writable#cork()` / `uncork()`
 * (`net.Socket`, `tls.TLSSocket`).
 */
export interface CorkableStream {
  cork(): void;
  uncork(): void;
}

/**
 * Automatic pipelining of one store's commands: every command the store sends during one tick of the event loop
 * goes out in ONE socket write. The first command of a tick corks the connection's socket (`Writable#cork`), every
 * further command of that tick is buffered behind it, and a `process.nextTick` callback — which Node runs after the
 * tick's promise continuations have all run — uncorks it, so the kernel gets one `writev` for all of them.
 *
 * Why: with several concurrent deliveries, each claim and each completion used to cost one `write` system call on
 * the client and one `read` + one `write` on the server. On a loopback connection a `write` runs the receiver's
 * TCP path too (tens of µs on the bench machine), more than a small Lua script costs Redis. Grouping the commands of
 * one tick (the continuations resolved by one reply packet issue their next commands together) pays that once per
 * group, on both sides.
 *
 * What it never does: wait. There is no timer and no limit on groups in flight; a lone call is written at the end
 * of its own tick, microseconds later than a direct write, and each command keeps its own reply, timeout and error
 * (Redis answers pipelined commands in order and runs each script atomically, so grouping changes nothing per key).
 * Other commands sent on the same connection in that tick (the owner's own) are grouped too, which only saves them
 * writes. A connection that is not open yet is corked harmlessly: ioredis queues or refuses its commands without
 * writing.
 */
export class TickPipeline {
  #held: readonly CorkableStream[] | null = null;
  readonly #release = (): void => {
    const held = this.#held;
    this.#held = null;
    if (held !== null) for (const stream of held) stream.uncork();
  };

  /**
   * @param streams the sockets the store's next command may be written to (re-read at each tick).
   * @param chooser decides per command whether to cork (`AdaptivePipelining`, `pipelining: 'auto'` or one of the
   * caller's); without one every command is corked.
   */
  constructor(
    private readonly streams: () => readonly CorkableStream[],
    readonly chooser: AdaptivePipelining | null = null,
  ) {}

  /** True while this tick's commands are being held back (for tests). */
  get holding(): boolean {
    return this.#held !== null;
  }

  /**
   * Call right before sending each command: the first call of a tick corks the sockets until the tick ends. With a
   * chooser, the call counts the command and corks only while the chooser says so.
   */
  hold(): void {
    const chooser = this.chooser;
    if (chooser !== null) {
      chooser.sent();
      if (!chooser.corking) return;
    }
    if (this.#held !== null) return;
    const streams = this.streams();
    if (streams.length === 0) return;
    for (const stream of streams) stream.cork();
    this.#held = streams;
    process.nextTick(this.#release);
  }
}

const corkable = (stream: unknown): stream is CorkableStream =>
  typeof (stream as Partial<CorkableStream> | null)?.cork === 'function' &&
  typeof (stream as Partial<CorkableStream>).uncork === 'function';

/** The connection shapes whose sockets `socketsOf` can find: ioredis `Redis` (`stream`) and `Cluster` (`nodes`). */
export interface SocketOwner {
  readonly stream?: unknown;
  readonly isCluster?: boolean;
  nodes?(role: 'master'): readonly { readonly stream?: unknown }[];
}

/**
 * The sockets a store's commands are written to: the `stream` of an ioredis `Redis`, or the `stream` of every
 * master of an ioredis `Cluster` (a store's keys share one hash tag, so they all go to one of them). Empty for a
 * client that exposes no socket: its commands are then written one by one, as the client does.
 */
export function socketsOf(client: SocketOwner): readonly CorkableStream[] {
  if (client.isCluster === true && typeof client.nodes === 'function') {
    const sockets: CorkableStream[] = [];
    for (const node of client.nodes('master')) if (corkable(node.stream)) sockets.push(node.stream);
    return sockets;
  }
  return corkable(client.stream) ? [client.stream] : [];
}
