import { McpSecretMask } from './config/McpSecretMask';
import type { McpConnectionState, McpLogEntry, McpServerSnapshot } from './mcp/McpServerSnapshot';
import type { HarnessCallResult } from './HarnessTypes';

/**
 * The secrets of every server a harness resolved (see {@link McpSecretMask}), and the masking of
 * everything the harness hands out that can quote them: states and errors, stderr lines, log
 * entries, failed calls. Hosts (CLI, doctor, serve, VS Code) print only what passed through here.
 */
export class HarnessSecrets {
  private readonly _byServer = new Map<string, McpSecretMask>();
  private _all: McpSecretMask = new McpSecretMask([]);

  /** Records the secrets a server's launch resolved to (each start replaces the last). */
  set(server: string, values: readonly string[] | undefined): void {
    this._byServer.set(server, new McpSecretMask(values ?? []));
    this._all = McpSecretMask.union(this._byServer.values());
  }

  /** Masks the secrets of every server (a message may quote any of them), and URL passwords. */
  mask(text: string): string {
    return this._all.mask(text);
  }

  snapshot(s: McpServerSnapshot): McpServerSnapshot {
    const state = this.state(s.state);
    const lastError = s.lastError === undefined ? undefined : this.mask(s.lastError);
    const stderrTail = s.stderrTail.map((l) => this.mask(l));
    return { ...s, state, stderrTail, ...(lastError !== undefined ? { lastError } : {}) };
  }

  state(state: McpConnectionState): McpConnectionState {
    if (state.kind === 'error') return { ...state, message: this.mask(state.message) };
    if (state.kind === 'blocked' || state.kind === 'reconnecting' || state.kind === 'auth_required') return { ...state, reason: this.mask(state.reason) };
    return state;
  }

  logEntry(entry: McpLogEntry): McpLogEntry {
    const message = this.mask(entry.message);
    return message === entry.message ? entry : { ...entry, message };
  }

  /**
   * A failed call's text and text content masked (the error may quote a definition: a URL, a
   * command). A tool's own answer is its data and passes as it is.
   */
  callResult(result: HarnessCallResult): HarnessCallResult {
    if (!result.isError) return result;
    const text = this.mask(result.text);
    if (text === result.text) return result;
    const content = result.content.map((c) => (c.type === 'text' && typeof c.text === 'string' ? { ...c, text: this.mask(c.text) } : c));
    return { ...result, text, content } as HarnessCallResult;
  }
}
