import * as vscode from 'vscode';
import type { IMcpInputResolver, McpInputDefinition } from '../core';

const INDEX_KEY = 'mcpHarness.savedInputs';

/**
 * Answers `${input:id}`: from SecretStorage when the user gave it before, else by asking once
 * (a password box where the input says so) and keeping the answer in SecretStorage.
 * Concurrent starts that need the same input share one prompt.
 */
export class VscodeInputResolver implements IMcpInputResolver {
  private readonly _asking = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly _secrets: vscode.SecretStorage,
    private readonly _index: vscode.Memento,
  ) {}

  resolveInput(input: McpInputDefinition, server: string): Promise<string | undefined> {
    const key = `mcpHarness.input.${input.id}`;
    let pending = this._asking.get(key);
    if (!pending) {
      pending = this._resolve(key, input, server).finally(() => this._asking.delete(key));
      this._asking.set(key, pending);
    }
    return pending;
  }

  /** Forgets every saved input; servers ask again at their next start. Resolves how many were cleared. */
  async clear(): Promise<number> {
    const keys = this._index.get<string[]>(INDEX_KEY, []);
    await Promise.all(keys.map((k) => this._secrets.delete(k)));
    await this._index.update(INDEX_KEY, []);
    return keys.length;
  }

  private async _resolve(key: string, input: McpInputDefinition, server: string): Promise<string | undefined> {
    const saved = await this._secrets.get(key);
    if (saved !== undefined) return saved;
    const value = await this._ask(input, server);
    if (value === undefined) return undefined;
    await this._secrets.store(key, value);
    const keys = new Set(this._index.get<string[]>(INDEX_KEY, []));
    keys.add(key);
    await this._index.update(INDEX_KEY, [...keys]);
    return value;
  }

  private async _ask(input: McpInputDefinition, server: string): Promise<string | undefined> {
    const title = `MCP server "${server}" needs ${input.description ?? input.id}`;
    if (input.type === 'pickString' && input.options?.length) {
      return vscode.window.showQuickPick([...input.options], { title, ignoreFocusOut: true, placeHolder: input.default });
    }
    return vscode.window.showInputBox({
      title,
      prompt: input.description,
      password: input.password === true,
      value: input.password ? undefined : input.default,
      ignoreFocusOut: true,
    });
  }
}
