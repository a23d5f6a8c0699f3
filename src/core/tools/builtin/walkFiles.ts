import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { isWithin } from './WorkspaceRoots';

/** Folders no search descends into unless the search starts inside them. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules', '.hg', '.svn']);

/** A file found by {@link walkFiles}. */
export interface WalkedFile {
  readonly absolute: string;
  /** Relative to the search base, `/`-separated. */
  readonly relative: string;
}

/**
 * Yields the files under `base` in a stable (sorted, depth-first) order. Symlinked folders are
 * not followed; symlinked files only when they resolve inside `root`.
 */
export async function* walkFiles(base: string, root: string, signal?: AbortSignal): AsyncGenerator<WalkedFile> {
  const stack: string[] = [''];
  while (stack.length > 0) {
    if (signal?.aborted) return;
    const rel = stack.pop()!;
    const dir = path.join(base, rel);
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      continue; // Unreadable or vanished: searching goes on.
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const folders: string[] = [];
    for (const entry of entries) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      const absolute = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) folders.push(childRel);
      } else if (entry.isFile()) {
        yield { absolute, relative: childRel };
      } else if (entry.isSymbolicLink()) {
        const target = await fs.realpath(absolute).catch(() => undefined);
        if (target === undefined || !isWithin(root, target)) continue;
        const stat = await fs.stat(target).catch(() => undefined);
        if (stat?.isFile()) yield { absolute: target, relative: childRel };
      }
    }
    // Reversed so the stack pops them in sorted order.
    for (let i = folders.length - 1; i >= 0; i--) stack.push(folders[i]);
  }
}
