import * as fs from 'node:fs';
import * as path from 'node:path';
import { countLines, isResultHandle, newResultHandle, type IToolResultStore, type StoredResultInfo } from './ToolResultStore';

/** Conversation ids become folder names: only these characters, so no id can leave the root. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Results kept as files, one folder per conversation under `root` (the extension's storage, or a
 * temporary folder): `<conversation>/<handle>.txt` holds the text, `<handle>.json` what the list
 * shows. A conversation's folder is removed with the conversation. Ids and handles are checked
 * before they become paths.
 */
export class DiskToolResultStore implements IToolResultStore {
  /** The last text read, so a model paging through one result reads its file once. */
  private _last: { file: string; text: string } | undefined;

  constructor(private readonly _root: string) {}

  async put(conversationId: string, toolName: string, text: string): Promise<StoredResultInfo> {
    const dir = this._dir(conversationId);
    await fs.promises.mkdir(dir, { recursive: true });
    const handle = newResultHandle((h) => fs.existsSync(path.join(dir, `${h}.txt`)));
    const info: StoredResultInfo = { handle, toolName, chars: text.length, lines: countLines(text) };
    await fs.promises.writeFile(path.join(dir, `${handle}.txt`), text, 'utf8');
    await fs.promises.writeFile(path.join(dir, `${handle}.json`), JSON.stringify({ ...info, createdAt: Date.now() }), 'utf8');
    return info;
  }

  async read(conversationId: string, handle: string): Promise<string | undefined> {
    const file = this.pathOf(conversationId, handle);
    if (!file) return undefined;
    if (this._last?.file === file) return this._last.text;
    try {
      const text = await fs.promises.readFile(file, 'utf8');
      this._last = { file, text };
      return text;
    } catch {
      return undefined;
    }
  }

  list(conversationId: string): readonly StoredResultInfo[] {
    if (!SAFE_ID.test(conversationId)) return [];
    const dir = this._dir(conversationId);
    let names: string[];
    try {
      names = fs.readdirSync(dir).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    const entries: (StoredResultInfo & { createdAt: number })[] = [];
    for (const name of names) {
      try {
        const value = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as StoredResultInfo & { createdAt: number };
        if (typeof value.handle === 'string' && isResultHandle(value.handle)) entries.push(value);
      } catch {
        // A half-written entry is skipped; its result can still be read by handle.
      }
    }
    return entries.sort((a, b) => a.createdAt - b.createdAt).map(({ handle, toolName, chars, lines }) => ({ handle, toolName, chars, lines }));
  }

  pathOf(conversationId: string, handle: string): string | undefined {
    if (!SAFE_ID.test(conversationId) || !isResultHandle(handle)) return undefined;
    const file = path.join(this._dir(conversationId), `${handle}.txt`);
    return fs.existsSync(file) ? file : undefined;
  }

  async deleteConversation(conversationId: string): Promise<void> {
    if (!SAFE_ID.test(conversationId)) return;
    const dir = this._dir(conversationId);
    if (this._last?.file.startsWith(dir + path.sep)) this._last = undefined;
    await fs.promises.rm(dir, { recursive: true, force: true });
  }

  /** Removes the folders of conversations not in `keep` (conversations forgotten while the store was not running). */
  async prune(keep: ReadonlySet<string>): Promise<void> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this._root);
    } catch {
      return;
    }
    await Promise.all(names.filter((n) => SAFE_ID.test(n) && !keep.has(n)).map((n) => this.deleteConversation(n)));
  }

  private _dir(conversationId: string): string {
    if (!SAFE_ID.test(conversationId)) throw new Error(`not a conversation id: ${JSON.stringify(conversationId)}`);
    return path.join(this._root, conversationId);
  }
}
