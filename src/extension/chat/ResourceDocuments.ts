import * as vscode from 'vscode';
import type { ChatOpenedResource } from '../../core/chat';
import { VirtualDocuments } from './VirtualDocuments';

// Not `mcp-resource`: VS Code's own MCP support reads its servers' resources under that scheme.
const SCHEME = 'mcp-harness-resource';

/** Languages VS Code knows a resource's type as; anything else opens as plain text. */
const LANGUAGE_OF: Readonly<Record<string, string>> = {
  'text/markdown': 'markdown',
  'application/json': 'json',
  'text/html': 'html',
  'text/css': 'css',
  'text/javascript': 'javascript',
  'application/javascript': 'javascript',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/x-yaml': 'yaml',
  'text/yaml': 'yaml',
  'text/x-python': 'python',
};

/**
 * A server's resource opened from the chat (a tool card's resource link): a read-only virtual
 * document named after the server and the resource, typed by its MIME type where VS Code knows
 * it. Nothing is written back to the server.
 */
export class ResourceDocuments implements vscode.Disposable {
  private readonly _documents = new VirtualDocuments(SCHEME);

  async show(resource: ChatOpenedResource): Promise<void> {
    const uri = this._documents.keep(`/${this._documents.next()}/${resource.server}/${resource.label.replace(/[\\/]/g, '_')}`, resource.text);
    const document = await vscode.workspace.openTextDocument(uri);
    const language = LANGUAGE_OF[resource.mimeType?.split(';')[0]?.trim().toLowerCase() ?? ''];
    await vscode.window.showTextDocument(language ? await vscode.languages.setTextDocumentLanguage(document, language) : document, { preview: true });
  }

  dispose(): void {
    this._documents.dispose();
  }
}
