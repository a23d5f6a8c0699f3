/** How many questions (elicitations, sampling requests) one server may have waiting at once. */
export const DEFAULT_MAX_PENDING_PER_SERVER = 3;

/** A question a server asked that was not put to the person, and why. */
export class ServerAskRefused extends Error {
  constructor(
    readonly server: string,
    message: string,
  ) {
    super(message);
    this.name = 'ServerAskRefused';
  }
}

/**
 * Questions servers ask the person (elicitation, sampling), bounded per server: a server that
 * floods gets its first few shown and the rest refused at once with a reason, while every other
 * server's questions go on being asked and answered in any order.
 */
export class ServerAskQueue {
  private readonly _pending = new Map<string, number>();
  private readonly _max: number;

  constructor(options: { readonly maxPendingPerServer?: number } = {}) {
    this._max = Math.max(1, options.maxPendingPerServer ?? DEFAULT_MAX_PENDING_PER_SERVER);
  }

  /** Questions of `server` waiting for an answer now. */
  pending(server: string): number {
    return this._pending.get(server) ?? 0;
  }

  /**
   * Runs `ask` when `server` has room, and frees the room when it settles.
   * @throws ServerAskRefused at once when the server already has the most questions waiting.
   */
  async run<T>(server: string, kind: string, ask: () => Promise<T>): Promise<T> {
    const pending = this.pending(server);
    if (pending >= this._max) {
      throw new ServerAskRefused(server, `"${server}" already has ${pending} ${kind} requests waiting for an answer; this one was refused (at most ${this._max} at a time)`);
    }
    this._pending.set(server, pending + 1);
    try {
      return await ask();
    } finally {
      const left = this.pending(server) - 1;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a server at 0 reads as 0 either way; deleting only keeps the map to servers with questions
      if (left > 0) this._pending.set(server, left);
      else this._pending.delete(server);
    }
  }
}
