import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import MarkdownIt from 'markdown-it';

// A handful of languages keeps the bundle small; others are shown unhighlighted.
for (const [name, lang] of Object.entries({ bash, css, diff, javascript, json, python, typescript, xml, yaml })) hljs.registerLanguage(name, lang);
hljs.registerAliases(['sh', 'shell', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['js', 'jsx', 'mjs', 'cjs'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['jsonc', 'json5'], { languageName: 'json' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });

/** Raw HTML in model output stays text: `html: false`; the result is sanitized anyway. */
const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx];
  const lang = token.info.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  const known = lang && hljs.getLanguage(lang);
  const body = known ? hljs.highlight(token.content, { language: lang, ignoreIllegals: true }).value : md.utils.escapeHtml(token.content);
  const label = known ? md.utils.escapeHtml(lang) : '';
  return `<div class="code-block"><div class="code-bar"><span class="code-lang">${label}</span><span><button type="button" class="insert" aria-label="Insert code at the cursor" title="Insert at the cursor of the editor">Insert</button><button type="button" class="copy" aria-label="Copy code">Copy</button></span></div><pre><code class="hljs">${body}</code></pre></div>`;
};

const cache = new Map<string, string>();
const CACHE_LIMIT = 500;

/** Markdown to sanitized HTML (cached: history re-renders the same texts). */
export function renderMarkdown(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const html = DOMPurify.sanitize(md.render(text), { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form', 'input'], FORBID_ATTR: ['style'] });
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(text, html);
  return html;
}
