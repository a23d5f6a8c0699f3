// The table of highlight.js grammars the webview is built with (scripts/webviewBuild.mjs).
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { readLanguageIndex } from '../../../scripts/webviewBuild.mjs';

const require = createRequire(import.meta.url);

describe('readLanguageIndex', () => {
  const index = readLanguageIndex();

  it('lists every grammar highlight.js registers, by the names it registers them under', () => {
    const hljs = require('highlight.js');
    expect(index.names).toEqual([...hljs.listLanguages()].sort());
  });

  it('maps names and aliases, in lower case, to the grammar that declares them', () => {
    const hljs = require('highlight.js');
    for (const [alias, name] of Object.entries(index.aliases)) {
      expect(alias).toBe(alias.toLowerCase());
      expect(hljs.getLanguage(alias), alias).toBeDefined();
      expect(index.names).toContain(name);
    }
    expect(index.aliases).toMatchObject({ py: 'python', ts: 'typescript', sh: 'bash', html: 'xml', yml: 'yaml', jsonc: 'json', rs: 'rust' });
  });

  it('records the grammars a grammar embeds, and only known ones', () => {
    expect(index.requires.xml).toEqual(expect.arrayContaining(['css', 'javascript']));
    expect(index.requires.javascript).toEqual(expect.arrayContaining(['xml']));
    expect(index.requires.python).toBeUndefined();
    for (const deps of Object.values(index.requires)) for (const d of deps) expect(index.names).toContain(d);
  });
});
