import { eng as ENGLISH_STOP_WORDS } from 'stopword';
import porter2 from 'wink-porter2-stemmer';
import { remember } from './remember';
import { WordSegmenter } from './WordSegmenter';

/** Which text steps run; all do by default (turning one off is for measuring what it brings). */
export interface ToolSearchTextOptions {
  /** Drop English stop words (the `stopword` package's list) from queries. */
  readonly stopWords?: boolean;
  /** Reduce words to their Porter2 stems (`forecasts` -> `forecast`). */
  readonly stemming?: boolean;
  /** Also take camelCase and letter-digit words apart (`getUser2` -> `get user 2`). */
  readonly identifiers?: boolean;
  /** Also index the parts of joined words (`bulkgenerateguids` -> `bulk generate guids`). */
  readonly segmentation?: boolean;
}

const STOP_WORDS: ReadonlySet<string> = new Set(ENGLISH_STOP_WORDS);
// Made once: the bundler turns Unicode-property literals into `new RegExp` at each use.
const NEGATED_CLITIC = /(\p{L})n['\u2019]t\b/gu;
const CLITIC = /(\p{L})['\u2019](?:s|m|re|ve|ll|d)\b/giu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;
const IDENTIFIER_BOUNDARY = /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|\p{L}\p{N}|\p{N}\p{L}/u;
const LOWER_UPPER = /(\p{Ll})(\p{Lu})/gu;
const ACRONYM_WORD = /(\p{Lu})(\p{Lu}\p{Ll})/gu;
const LETTER_DIGIT = /(\p{L})(\p{N})/gu;
const DIGIT_LETTER = /(\p{N})(\p{L})/gu;
/** Stems of words seen, shared by every tokenizer: the same words recur across tools and queries. */
const STEMS = new Map<string, string>();
const MAX_STEMS = 50_000;

/**
 * Turns tool texts and queries into search terms. Both sides are cut into lower-case words at
 * anything but letters and digits (so snake_case, kebab-case and dotted names split), camelCase
 * and letter-digit words also into their parts, and every word is stemmed. Documents also get the
 * parts of joined words beside the joined word; queries lose their stop words. Each text's terms
 * depend on that text alone, so an index can add and remove tools one at a time.
 */
export class ToolSearchTokenizer {
  private readonly _stopWords: boolean;
  private readonly _stemming: boolean;
  private readonly _identifiers: boolean;
  private readonly _segmenter: WordSegmenter | undefined;

  constructor(options: ToolSearchTextOptions = {}, segmenter?: WordSegmenter) {
    this._stopWords = options.stopWords ?? true;
    this._stemming = options.stemming ?? true;
    this._identifiers = options.identifiers ?? true;
    this._segmenter = options.segmentation === false ? undefined : (segmenter ?? WordSegmenter.english());
  }

  /**
   * Lower-case words of `text`. A word with camelCase or letter-digit boundaries comes whole and
   * then in parts, so that `YouTube` finds `youtube` and `listIssues` finds `list_issues`:
   * `getUser2` -> `getuser2 get user 2`.
   */
  words(text: string): string[] {
    return this._chunks(text).flat();
  }

  /** Terms to index for a tool's text: every word, and the parts of joined ones. */
  documentTerms(text: string): string[] {
    const terms: string[] = [];
    for (const [whole, ...parts] of this._chunks(text)) {
      terms.push(this._stem(whole!));
      // An identifier's parts are joined words in their turn (`getWeatherforecast`), never its whole.
      if (parts.length === 0) this._pushSegments(whole!, terms);
      for (const part of parts) {
        terms.push(this._stem(part));
        this._pushSegments(part, terms);
      }
    }
    return terms;
  }

  /** Terms to look up for a query: its words less stop words, stemmed; repeats kept (they weigh more). */
  queryTerms(text: string): string[] {
    const terms: string[] = [];
    for (const word of this.words(text)) if (!(this._stopWords && STOP_WORDS.has(word))) terms.push(this._stem(word));
    return terms;
  }

  /** Each chunk of `text` between separators: its lower-case whole, then its identifier parts if it has any. */
  private _chunks(text: string): string[][] {
    // English clitics go, as in the Penn Treebank's tokenizer: "don't" -> "do not", "user's" -> "user".
    const plain = text.replace(NEGATED_CLITIC, '$1 not').replace(CLITIC, '$1');
    const chunks: string[][] = [];
    for (const chunk of plain.split(SEPARATORS)) {
      if (!chunk) continue;
      const whole = chunk.toLowerCase();
      chunks.push(this._identifiers && IDENTIFIER_BOUNDARY.test(chunk) ? [whole, ...splitIdentifier(chunk)] : [whole]);
    }
    return chunks;
  }

  /** Adds the stemmed parts of a joined word, less stop words; nothing for a word that does not split. */
  private _pushSegments(word: string, terms: string[]): void {
    if (this._segmenter === undefined || this._segmenter.hasForm(word, stem)) return;
    const parts = this._segmenter.split(word);
    if (parts.length < 2) return;
    for (const part of parts) if (!STOP_WORDS.has(part)) terms.push(this._stem(part));
  }

  private _stem(word: string): string {
    return this._stemming ? stem(word) : word;
  }

}

/** `getHTTPResponse2` -> `get http response 2`. */
function splitIdentifier(word: string): string[] {
  return word.replace(LOWER_UPPER, '$1 $2').replace(ACRONYM_WORD, '$1 $2').replace(LETTER_DIGIT, '$1 $2').replace(DIGIT_LETTER, '$1 $2').toLowerCase().split(' ');
}

function stem(word: string): string {
  return remember(STEMS, word, MAX_STEMS, porter2);
}
