import type { AgentEvent } from '../../src/core/agent/types';
import { ChatTranscript, type ChatChangeView, type IChangeDescriber, type ITranscriptApps } from '../../src/core/chat/ChatTranscript';
import type { PermissionRequest } from '../../src/core/permissions/types';
import type { HarnessTool } from '../../src/core/tools/types';
import type { ChatItem, HostMessage } from '../../src/shared/chatProtocol';

export type ToolCallAgentEvent = Extract<AgentEvent, { type: 'tool_call' }>;

/** A tool of server `s` as the registry exposes it (`mcp__s__<name>`), with whatever else a test gives it. */
export function serverTool(name: string, patch: Partial<HarnessTool> = {}): HarnessTool {
  return { name: `mcp__s__${name}`, description: '', inputSchema: { type: 'object' }, server: 's', originalName: name, pin: 'p', ...patch };
}

/** A tool call's event for `tool` (done, no arguments, call id `c-<tool's own name>`), patched. */
export function toolCall(tool: HarnessTool, patch: Partial<ToolCallAgentEvent> = {}): ToolCallAgentEvent {
  return { type: 'tool_call', modelCallId: 'm', callId: `c-${tool.originalName}`, toolName: tool.name, tool, arguments: {}, state: 'done', ...patch };
}

/** The question a waiting card of `tool` asks, patched. */
export function permissionAsk(tool: HarnessTool, patch: Partial<PermissionRequest> = {}): PermissionRequest {
  return { callId: `c-${tool.originalName}`, tool, arguments: {}, warnings: [], ...patch };
}

/** A transcript and every message it posted to the panel. */
export function transcriptRig(options: { items?: readonly ChatItem[]; changes?: IChangeDescriber; apps?: ITranscriptApps } = {}): { transcript: ChatTranscript; posted: HostMessage[] } {
  const posted: HostMessage[] = [];
  const transcript = new ChatTranscript('c', options.items ?? [], (m) => posted.push(m), options.changes, options.apps);
  return { transcript, posted };
}

/**
 * A change describer whose answers the test gives: each `describe` waits until the test settles it
 * (`resolve(i, change)` or `reject(i)` for the i-th question asked).
 */
export class ScriptedChanges implements IChangeDescriber {
  readonly asked: PermissionRequest[] = [];
  private readonly _settle: Array<{ resolve(change: ChatChangeView | undefined): void; reject(err: Error): void }> = [];

  constructor(private readonly _folders: readonly string[] = ['/w']) {}

  folders(): readonly string[] {
    return this._folders;
  }

  describe(request: PermissionRequest): Promise<ChatChangeView | undefined> {
    this.asked.push(request);
    return new Promise((resolve, reject) => this._settle.push({ resolve, reject }));
  }

  /** Answers the i-th question and lets the transcript's continuation run. */
  async resolve(i: number, change: ChatChangeView | undefined): Promise<void> {
    this._settle[i]!.resolve(change);
    await flush();
  }

  async reject(i: number): Promise<void> {
    this._settle[i]!.reject(new Error('unreadable'));
    await flush();
  }
}

/** Lets settled promises' continuations run. */
function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
