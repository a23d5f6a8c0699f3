import * as vscode from 'vscode';
import {
  ModelProviderError,
  type ChatMessage,
  type IModelProvider,
  type ModelInfo,
  type ModelProviderErrorKind,
  type ModelRequest,
  type ModelStreamEvent,
} from '../../core/agent/types';
import { errorMessage } from '../../core/base/errors';

/** The part of `vscode.lm` this provider uses (injected so a host without models can be shown). */
export interface ILanguageModels {
  selectChatModels(selector?: vscode.LanguageModelChatSelector): Thenable<vscode.LanguageModelChat[]>;
}

/**
 * VS Code's Language Model API (Copilot and any extension that contributes models) behind the core's
 * provider interface: tools as `LanguageModelChatTool`, calls and results as tool-call and
 * tool-result parts. The API has no system role, so the system prompt leads the first user message.
 */
export class VscodeLmProvider implements IModelProvider {
  readonly id = 'vscode';
  readonly label = 'VS Code';

  constructor(private readonly _lm: ILanguageModels = vscode.lm) {}

  async models(): Promise<readonly ModelInfo[]> {
    const models = await this._lm.selectChatModels();
    return models.map((m) => ({ id: m.id, label: `${m.name} (${m.vendor})`, contextWindow: m.maxInputTokens }));
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    const model = await this._pick(request.model);
    const cancel = new vscode.CancellationTokenSource();
    const onAbort = () => cancel.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal.aborted) throw new ModelProviderError('stopped', 'aborted');
      const tools: vscode.LanguageModelChatTool[] = request.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
      let response: vscode.LanguageModelChatResponse;
      try {
        response = await model.sendRequest(toVscodeMessages(request.system, request.messages), { tools, toolMode: vscode.LanguageModelChatToolMode.Auto }, cancel.token);
      } catch (err) {
        throw classify(err, model, signal);
      }
      let calls = 0;
      try {
        for await (const part of response.stream) {
          if (part instanceof vscode.LanguageModelTextPart) yield { type: 'text', delta: part.value };
          else if (part instanceof vscode.LanguageModelToolCallPart) {
            calls++;
            yield { type: 'tool_call', call: { id: part.callId, name: part.name, arguments: JSON.stringify(part.input ?? {}) } };
          }
        }
      } catch (err) {
        throw classify(err, model, signal);
      }
      if (signal.aborted) throw new ModelProviderError('stopped', 'aborted');
      yield { type: 'end', reason: calls ? 'tool_calls' : 'stop' };
    } finally {
      signal.removeEventListener('abort', onAbort);
      cancel.dispose();
    }
  }

  private async _pick(id: string | undefined): Promise<vscode.LanguageModelChat> {
    const models = await this._lm.selectChatModels(id ? { id } : undefined);
    const model = models[0] ?? (id ? (await this._lm.selectChatModels())[0] : undefined);
    if (!model) throw new ModelProviderError('No VS Code language model is available.', 'other');
    return model;
  }
}

/** The conversation in the API's two roles; consecutive tool results travel in one user message. */
export function toVscodeMessages(system: string, messages: readonly ChatMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  let results: vscode.LanguageModelToolResultPart[] = [];
  const flush = () => {
    if (results.length) out.push(vscode.LanguageModelChatMessage.User(results));
    results = [];
  };
  for (const m of messages) {
    if (m.role === 'tool') {
      results.push(new vscode.LanguageModelToolResultPart(m.toolCallId, [new vscode.LanguageModelTextPart(m.content)]));
      continue;
    }
    flush();
    if (m.role === 'user') out.push(vscode.LanguageModelChatMessage.User(m.content));
    else {
      const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = m.content ? [new vscode.LanguageModelTextPart(m.content)] : [];
      for (const call of m.toolCalls ?? []) parts.push(new vscode.LanguageModelToolCallPart(call.id, call.name, parseInput(call.arguments)));
      out.push(vscode.LanguageModelChatMessage.Assistant(parts));
    }
  }
  flush();
  if (system) {
    const first = out[0];
    const lead = `Instructions for this conversation:\n${system}`;
    if (first && first.role === vscode.LanguageModelChatMessageRole.User && messages[0]?.role === 'user') {
      out[0] = vscode.LanguageModelChatMessage.User(`${lead}\n\n${messages[0].content}`);
    } else {
      out.unshift(vscode.LanguageModelChatMessage.User(lead));
    }
  }
  return out;
}

function parseInput(text: string): object {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}

/** `LanguageModelError` codes to the core's kinds; never by message text. */
function classify(err: unknown, model: vscode.LanguageModelChat, signal: AbortSignal): unknown {
  if (err instanceof ModelProviderError) return err;
  if (signal.aborted || err instanceof vscode.CancellationError) return new ModelProviderError('stopped', 'aborted');
  if (err instanceof vscode.LanguageModelError) {
    const kinds: Record<string, ModelProviderErrorKind> = {
      [vscode.LanguageModelError.NoPermissions.name]: 'auth',
      [vscode.LanguageModelError.Blocked.name]: 'rate_limit',
      [vscode.LanguageModelError.NotFound.name]: 'bad_request',
    };
    const kind = kinds[err.code] ?? 'other';
    const what = kind === 'auth' ? 'is not allowed to be used by this extension' : kind === 'rate_limit' ? 'refused the request (blocked or over quota)' : 'failed';
    return new ModelProviderError(`${model.name} ${what}: ${err.message}`, kind, { host: model.vendor });
  }
  return new ModelProviderError(`${model.name} failed: ${errorMessage(err)}`, 'other', { host: model.vendor });
}
