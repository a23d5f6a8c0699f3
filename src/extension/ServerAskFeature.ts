import * as vscode from 'vscode';
import { parseFieldInput, validateElicitationValues, DEFAULT_SAMPLING_MAX_TOKENS, type ElicitField, type ServerAsksOptions, type SamplingPolicy, type SamplingRule } from '../core';
import type { ElicitFormAnswer, ElicitFormAsk, ElicitUrlAsk, IServerAskPrompter, SamplingAsk, SamplingChoice, SamplingOutcome } from '../core/requests/types';
import type { ChatFeature } from './chat/ChatFeature';

const RULES: readonly SamplingRule[] = ['ask', 'allow', 'deny'];

/**
 * Where the window puts servers' questions: cards in the chat while it is open, else VS Code's
 * own input flow (a modal, then one input per field). Sampling runs on the chat's current model
 * under the `mcpHarness.sampling.*` settings; a page opens only after the user accepts.
 */
export function serverAskOptions(chat: () => ChatFeature | undefined, log: vscode.LogOutputChannel): ServerAsksOptions {
  const flow = new VscodeInputFlowAsks();
  return {
    prompter: () => {
      const feature = chat();
      return feature?.viewVisible ? feature.session.asks : flow;
    },
    // False when the person says no to VS Code's own "open this website?" question.
    openUrl: (url) => Promise.resolve(vscode.env.openExternal(vscode.Uri.parse(url, true))),
    samplingPolicy: (server) => samplingPolicy(server),
    samplingModel: () => {
      const entry = chat()?.session.currentModel;
      return entry && { provider: entry.provider, model: entry.model };
    },
    log: (server, message) => log.info(`${server}: ${message}`),
  };
}

/** `mcpHarness.sampling.rules` and `mcpHarness.sampling.maxTokens` for one server ("*" for any other). */
export function samplingPolicy(server: string): SamplingPolicy {
  const s = vscode.workspace.getConfiguration('mcpHarness.sampling');
  const rules = s.get<Record<string, unknown>>('rules', {});
  const limits = s.get<Record<string, unknown>>('maxTokens', {});
  const rule = [rules[server], rules['*']].find((r): r is SamplingRule => RULES.includes(r as SamplingRule)) ?? 'ask';
  const maxTokens = [limits[server], limits['*']].find((n): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0) ?? DEFAULT_SAMPLING_MAX_TOKENS;
  return { rule, maxTokens };
}

/** The questions as VS Code's modals, input boxes and quick picks, for when no chat is open. */
class VscodeInputFlowAsks implements IServerAskPrompter {
  async askForm(ask: ElicitFormAsk, signal: AbortSignal): Promise<ElicitFormAnswer> {
    const start = await vscode.window.showInformationMessage(`${ask.server} asks for information`, { modal: true, detail: ask.form.message }, 'Fill In', 'Decline');
    if (start === undefined || signal.aborted) return { action: 'cancel' };
    if (start === 'Decline') return { action: 'decline' };
    const values: Record<string, unknown> = {};
    const fields = ask.form.fields;
    for (const [i, field] of fields.entries()) {
      const value = await askField(ask, field, `${ask.server}: ${field.label} (${i + 1}/${fields.length})`, signal);
      if (value === CANCELLED || signal.aborted) return { action: 'cancel' };
      if (value !== undefined) values[field.name] = value;
    }
    return { action: 'accept', values };
  }

  async askUrl(ask: ElicitUrlAsk): Promise<'accept' | 'decline' | 'cancel'> {
    const choice = await vscode.window.showWarningMessage(
      ask.required ? `${ask.server} needs you to open a page on ${ask.host} before the tool can run` : `${ask.server} asks you to open a page on ${ask.host}`,
      { modal: true, detail: `${ask.message}\n\n${ask.url}` },
      `Open ${ask.host}`,
      'Decline',
    );
    return choice === undefined ? 'cancel' : choice === 'Decline' ? 'decline' : 'accept';
  }

  async askUrlFinished(ask: ElicitUrlAsk, signal: AbortSignal): Promise<'done' | 'cancel'> {
    // Not modal: the person is in the browser meanwhile, and may want the editor.
    const finished = vscode.window.showInformationMessage(`${ask.server}: the page on ${ask.host} is open. Finish there, then retry the call.`, "I've Finished", 'Cancel');
    const aborted = new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
    const choice = await Promise.race([finished, aborted]);
    return choice === "I've Finished" ? 'done' : 'cancel';
  }

