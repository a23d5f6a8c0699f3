import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** What {@link prepareEnvFolders} did for one variable. */
export interface EnvFolderNote {
  readonly variable: string;
  readonly folder: string;
  /** `created`: the folder was made; `missing`: it is outside the workspace, so only reported. */
  readonly action: 'created' | 'missing';
}

/**
 * A stdio server's configured environment often names a file the server will write
 * (`MEMORY_FILE_PATH=${workspaceFolder}/.harness/memory.jsonl`); a fresh clone lacks the folder of
 * gitignored paths, and the server then fails on its first write. For each configured value that
 * is an absolute path whose parent folder is missing: inside a workspace folder the parent is
 * created (that is the user's own tree), elsewhere it is only reported. Values that are not
 * absolute paths, or whose parent exists, are left alone. Never throws.
 */
export async function prepareEnvFolders(env: Readonly<Record<string, string>>, workspaceFolders: readonly string[]): Promise<EnvFolderNote[]> {
  const notes: EnvFolderNote[] = [];
  const roots = workspaceFolders.map((f) => path.resolve(f));
  for (const [variable, value] of Object.entries(env)) {
    if (!looksLikePath(value)) continue;
    const folder = path.dirname(path.resolve(value));
    if (await exists(folder)) continue;
    const inside = roots.some((root) => isInside(folder, root) && folder !== root);
    if (!inside) {
      notes.push({ variable, folder, action: 'missing' });
      continue;
    }
    try {
      await fs.mkdir(folder, { recursive: true });
      notes.push({ variable, folder, action: 'created' });
    } catch {
      notes.push({ variable, folder, action: 'missing' });
    }
  }
  return notes;
}

/** One absolute path, not a list (`a:b`), a URL or a flag. */
function looksLikePath(value: string): boolean {
  if (!path.isAbsolute(value) || value.includes('\n')) return false;
  if (process.platform !== 'win32' && value.includes(path.delimiter)) return false;
  return path.basename(value) !== '';
}

function isInside(child: string, root: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function exists(folder: string): Promise<boolean> {
  try {
    await fs.stat(folder);
    return true;
  } catch {
    return false;
  }
}
