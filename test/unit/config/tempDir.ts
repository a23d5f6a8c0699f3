import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** A real temporary directory for one test; `dispose()` removes it. */
export class TempDir {
  readonly root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-config-')));

  /** Writes `content` at `relative` (creating folders) and returns the absolute path. */
  write(relative: string, content: string): string {
    const file = path.join(this.root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content, 'utf8');
    return file;
  }

  /** Creates a folder at `relative` and returns its absolute path. */
  mkdir(relative: string): string {
    const dir = path.join(this.root, relative);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  path(...segments: string[]): string {
    return path.join(this.root, ...segments);
  }

  dispose(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}
