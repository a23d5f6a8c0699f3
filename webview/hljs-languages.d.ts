// Made at build time by scripts/webviewBuild.mjs from highlight.js's own grammars.
declare module 'virtual:hljs-languages' {
  import type { LanguageFn } from 'highlight.js';
  /** Lower-case name or alias -> grammar name. */
  export const aliases: Readonly<Record<string, string>>;
  /** Grammar name -> the grammars it embeds. */
  export const requires: Readonly<Record<string, readonly string[]>>;
  /** Loads a grammar's chunk. */
  export function load(name: string): Promise<LanguageFn>;
}
