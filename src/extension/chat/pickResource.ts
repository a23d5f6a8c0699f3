import * as vscode from 'vscode';
import { ChatServerItems, type ChatAttachment, type IChatServerItems } from '../../core/chat';
import { errorMessage } from '../../core/base/errors';

/** How long typing pauses before a variable's suggestions are asked of the server. */
const COMPLETE_DEBOUNCE_MS = 150;

type Entry = vscode.QuickPickItem & { readonly server: string; readonly uri?: string; readonly template?: { readonly uriTemplate: string; readonly name: string; readonly variables: readonly string[] } };

/**
 * "Add Context..." → "MCP Resource...": every resource and resource template of the running
 * servers; a template's variables are asked one by one, with the server's suggestions
 * (`completion/complete`, the variables already given as context). The pick is read and attached.
 */
export async function pickResource(items: IChatServerItems): Promise<ChatAttachment | undefined> {
  const server = new ChatServerItems(items);
  const entries: Entry[] = server.suggest('@', '').flatMap((s): Entry[] => {
    if (s.kind === 'resource') return [{ label: `$(file) ${s.title ?? s.name}`, description: s.server, detail: [s.uri, s.mimeType, s.description].filter(Boolean).join(' · '), server: s.server, uri: s.uri }];
    if (s.kind === 'template') {
      return [{ label: `$(symbol-variable) ${s.title ?? s.name}`, description: s.server, detail: [s.uriTemplate, s.description].filter(Boolean).join(' · '), server: s.server, template: { uriTemplate: s.uriTemplate, name: s.title ?? s.name, variables: s.variables } }];
    }
    return [];
  });
  if (entries.length === 0) {
    void vscode.window.showInformationMessage('MCP: no running server offers resources.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(entries, { title: 'Attach which resource?', matchOnDescription: true, matchOnDetail: true });
  if (!picked) return undefined;
  let variables: Record<string, string> | undefined;
  if (picked.template) {
    variables = await askVariables(items, picked.server, picked.template);
    if (!variables) return undefined;
  }
  try {
    return await server.resource(picked.server, picked.uri !== undefined ? { uri: picked.uri } : { template: { uriTemplate: picked.template!.uriTemplate, variables: variables! } });
  } catch (err) {
    void vscode.window.showWarningMessage(`MCP: could not read the resource from ${picked.server}: ${errorMessage(err)}`);
    return undefined;
  }
}

/** Each variable in turn: what is typed, with the server's suggestions below it. */
async function askVariables(items: IChatServerItems, server: string, template: NonNullable<Entry['template']>): Promise<Record<string, string> | undefined> {
  const values: Record<string, string> = {};
  const names = template.variables;
  for (const [i, name] of names.entries()) {
    // Titled by the template's name (its URI template is on the entry just picked).
    const value = await askOne(items, server, template.uriTemplate, name, values, `${template.name}: ${name} (${i + 1}/${names.length})`);
    if (value === undefined) return undefined;
    values[name] = value;
  }
  return values;
}

function askOne(items: IChatServerItems, server: string, uriTemplate: string, name: string, context: Readonly<Record<string, string>>, title: string): Promise<string | undefined> {
  const completions = new ChatServerItems(items);
  const pick = vscode.window.createQuickPick();
  pick.title = title;
  pick.placeholder = `Type ${name}; the server's suggestions show below`;
  pick.ignoreFocusOut = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asked = 0;
  const show = (value: string, suggestions: readonly string[]) => {
    const typed = value ? [{ label: value, description: '(as typed)' }] : [];
    pick.items = [...typed, ...suggestions.filter((s) => s !== value).map((s) => ({ label: s }))];
  };
  const refresh = (value: string) => {
    clearTimeout(timer);
    show(value, []);
    timer = setTimeout(() => {
      const mine = ++asked;
      pick.busy = true;
      completions.complete(server, { type: 'ref/resource', uri: uriTemplate }, { name, value }, context).then(
        (r) => mine === asked && show(pick.value, r.values),
        () => undefined,
      ).finally(() => mine === asked && (pick.busy = false));
    }, COMPLETE_DEBOUNCE_MS);
  };
  return new Promise((resolve) => {
    pick.onDidChangeValue(refresh);
    pick.onDidAccept(() => {
      const value = pick.selectedItems[0]?.label ?? pick.value;
      if (!value) return;
      resolve(value);
      pick.hide();
    });
    pick.onDidHide(() => {
      clearTimeout(timer);
      resolve(undefined);
      pick.dispose();
    });
    refresh('');
    pick.show();
  });
}
