import type { IPermissionPrompter, PermissionAnswer, PermissionRequest } from '../permissions/types';

/**
 * The permission gate's prompter for a chat: it only waits. What the card shows reaches the panel
 * through the call's own events (one channel); the panel's answer comes back by the call's id.
 * A stop, or a card nobody can answer any more, denies.
 */
export class ChatPrompter implements IPermissionPrompter {
  /** Each open card by its call's id: how to answer it, and the signal it was asked under (its caller's). */
  private readonly _pending = new Map<string, { readonly done: (answer: PermissionAnswer) => void; readonly signal: AbortSignal }>();

  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    return new Promise((resolve) => {
      const done = (answer: PermissionAnswer) => {
        signal.removeEventListener('abort', onAbort);
        this._pending.delete(request.callId);
        resolve(answer);
      };
      const onAbort = () => done({ choice: 'deny', reason: 'stopped before it was approved' });
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      // A second question for the same call replaces the first (which is denied).
      this._pending.get(request.callId)?.done({ choice: 'deny', reason: 'asked again' });
      this._pending.set(request.callId, { done, signal });
    });
  }

  /** Whether the call `callId` waits for an answer. */
  isWaiting(callId: string): boolean {
    return this._pending.has(callId);
  }

  /** Answers the call's card; false when it no longer waits. */
  answer(callId: string, answer: PermissionAnswer): boolean {
    const pending = this._pending.get(callId);
    if (!pending) return false;
    pending.done(answer);
    return true;
  }

  /**
   * Denies the open cards asked under `signal` (a turn's: it ended, so nobody answers them there).
   * Other callers' cards stay open: an MCP App's own call waits for its answer after the turn.
   */
  denyAskedUnder(signal: AbortSignal, reason: string): void {
    for (const pending of [...this._pending.values()]) if (pending.signal === signal) pending.done({ choice: 'deny', reason });
  }
}
