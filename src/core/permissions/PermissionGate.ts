import { pinTool } from '../tools/toolPin';
import type { HarnessTool } from '../tools/types';
import { alwaysAsks, approvalKey, evaluatePermission, type PermissionRules, type RememberedApproval } from './evaluatePermission';
import { scanTool } from './scanPoisoning';
import type { DecisionOptions, DecisionRequest, ICallDecider, IApprovalStore, IPermissionPrompter, PermissionAnswer, PermissionDecision } from './types';

/** One remembered approval, as "Manage Tool Approvals" lists it. `tool` is absent for a whole server. */
export interface RememberedApprovalEntry {
  readonly scope: 'session' | 'workspace' | 'server_session';
  readonly server?: string;
  readonly tool?: string;
}

export interface PermissionGateOptions {
  readonly prompter: IPermissionPrompter;
  /** Where "Always allow in this workspace" is kept; in memory when absent. */
  readonly store?: IApprovalStore;
  /** Current rules, read at every check (settings can change between calls). */
  rules?(): PermissionRules;
}

/**
 * Applies `evaluatePermission` to each call and asks the injected prompter when it says `ask`.
 * Remembers session, server-session and workspace choices, each bound to the tool's pin.
 * Fails closed: a prompter that throws, or a stop while the card is open, denies the call.
 */
export class PermissionGate implements ICallDecider {
  private readonly _session = new Map<string, RememberedApproval>();
  /** What each tool looked like when a person last allowed it (also once): a later card shows what changed. */
  private readonly _lastAllowed = new Map<string, RememberedApproval>();
  private readonly _serverSession = new Map<string, Map<string, RememberedApproval>>();
  private _workspace: Promise<Map<string, RememberedApproval>> | undefined;
  private _memoryStore: Record<string, string> = {};

  constructor(private readonly _options: PermissionGateOptions) {}

  /** Decides one call: allow or deny, with who decided. */
  async decide(call: DecisionRequest, options: DecisionOptions): Promise<PermissionDecision> {
    const pin = pinTool(call.tool);
    const workspace = await this._loadWorkspace();
    const rules = this._options.rules?.() ?? {};
    const result = evaluatePermission({
      tool: call.tool,
      pin,
      arguments: call.arguments,
      rules,
      ...(call.hook ? { hook: call.hook } : {}),
      remembered: { session: this._session, workspace, serverSession: this._serverSession, lastAllowed: this._lastAllowed },
    });
    if (result.outcome === 'deny') return result;
    if (result.outcome === 'allow') {
      if (result.decider.by === 'remembered' && result.decider.scope === 'server_session') {
        this._serverSession.get(call.tool.server!)!.set(approvalKey(call.tool), pin);
      }
      return result;
    }
    const warnings = scanTool(call.tool);
    const request = {
      callId: call.callId,
      tool: call.tool,
      arguments: call.arguments,
      warnings,
      ...(result.changedSinceApproval !== undefined ? { changedSinceApproval: result.changedSinceApproval } : {}),
      ...(call.hook?.decision === 'ask' ? { askedBy: { hook: call.hook.hook, ...(call.hook.reason !== undefined ? { reason: call.hook.reason } : {}) } } : {}),
    };
    options.onAsk?.(request);
    let answer: PermissionAnswer;
    try {
      answer = await untilAborted(this._options.prompter.ask(request, options.signal), options.signal);
    } catch {
      return { outcome: 'deny', decider: { by: 'user', choice: 'deny' }, reason: options.signal.aborted ? 'stopped before it was approved' : 'the permission prompt failed' };
    }
    if (options.signal.aborted) return { outcome: 'deny', decider: { by: 'user', choice: 'deny' }, reason: 'stopped before it was approved' };
    if (answer.choice === 'deny') {
      return { outcome: 'deny', decider: { by: 'user', choice: 'deny' }, ...(answer.reason ? { reason: answer.reason } : {}) };
    }
    this._lastAllowed.set(approvalKey(call.tool), { hash: pin.hash, definition: pin.definition });
    try {
      await this._remember(call.tool, answer.choice, pin);
    } catch {
      // The user allowed this call; failing to remember it only means asking again next time.
    }
    return { outcome: 'allow', decider: { by: 'user', choice: answer.choice } };
  }

