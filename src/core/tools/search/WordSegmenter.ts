import ENGLISH_WORDS from 'wordsninja/words-en.json';
import { remember } from './remember';

/**
 * How many of wordsninja's English words (most frequent first) the segmenter knows. esbuild.mjs
 * reads this line and bundles only these words, so keep its shape.
 */
export const SEGMENTER_VOCABULARY = 40_000;

/** Words shorter than this are never split. */
const MIN_SPLIT_LENGTH = 6;
/** Longer ones are left whole: the search is quadratic in the length, and such tokens are ids or hashes. */
const MAX_SPLIT_LENGTH = 40;
/** Cost of each part beyond its word's own (a word-insertion penalty), so short frequent words do not shred rare ones. */
const PART_COST = 2;
const MAX_CACHED = 50_000;
const LOWER_CASE_LETTERS = /^\p{Ll}+$/u;

/**
 * Splits joined words (`bulkgenerateguids` -> `bulk generate guids`) by the most likely sequence
 * of words under a unigram model: a known word costs the log of its frequency rank (Zipf's law,
 * as wordninja does), an unknown stretch costs more than the rarest known word and grows with its
 * length (as in Norvig's segmenter), so a name no list holds (`guids`) stays in one piece instead
 * of falling into fragments; every part also costs a fixed amount, so a rare word is not shredded
 * into frequent short ones. Single letters are never a part.
 *
 * The word list is wordsninja's (words by frequency in English Wikipedia); its own splitter has
 * no model for unknown words and keeps the list in module state, so only the list is used.
 */
export class WordSegmenter {
  private static _english: WordSegmenter | undefined;
  private readonly _cost = new Map<string, number>();
  private readonly _unknownCost: number;
  private readonly _cache = new Map<string, readonly string[]>();
  /** Vocabulary words by their first four letters, and the stems of each such group once asked. */
  private _byPrefix: Map<string, string[]> | undefined;
  private readonly _stemsByPrefix = new Map<string, ReadonlySet<string>>();

  /** `words`: the vocabulary, most frequent first. */
  constructor(words: readonly string[]) {
    const logSize = Math.log(Math.max(2, words.length));
    words.forEach((word, rank) => {
      if (!this._cost.has(word)) this._cost.set(word, Math.log((rank + 1) * logSize));
    });
    this._unknownCost = Math.log(Math.max(2, words.length) * logSize);
  }

  /** The shared segmenter over the first {@link SEGMENTER_VOCABULARY} English words. */
  static english(): WordSegmenter {
    WordSegmenter._english ??= new WordSegmenter((ENGLISH_WORDS as readonly string[]).slice(0, SEGMENTER_VOCABULARY));
    return WordSegmenter._english;
  }

  /**
   * Whether `word` is in the vocabulary or shares its `stem` with a vocabulary word: with the
   * Porter stemmer, `notifications` is known through `notification` (both `notif`). Stems are
   * kept per four-letter prefix, so pass the same `stem` every time.
   */
  hasForm(word: string, stem: (word: string) => string): boolean {
    if (this._cost.has(word)) return true;
    const stems = remember(this._stemsByPrefix, word.slice(0, 4), MAX_CACHED, (prefix) => new Set((this._groups().get(prefix) ?? []).map(stem)));
    return stems.has(stem(word));
  }

  /** The parts of a lower-case `word`, or `[word]` when it does not split. */
  split(word: string): readonly string[] {
    if (word.length < MIN_SPLIT_LENGTH || word.length > MAX_SPLIT_LENGTH || !LOWER_CASE_LETTERS.test(word)) return [word];
    return remember(this._cache, word, MAX_CACHED, (w) => this._segment(w));
  }

  /** Vocabulary words by their first four letters, grouped on first use. */
  private _groups(): ReadonlyMap<string, readonly string[]> {
    if (this._byPrefix === undefined) {
      this._byPrefix = new Map();
      for (const known of this._cost.keys()) {
        const group = this._byPrefix.get(known.slice(0, 4));
        if (group) group.push(known);
        else this._byPrefix.set(known.slice(0, 4), [known]);
      }
    }
    return this._byPrefix;
  }

  private _partCost(part: string): number {
    const known = this._cost.get(part);
    return (known ?? this._unknownCost + part.length * Math.LN10) + PART_COST;
  }

  private _segment(word: string): readonly string[] {
    const n = word.length;
    // best[i]: cheapest cost of word[0, i); from[i]: where its last part starts.
    const best = new Float64Array(n + 1).fill(Infinity);
    const from = new Int32Array(n + 1).fill(-1);
    best[0] = 0;
    for (let end = 2; end <= n; end++) {
      for (let start = 0; start <= end - 2; start++) {
        if (best[start] === Infinity) continue;
        const cost = best[start]! + this._partCost(word.slice(start, end));
        if (cost < best[end]!) {
          best[end] = cost;
          from[end] = start;
        }
      }
    }
    const parts: string[] = [];
    for (let end = n; end > 0; end = from[end]!) parts.unshift(word.slice(from[end]!, end));
    return parts.length > 1 ? parts : [word];
  }
}
