import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

// src/core must run outside VS Code (CLI, library, server mode): it never imports 'vscode'.
describe('src/core', () => {
  it('imports nothing from vscode', () => {
    const root = path.resolve(__dirname, '../../src/core');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (/\.ts$/.test(entry.name) && /from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|import\(\s*['"]vscode['"]\s*\)/.test(fs.readFileSync(full, 'utf8'))) {
          offenders.push(path.relative(root, full));
        }
      }
    };
    walk(root);
    expect(fs.readdirSync(root).length).toBeGreaterThan(3);
    expect(offenders).toEqual([]);
  });
});
