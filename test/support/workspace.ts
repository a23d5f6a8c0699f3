import * as fs from 'node:fs';
import * as path from 'node:path';
import { onTestFinished } from 'vitest';
import { WorkspaceRoots } from '../../src/core/tools/builtin/WorkspaceRoots';
import { tempDir } from './servers';

/** A temp workspace folder for the built-in tools, removed when the current test finishes. */
export interface TempWorkspace {
  /** The folder (real path). */
  readonly dir: string;
  /** Roots holding only `dir`. */
  readonly roots: WorkspaceRoots;
  /** `dir` joined with a `/`-separated relative path. */
  at(rel: string): string;
  /** Writes `content` to `rel`, creating folders. Returns the absolute path. */
  write(rel: string, content: string | Buffer): string;
}

/** Makes a temp workspace holding `files` (relative path -> content); call it inside a test. */
export function tempWorkspace(files: Record<string, string | Buffer> = {}, prefix = 'tool-ws-'): TempWorkspace {
  const { dir, cleanup } = tempDir(prefix);
  onTestFinished(cleanup);
  const at = (rel: string) => path.join(dir, ...rel.split('/'));
  const write = (rel: string, content: string | Buffer) => {
    const file = at(rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    return file;
  };
  for (const [rel, content] of Object.entries(files)) write(rel, content);
  return { dir, roots: new WorkspaceRoots([dir]), at, write };
}
