import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { Highlighter, type IHighlightEngine, type ILanguageIndex } from '../../../webview/Highlighter';

// highlight.js itself, as the webview bundles it (its grammars, one by one, stand in for the chunks).
const require = createRequire(__filename);

/** A fresh highlight.js core (no grammar registered) and an index of a few real grammars. */
function setup(failing: readonly string[] = []) {
  const engine = (require('highlight.js/lib/core') as { newInstance(): IHighlightEngine }).newInstance();
  const loads: string[] = [];
  const index: ILanguageIndex = {
    aliases: { python: 'python', py: 'python', javascript: 'javascript', js: 'javascript', xml: 'xml', html: 'xml', css: 'css', broken: 'broken' },
    requires: { javascript: ['css', 'xml'], xml: ['css', 'javascript'] },
    load: async (name) => {
      loads.push(name);
      if (failing.includes(name) || name === 'broken') throw new Error(`no chunk for ${name}`);
      return require(`highlight.js/lib/languages/${name}`);
    },
  };
  const logged: string[] = [];
  const highlighter = new Highlighter(engine, index, (l) => logged.push(l));
  const loaded: string[] = [];
  highlighter.onDidLoad((l) => loaded.push(l));
  return { highlighter, loads, loaded, logged };
}

describe('Highlighter', () => {
  it('resolves a fence info string by name or alias, case and attributes aside', () => {
    const { highlighter, loads } = setup();
    expect(highlighter.resolve('py')).toBe('python');
    expect(highlighter.resolve('  Python {.numbered}')).toBe('python');
    expect(highlighter.resolve('HTML')).toBe('xml');
    expect(highlighter.resolve('')).toBeUndefined();
    expect(highlighter.resolve('klingon')).toBeUndefined();
    expect(highlighter.resolve('constructor')).toBeUndefined();
    expect(loads).toEqual([]);
  });

  it('shows a block plain until its grammar has loaded, then highlighted; the grammar loads once', async () => {
    const { highlighter, loads, loaded } = setup();
    expect(highlighter.highlight('def f(): return 1', 'python')).toBeUndefined();
    expect(highlighter.highlight('x = 2', 'python')).toBeUndefined();
    await highlighter.ensure('python');
    expect(loaded).toEqual(['python']);
    expect(highlighter.highlight('def f(): return 1', 'python')).toContain('<span class="hljs-keyword">def</span>');
    expect(loads).toEqual(['python']);
  });

  it('loads the grammars a grammar embeds, each announcing itself, through cycles', async () => {
    const { highlighter, loads, loaded } = setup();
    await highlighter.ensure('xml');
    await highlighter.ensure('javascript');
    await highlighter.ensure('css');
    expect([...loads].sort()).toEqual(['css', 'javascript', 'xml']);
    expect([...loaded].sort()).toEqual(['css', 'javascript', 'xml']);
    const html = highlighter.highlight('<p>hi</p><script>const a = 1;</script>', 'xml') ?? '';
    expect(html).toContain('<span class="hljs-name">p</span>');
    // The script element's body is highlighted as JavaScript.
    expect(html).toContain('<span class="hljs-keyword">const</span>');
  });

  it('keeps a grammar that does not load plain, says so once, and does not ask for it again', async () => {
    const { highlighter, loads, loaded, logged } = setup();
    expect(highlighter.highlight('anything', 'broken')).toBeUndefined();
    await highlighter.ensure('broken');
    expect(highlighter.highlight('anything', 'broken')).toBeUndefined();
    expect(loads).toEqual(['broken']);
    expect(loaded).toEqual([]);
    expect(logged).toEqual(['chat: the broken grammar did not load: no chunk for broken']);
  });

  it('highlights a grammar whose embedded grammar failed, leaving that part plain', async () => {
    const { highlighter, loaded } = setup(['css']);
    await highlighter.ensure('javascript');
    await highlighter.ensure('css');
    await highlighter.ensure('xml');
    expect(loaded).toContain('javascript');
    expect(loaded).not.toContain('css');
    expect(highlighter.highlight('let x = "y";', 'javascript')).toContain('<span class="hljs-keyword">let</span>');
    expect(highlighter.highlight('<style>p { color: red }</style>', 'xml')).toContain('p { color: red }');
  });
});