  /** Every remembered approval: this session's, the workspace's, and servers allowed for the session. */
  async remembered(): Promise<RememberedApprovalEntry[]> {
    const entry = (scope: 'session' | 'workspace', key: string): RememberedApprovalEntry => {
      const [server, tool] = JSON.parse(key) as [string | null, string];
      return { scope, ...(server !== null ? { server } : {}), tool };
    };
    return [
      ...[...this._session.keys()].map((k) => entry('session', k)),
      ...[...(await this._loadWorkspace()).keys()].map((k) => entry('workspace', k)),
      ...[...this._serverSession.keys()].map((server) => ({ scope: 'server_session' as const, server })),
    ];
  }

  /** Forgets one remembered approval: the next call it covered asks again. False when it was not remembered. */
  async revoke(entry: RememberedApprovalEntry): Promise<boolean> {
    if (entry.scope === 'server_session') return entry.server !== undefined && this._serverSession.delete(entry.server);
    if (entry.tool === undefined) return false;
    const key = approvalKey({ server: entry.server, originalName: entry.tool });
    if (entry.scope === 'session') return this._session.delete(key);
    const workspace = await this._loadWorkspace();
    if (!workspace.delete(key)) return false;
    await this._writeStore(Object.fromEntries([...workspace].map(([k, v]) => [k, JSON.stringify(v)])));
    return true;
  }

  /** Forgets every remembered choice: session, server-session and workspace. */
  async reset(): Promise<void> {
    this._session.clear();
    this._serverSession.clear();
    this._lastAllowed.clear();
    this._workspace = Promise.resolve(new Map());
    await this._writeStore({});
  }

  private async _remember(tool: HarnessTool, choice: Exclude<PermissionAnswer['choice'], 'deny'>, pin: RememberedApproval): Promise<void> {
    if (choice === 'once' || alwaysAsks(tool)) return;
    const key = approvalKey(tool);
    const approval: RememberedApproval = { hash: pin.hash, definition: pin.definition };
    if (choice === 'session' || (choice === 'server_session' && tool.server === undefined)) {
      this._session.set(key, approval);
    } else if (choice === 'server_session') {
      const pins = this._serverSession.get(tool.server!) ?? new Map<string, RememberedApproval>();
      pins.set(key, approval);
      this._serverSession.set(tool.server!, pins);
    } else {
      const workspace = await this._loadWorkspace();
      workspace.set(key, approval);
      await this._writeStore(Object.fromEntries([...workspace].map(([k, v]) => [k, JSON.stringify(v)])));
    }
  }

  private _loadWorkspace(): Promise<Map<string, RememberedApproval>> {
    this._workspace ??= this._readStore().then(parseStore, () => new Map());
    return this._workspace;
  }

  private _readStore(): Promise<Readonly<Record<string, string>>> {
    return this._options.store ? this._options.store.get() : Promise.resolve(this._memoryStore);
  }

  private async _writeStore(entries: Record<string, string>): Promise<void> {
    if (this._options.store) await this._options.store.set(entries);
    else this._memoryStore = entries;
  }
}

/** `promise`, or a rejection as soon as `signal` aborts: a prompter that ignores Stop cannot hold the turn. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Entries that do not parse are dropped (asked again), never trusted. */
function parseStore(entries: Readonly<Record<string, string>>): Map<string, RememberedApproval> {
  const out = new Map<string, RememberedApproval>();
  for (const [key, raw] of Object.entries(entries)) {
    try {
      const { hash, definition } = JSON.parse(raw) as Partial<RememberedApproval>;
      if (typeof hash === 'string' && typeof definition === 'string') out.set(key, { hash, definition });
    } catch {
      // Not ours or corrupted (`null` lands here too).
    }
  }
  return out;
}
