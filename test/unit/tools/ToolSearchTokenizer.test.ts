import { describe, expect, it } from 'vitest';
import { ToolSearchTokenizer, WordSegmenter } from '../../../src/core/tools/search';
import { remember } from '../../../src/core/tools/search/remember';

describe('ToolSearchTokenizer', () => {
  const tokenizer = new ToolSearchTokenizer();

  it('cuts snake_case, kebab-case and dotted names, and adds camelCase and digit parts to the whole word', () => {
    expect(tokenizer.words('read_text-file.v2')).toEqual(['read', 'text', 'file', 'v2', 'v', '2']);
    expect(tokenizer.words('createCalendarEvent')).toEqual(['createcalendarevent', 'create', 'calendar', 'event']);
    expect(tokenizer.words('parseHTTPResponse')).toEqual(['parsehttpresponse', 'parse', 'http', 'response']);
    expect(tokenizer.words('YouTube search')).toEqual(['youtube', 'you', 'tube', 'search']);
    expect(tokenizer.words('Café über')).toEqual(['café', 'über']);
  });

  it('drops English clitics before cutting', () => {
    expect(tokenizer.words("I don't need the user's files")).toEqual(['i', 'do', 'not', 'need', 'the', 'user', 'files']);
    expect(tokenizer.words('it\u2019s')).toEqual(['it']);
  });

  it('drops stop words from queries and stems what is left, repeats kept', () => {
    expect(tokenizer.queryTerms('Could you show me the latest forecasts for Paris?')).toEqual(['show', 'latest', 'forecast', 'pari']);
    expect(tokenizer.queryTerms('forecast, forecasts and forecasting')).toEqual(['forecast', 'forecast', 'forecast']);
    expect(tokenizer.queryTerms('the of a me')).toEqual([]);
  });

  it('keeps every word of a document, and adds the parts of joined words', () => {
    expect(tokenizer.documentTerms('Get the weather')).toEqual(['get', 'the', 'weather']);
    expect(tokenizer.documentTerms('weatherforecast')).toEqual(['weatherforecast', 'weather', 'forecast']);
    expect(tokenizer.documentTerms('bulkgenerateguids')).toEqual(['bulkgenerateguid', 'bulk', 'generat', 'guid']);
    // A joined part of an identifier splits too; the identifier's whole is not split again.
    expect(tokenizer.documentTerms('getWeatherforecast')).toEqual(['getweatherforecast', 'get', 'weatherforecast', 'weather', 'forecast']);
    // Stop words are not added as parts.
    expect(tokenizer.documentTerms('sendtheemail')).toEqual(['sendtheemail', 'send', 'email']);
  });

  it('leaves real words whole, inflected ones too', () => {
    for (const word of ['notifications', 'validated', 'scheduler', 'forecasting', 'weather']) {
      expect(tokenizer.documentTerms(word), word).toHaveLength(1);
    }
  });

  it('turns steps off one at a time', () => {
    expect(new ToolSearchTokenizer({ stopWords: false }).queryTerms('the forecasts')).toEqual(['the', 'forecast']);
    expect(new ToolSearchTokenizer({ stemming: false }).queryTerms('the forecasts')).toEqual(['forecasts']);
    expect(new ToolSearchTokenizer({ identifiers: false }).words('createEvent2')).toEqual(['createevent2']);
    expect(new ToolSearchTokenizer({ segmentation: false }).documentTerms('weatherforecast')).toEqual(['weatherforecast']);
  });
});

describe('WordSegmenter', () => {
  const small = new WordSegmenter(['the', 'to', 'list', 'open', 'issues', 'pull', 'requests', 'is', 'sue', 'red', 'at']);

  it('splits a joined word into the likeliest known words', () => {
    expect(small.split('listopenissues')).toEqual(['list', 'open', 'issues']);
    expect(small.split('pullrequests')).toEqual(['pull', 'requests']);
  });

  it('keeps an unknown stretch whole rather than in fragments, and never makes one-letter parts', () => {
    expect(small.split('listzorblax')).toEqual(['list', 'zorblax']);
    expect(small.split('zorblaxian')).toEqual(['zorblaxian']);
    expect(small.split('listopenx')).toEqual(['list', 'openx']);
  });

  it('leaves short words, words with digits or capitals, and very long ones alone', () => {
    expect(small.split('isred')).toEqual(['isred']);
    expect(small.split('sueisred')).toEqual(['sue', 'is', 'red']);
    expect(small.split('list2open')).toEqual(['list2open']);
    expect(small.split('ListOpen')).toEqual(['ListOpen']);
    expect(small.split('listopen'.repeat(6))).toEqual(['listopen'.repeat(6)]);
  });

  it('splits words of 6 to 40 letters only, and a repeated vocabulary word keeps its first rank', () => {
    expect(small.split('pullis')).toEqual(['pull', 'is']);
    expect(small.split(`${'list'.repeat(9)}open`)).toHaveLength(10);
    expect(small.split(`${'list'.repeat(9)}opens`)).toEqual([`${'list'.repeat(9)}opens`]);
    // "ab" is common and "abab" rare, unless the later duplicate of "abab" would count.
    const ranked = new WordSegmenter(['ab', 'cd', ...Array.from({ length: 50 }, (_, i) => `w${i}`), 'abab', 'abab']);
    expect(ranked.split('ababcd')).toEqual(['ab', 'ab', 'cd']);
    const dup = new WordSegmenter(['abab', 'cd', ...Array.from({ length: 50 }, (_, i) => `w${i}`), 'ab', 'abab']);
    expect(dup.split('ababcd')).toEqual(['abab', 'cd']);
  });

  it('knows inflected forms through a shared stem', () => {
    const stem = (w: string) => w.replace(/(es|s|ed)$/, '');
    expect(small.hasForm('issues', stem)).toBe(true);
    expect(small.hasForm('listed', stem)).toBe(true);
    expect(small.hasForm('opened', stem)).toBe(true);
    expect(small.hasForm('zorblax', stem)).toBe(false);
    expect(small.hasForm('pull', () => 'no such stem')).toBe(true);
  });

  it('gives the same answer every time', () => {
    const english = WordSegmenter.english();
    expect(english).toBe(WordSegmenter.english());
    const first = english.split('sendemailnotification');
    expect(first).toEqual(['send', 'email', 'notification']);
    expect(english.split('sendemailnotification')).toEqual(first);
  });
});

describe('remember', () => {
  it('computes a value once and starts over at the limit', () => {
    const cache = new Map<string, number>();
    let calls = 0;
    const length = (key: string) => {
      calls++;
      return key.length;
    };
    expect(remember(cache, 'ab', 2, length)).toBe(2);
    expect(remember(cache, 'ab', 2, length)).toBe(2);
    expect(calls).toBe(1);
    remember(cache, 'abc', 2, length);
    expect([...cache.keys()]).toEqual(['ab', 'abc']);
    remember(cache, 'abcd', 2, length);
    expect([...cache.keys()]).toEqual(['abcd']);
    expect(calls).toBe(3);
  });
});
