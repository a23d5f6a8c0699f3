import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** A path a built-in tool may not touch, or cannot find. The message names the path as given. */
export class WorkspacePathError extends Error {
  constructor(
    message: string,
    readonly code: 'outside_workspace' | 'not_found' | 'no_roots',
  ) {
    super(message);
    this.name = 'WorkspacePathError';
  }
}

/** A path inside the workspace, resolved. */
export interface WorkspacePath {
  /** Absolute path with symlinks resolved (as far as it exists). */
  readonly absolute: string;
  /** Relative to the root that holds it, `/`-separated; `.` for the root itself. */
  readonly relative: string;
  /** The root that holds it (real path). */
  readonly root: string;
}

/**
 * The folders built-in tools may read and write. Every path is checked three ways: `..` segments
 * that climb out, absolute paths elsewhere, and symlinks (of the path or any parent) that resolve
 * elsewhere. Relative paths are relative to the first root.
 */
export class WorkspaceRoots {
  private _real: Promise<{ given: string; real: string }[]> | undefined;

  constructor(private readonly _roots: readonly string[]) {}

  /** The roots as given, absolute. */
  get roots(): readonly string[] {
    return this._roots.map((r) => path.resolve(r));
  }

  /**
   * Resolves a path that must exist (reading, listing, searching).
   * @throws WorkspacePathError when it lies outside every root or does not exist.
   */
  async resolveExisting(given: string): Promise<WorkspacePath> {
    const { lexical, roots } = await this._lexical(given);
    let real: string;
    try {
      real = await fs.realpath(lexical);
    } catch (err) {
      if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) throw new WorkspacePathError(`"${given}" does not exist`, 'not_found');
      throw err;
    }
    return this._inside(given, real, roots, 'resolves through a symlink to');
  }

  /**
   * Resolves a path that may not exist yet (writing): its nearest existing ancestor must resolve
   * inside a root, and so must the path itself when it exists (a symlink to elsewhere is refused).
   */
  async resolveForWrite(given: string): Promise<WorkspacePath> {
    const { lexical, roots } = await this._lexical(given);
    let existing = lexical;
    const missing: string[] = [];
    for (;;) {
      try {
        const real = await fs.realpath(existing);
        return this._inside(given, path.join(real, ...missing.reverse()), roots, 'resolves through a symlink to');
      } catch (err) {
        if (!isErrno(err, 'ENOENT') && !isErrno(err, 'ENOTDIR')) throw err;
        // A dangling symlink: realpath fails, but writing would follow it. Refuse it outright.
        const link = await fs.readlink(existing).catch(() => undefined);
        if (link !== undefined) {
          const target = path.resolve(path.dirname(existing), link);
          return this._inside(given, path.join(target, ...missing.reverse()), roots, 'is a symlink to');
        }
        const parent = path.dirname(existing);
        if (parent === existing) throw new WorkspacePathError(`"${given}" is outside the workspace`, 'outside_workspace');
        missing.push(path.basename(existing));
        existing = parent;
      }
    }
  }

  /** Absolute form of `given` without touching the disk, refused when it climbs out of every root. */
  private async _lexical(given: string): Promise<{ lexical: string; roots: { given: string; real: string }[] }> {
    const roots = await this._realRoots();
    if (roots.length === 0) throw new WorkspacePathError('no workspace folder is open', 'no_roots');
    if (typeof given !== 'string' || given.includes('\0')) throw new WorkspacePathError(`"${String(given)}" is not a valid path`, 'outside_workspace');
    const base = roots[0].given;
    const lexical = path.resolve(base, given === '' ? '.' : given);
    const holder = roots.find((r) => isWithin(r.given, lexical) || isWithin(r.real, lexical));
    if (!holder) {
      const why = path.isAbsolute(given) ? 'is outside the workspace' : 'climbs out of the workspace with ".."';
      throw new WorkspacePathError(`"${given}" ${why} (${this._describeRoots()})`, 'outside_workspace');
    }
    return { lexical, roots };
  }

  private _inside(given: string, real: string, roots: { given: string; real: string }[], how: string): WorkspacePath {
    const root = roots.find((r) => isWithin(r.real, real));
    if (!root) throw new WorkspacePathError(`"${given}" ${how} ${real}, outside the workspace (${this._describeRoots()})`, 'outside_workspace');
    const relative = path.relative(root.real, real).split(path.sep).join('/') || '.';
    return { absolute: real, relative, root: root.real };
  }

  private _realRoots(): Promise<{ given: string; real: string }[]> {
    this._real ??= Promise.all(
      this.roots.map(async (given) => ({ given, real: await fs.realpath(given).catch(() => given) })),
    );
    return this._real;
  }

  private _describeRoots(): string {
    const roots = this.roots;
    return roots.length === 1 ? `the workspace is ${roots[0]}` : `the workspace folders are ${roots.join(', ')}`;
  }
}

/** Whether `child` is `parent` or inside it. */
export function isWithin(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}
