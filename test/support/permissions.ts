import type { IApprovalStore, IPermissionPrompter, PermissionAnswer, PermissionRequest } from '../../src/core/permissions/types';

/** A prompter that answers from a script (or a function) and records every card it was shown. */
export class ScriptedPrompter implements IPermissionPrompter {
  readonly requests: PermissionRequest[] = [];
  constructor(private readonly _answer: (request: PermissionRequest, signal: AbortSignal) => PermissionAnswer | Promise<PermissionAnswer>) {}

  async ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    this.requests.push(request);
    return this._answer(request, signal);
  }
}

/** A prompter that keeps every card open until the test answers it, or the signal aborts. */
export class PendingPrompter implements IPermissionPrompter {
  readonly pending: Array<{ request: PermissionRequest; answer(a: PermissionAnswer): void }> = [];
  private _waiters: Array<() => void> = [];

  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    return new Promise((resolve, reject) => {
      signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
      this.pending.push({ request, answer: resolve });
      for (const w of this._waiters.splice(0)) w();
    });
  }

  /** Resolves once `count` cards are open. */
  async waitFor(count: number): Promise<void> {
    while (this.pending.length < count) await new Promise<void>((r) => this._waiters.push(r));
  }
}

/** The workspace store as plain memory. */
export class MemoryApprovalStore implements IApprovalStore {
  entries: Record<string, string> = {};
  writes = 0;
  async get() {
    return { ...this.entries };
  }
  async set(entries: Readonly<Record<string, string>>) {
    this.writes++;
    this.entries = { ...entries };
  }
}
