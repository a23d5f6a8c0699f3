import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChatAttachment, IChatServerItems } from '../../core/chat';
import { pickResource } from './pickResource';

type Choice = vscode.QuickPickItem & { take: () => Promise<ChatAttachment | undefined> };

/**
 * "Add Context...": the active file, its selection, a file picked from the workspace, the
 * problems of the active file, or a running server's resource (or resource template). Only what
 * the user picks is attached.
 */
export async function pickContext(servers?: IChatServerItems): Promise<ChatAttachment | undefined> {
  // From the chat's own editor tab there is no active text editor: the last visible one is meant.
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  const choices: Choice[] = [];
  if (editor) {
    const doc = editor.document;
    const rel = relative(doc.uri);
    choices.push({ label: '$(file) Active File', description: rel, take: async () => ({ kind: 'file', label: rel, path: rel, text: doc.getText() }) });
    const sel = editor.selection;
    if (!sel.isEmpty) {
      const where = `${rel}:${sel.start.line + 1}-${sel.end.line + 1}`;
      choices.push({ label: '$(selection) Selection', description: where, take: async () => ({ kind: 'selection', label: where, path: where, text: doc.getText(sel) }) });
    }
    const problems = vscode.languages.getDiagnostics(doc.uri);
    if (problems.length) {
      choices.push({
        label: '$(warning) Problems of the Active File',
        description: `${problems.length} in ${rel}`,
        take: async () => ({ kind: 'problems', label: `Problems in ${rel}`, path: rel, text: problems.map((d) => formatProblem(d)).join('\n') }),
      });
    }
  }
  choices.push({ label: '$(search) File...', description: 'pick a file of the workspace', take: pickFile });
  if (servers) choices.push({ label: '$(server) MCP Resource...', description: "a running server's resource or resource template", take: () => pickResource(servers) });
  const picked = await vscode.window.showQuickPick(choices, { title: 'Add context to the next message' });
  return picked?.take();
}

async function pickFile(): Promise<ChatAttachment | undefined> {
  const files = await vscode.workspace.findFiles('**/*', '**/{node_modules,.git,dist,out}/**', 5000);
  const picked = await vscode.window.showQuickPick(
    files.map((uri) => ({ label: relative(uri), uri })).sort((a, b) => a.label.localeCompare(b.label)),
    { title: 'Attach which file?', matchOnDescription: true },
  );
  if (!picked) return undefined;
  const bytes = await vscode.workspace.fs.readFile(picked.uri);
  if (bytes.subarray(0, 8000).includes(0)) {
    void vscode.window.showWarningMessage(`MCP: ${picked.label} is a binary file; not attached.`);
    return undefined;
  }
  return { kind: 'file', label: picked.label, path: picked.label, text: new TextDecoder().decode(bytes) };
}

function relative(uri: vscode.Uri): string {
  const rel = vscode.workspace.asRelativePath(uri, false);
  return uri.scheme === 'file' && path.isAbsolute(rel) ? rel : rel.split(path.sep).join('/');
}

function formatProblem(d: vscode.Diagnostic): string {
  const severity = ['error', 'warning', 'info', 'hint'][d.severity] ?? 'problem';
  return `${d.range.start.line + 1}:${d.range.start.character + 1} ${severity}: ${d.message}${d.source ? ` (${d.source})` : ''}`;
}