  async askSampling(ask: SamplingAsk): Promise<SamplingChoice> {
    const detail = [
      ...(ask.systemPrompt ? [`System prompt: ${ask.systemPrompt}`] : []),
      ...ask.messages.map((m) => `${m.role}: ${m.text.length > 500 ? `${m.text.slice(0, 500)}…` : m.text}`),
      `Max tokens: ${ask.maxTokens.allowed}${ask.maxTokens.allowed < ask.maxTokens.requested ? ` (asked for ${ask.maxTokens.requested})` : ''}`,
      ...(ask.modelPreferences ? [`Model preferences: ${ask.modelPreferences}`] : []),
      ...(ask.tools.length ? [`Tools offered: ${ask.tools.join(', ')}`] : []),
    ].join('\n');
    const choice = await vscode.window.showWarningMessage(`${ask.server} wants to use the model`, { modal: true, detail }, 'Allow once', 'Allow for this session', 'Deny');
    return choice === 'Allow once' ? 'once' : choice === 'Allow for this session' ? 'session' : 'deny';
  }

  showSamplingOutcome(ask: SamplingAsk, outcome: SamplingOutcome): void {
    const text = outcome.ok ? `${ask.server} used the model (${outcome.model}): ${outcome.text.length > 300 ? `${outcome.text.slice(0, 300)}…` : outcome.text}` : `${ask.server} could not use the model: ${outcome.error}`;
    void (outcome.ok ? vscode.window.showInformationMessage(text) : vscode.window.showWarningMessage(text));
  }
}

const CANCELLED = Symbol('cancelled');

/** One field: a pick for choices and yes/no, an input box (checked as typed) for the rest. */
async function askField(ask: ElicitFormAsk, field: ElicitField, title: string, signal: AbortSignal): Promise<unknown> {
  const cancel = new vscode.CancellationTokenSource();
  const onAbort = () => cancel.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    if (field.kind === 'enum' || field.kind === 'boolean' || field.kind === 'multi') {
      const options = field.kind === 'boolean' ? [{ value: 'true', title: 'Yes' }, { value: 'false', title: 'No' }] : field.options;
      const skip = field.required ? [] : [{ label: '(leave empty)', value: undefined as string | undefined }];
      const items = [...options.map((o) => ({ label: o.title, description: o.title === o.value ? undefined : o.value, value: o.value as string | undefined })), ...(field.kind === 'multi' ? [] : skip)];
      const defaults = new Set((Array.isArray(field.default) ? field.default : field.default === undefined ? [] : [String(field.default)]).map(String));
      if (field.kind === 'multi') {
        const picked = await vscode.window.showQuickPick(
          items.map((i) => ({ ...i, picked: defaults.has(i.value ?? '') })),
          { title, placeHolder: field.description, canPickMany: true, ignoreFocusOut: true },
          cancel.token,
        );
        return picked === undefined ? CANCELLED : picked.length ? picked.map((p) => p.value!) : undefined;
      }
      const sorted = [...items].sort((a, b) => Number(defaults.has(b.value ?? '')) - Number(defaults.has(a.value ?? '')));
      const picked = await vscode.window.showQuickPick(sorted, { title, placeHolder: field.description, ignoreFocusOut: true }, cancel.token);
      if (picked === undefined) return CANCELLED;
      return picked.value === undefined ? undefined : field.kind === 'boolean' ? picked.value === 'true' : picked.value;
    }
    const check = (text: string) => {
      const value = parseFieldInput(field, text);
      const result = validateElicitationValues({ message: ask.form.message, fields: [field] }, { [field.name]: value });
      return result.ok ? undefined : result.error[field.name];
    };
    const text = await vscode.window.showInputBox(
      {
        title,
        prompt: field.description ?? (field.required ? 'Required' : 'Optional: leave empty to skip'),
        value: field.default === undefined ? '' : String(field.default),
        ignoreFocusOut: true,
        validateInput: check,
      },
      cancel.token,
    );
    return text === undefined ? CANCELLED : parseFieldInput(field, text);
  } finally {
    signal.removeEventListener('abort', onAbort);
    cancel.dispose();
  }
}
