import { createHash } from 'node:crypto';
import { Emitter, type Event } from '../base/event';
import { Disposable } from '../base/lifecycle';
import type { HookDefinition } from '../config/hookTypes';

/** Where approvals are kept (VS Code's workspace state, memory for tests). */
export interface IHookApprovalStore {
  get(): readonly string[];
  set(keys: readonly string[]): Promise<void>;
}

export const HOOK_NOT_TRUSTED = 'the workspace is not trusted';
export const HOOK_AWAITING_APPROVAL = 'needs your approval to run';

/**
 * Which hooks may run. A user's own hooks always may; a workspace's (`.harness/hooks.json`, a
 * `.claude/settings.json` read by opt-in) are commands a repository chose, so they run only in a
 * trusted workspace and once the user approved them. An approval is bound to what runs (event,
 * matcher, command, timeout, onError, file): an edit asks again. Hooks waiting for approval are
 * announced on {@link onDidRequest}, once each.
 */
export class HookApprovals extends Disposable {
  private readonly _pending = new Map<string, HookDefinition>();
  private readonly _onDidRequest = this._register(new Emitter<readonly HookDefinition[]>());
  /** Hooks that wait for approval (new ones since the last time this fired). */
  readonly onDidRequest: Event<readonly HookDefinition[]> = this._onDidRequest.event;
  private _queued = false;

  constructor(
    private readonly _approved: IHookApprovalStore,
    private readonly _trusted: () => boolean,
  ) {
    super();
  }

  /** The harness's `permit`: undefined when `hook` may run, else why not. */
  permit(hook: HookDefinition): string | undefined {
    if (hook.origin.source === 'user' || hook.origin.source === 'explicit') return undefined;
    if (!this._trusted()) return HOOK_NOT_TRUSTED;
    const key = hookApprovalKey(hook);
    if (this._approved.get().includes(key)) return undefined;
    if (!this._pending.has(key)) {
      this._pending.set(key, hook);
      this._announce();
    }
    return HOOK_AWAITING_APPROVAL;
  }

  /** Hooks waiting for approval. */
  pending(): HookDefinition[] {
    return [...this._pending.values()];
  }

  async approve(hooks: readonly HookDefinition[]): Promise<void> {
    const keys = new Set(this._approved.get());
    for (const hook of hooks) {
      const key = hookApprovalKey(hook);
      keys.add(key);
      this._pending.delete(key);
    }
    await this._approved.set([...keys]);
  }

  /** Forgets pending hooks that are no longer configured (a file was edited or removed). */
  retain(hooks: readonly HookDefinition[]): void {
    const live = new Set(hooks.map(hookApprovalKey));
    for (const key of [...this._pending.keys()]) if (!live.has(key)) this._pending.delete(key);
  }

  /** Several hooks of one load ask once, together. */
  private _announce(): void {
    if (this._queued) return;
    this._queued = true;
    queueMicrotask(() => {
      this._queued = false;
      if (this._pending.size > 0) this._onDidRequest.fire(this.pending());
    });
  }
}

/** What an approval is bound to: everything that decides what runs and when. */
export function hookApprovalKey(hook: HookDefinition): string {
  const what = JSON.stringify([hook.origin.file, hook.event, hook.matcher, hook.command, hook.timeoutSec, hook.onError]);
  return createHash('sha256').update(what).digest('hex');
}
