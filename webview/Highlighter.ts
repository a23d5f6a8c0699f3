/** The part of highlight.js's API the highlighter uses (its core, without any grammar). */
export interface IHighlightEngine {
  registerLanguage(name: string, language: never): void;
  getLanguage(name: string): unknown;
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string };
}

/** Where grammars come from: a table known up front, and a loader per grammar (a chunk in the page). */
export interface ILanguageIndex {
  /** Lower-case name or alias -> grammar name. */
  readonly aliases: Readonly<Record<string, string>>;
  /** Grammar name -> grammars it embeds (loaded with it). */
  readonly requires: Readonly<Record<string, readonly string[]>>;
  load(name: string): Promise<unknown>;
}

/**
 * Code highlighting with grammars loaded on demand: the first block of a language starts loading
 * its grammar (and the ones it embeds) and is shown plain; once a grammar is loaded, listeners hear
 * of it and render again (an embedded one that is not there yet leaves its part plain meanwhile).
 * A grammar that fails to load stays plain, and is not asked for again.
 */
export class Highlighter {
  private readonly _loading = new Map<string, Promise<void>>();
  private readonly _failed = new Set<string>();
  private readonly _listeners = new Set<(language: string) => void>();

  constructor(
    private readonly _engine: IHighlightEngine,
    private readonly _index: ILanguageIndex,
    private readonly _log: (line: string) => void = (l) => console.warn(l),
  ) {}

  /** The grammar for a fence's info string (`ts`, `Python`, `sh {.line-numbers}`), if there is one. */
  resolve(info: string): string | undefined {
    const word = info.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    return Object.hasOwn(this._index.aliases, word) ? this._index.aliases[word] : undefined;
  }

  /**
   * Highlighted HTML for `code`, or undefined while its grammar is not loaded (loading starts;
   * `onDidLoad` says when to ask again) or when it cannot be.
   */
  highlight(code: string, language: string): string | undefined {
    if (this._failed.has(language)) return undefined;
    if (!this._loading.has(language)) {
      void this.ensure(language);
      return undefined;
    }
    if (!this._engine.getLanguage(language)) return undefined;
    return this._engine.highlight(code, { language, ignoreIllegals: true }).value;
  }

  /**
   * Loads a grammar (once; later calls share the first) and starts loading those it embeds, which
   * announce themselves when they are ready: grammars embed each other (HTML and JavaScript).
   */
  ensure(language: string): Promise<void> {
    let loading = this._loading.get(language);
    if (!loading) {
      loading = this._load(language);
      this._loading.set(language, loading);
      for (const embedded of this._index.requires[language] ?? []) void this.ensure(embedded);
    }
    return loading;
  }

  /** Called with a grammar's name once it (and what it embeds) can highlight. */
  onDidLoad(listener: (language: string) => void): () => void {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  private async _load(language: string): Promise<void> {
    try {
      this._engine.registerLanguage(language, (await this._index.load(language)) as never);
    } catch (err) {
      this._failed.add(language);
      this._log(`chat: the ${language} grammar did not load: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    for (const l of this._listeners) l(language);
  }
}
