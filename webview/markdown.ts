import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import MarkdownIt from 'markdown-it';
import * as languages from 'virtual:hljs-languages';
import { Highlighter } from './Highlighter';

/** Every grammar highlight.js has, each a chunk of its own fetched when a block first needs it. */
const highlighter = new Highlighter(hljs, languages);

/** Raw HTML in model output stays text: `html: false`; the result is sanitized anyway. */
const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx];
  const language = highlighter.resolve(token.info);
  // Until its grammar has loaded, a block shows plain (and is rendered again once it has).
  const highlighted = language ? highlighter.highlight(token.content, language) : undefined;
  const body = highlighted ?? md.utils.escapeHtml(token.content);
  const label = language ? md.utils.escapeHtml(token.info.trim().split(/\s+/)[0] ?? '') : '';
  return `<div class="code-block"><div class="code-bar"><span class="code-lang">${label}</span><span><button type="button" class="insert" aria-label="Insert code at the cursor" title="Insert at the cursor of the editor">Insert</button><button type="button" class="copy" aria-label="Copy code">Copy</button></span></div><pre><code class="hljs"${language ? ` data-language="${language}"` : ''}${highlighted === undefined ? '' : ' data-highlighted="yes"'}>${body}</code></pre></div>`;
};

const cache = new Map<string, string>();
const CACHE_LIMIT = 500;

/**
 * Calls `listener` when a grammar has loaded: Markdown rendered before then showed that language's
 * blocks plain, and renders highlighted now.
 */
export function onDidLoadLanguage(listener: (language: string) => void): () => void {
  return highlighter.onDidLoad(listener);
}

// Texts rendered while a grammar was missing must not be served from the cache once it is there.
highlighter.onDidLoad(() => cache.clear());

/** Markdown to sanitized HTML (cached: history re-renders the same texts). */
export function renderMarkdown(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const html = DOMPurify.sanitize(md.render(text), { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form', 'input'], FORBID_ATTR: ['style'] });
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(text, html);
  return html;
}
