import { describe, expect, it } from 'vitest';
import { foldText, wordsOf, WORD_LENGTH } from '../../src/platform/query/text-terms.js';

// The words of the full-text index (platform/query/text-terms.ts): the same on both engines, folded in JavaScript.
describe('words of text', () => {
  it('folds case and accents, ASCII or not, as NFKD without marks and in lower case', () => {
    const general = (text: string) =>
      text
        .normalize('NFKD')
        .replace(/\p{M}+/gu, '')
        .toLowerCase();
    for (const text of [
      'Invoice 12345 Foxtrot',
      'ÉCLAIR au café',
      'ﬁnance Ⅻ ½',
      'MIXED Ünïcödé and ascii',
      '',
      '\u0000\u007f~',
    ]) {
      expect(foldText(text)).toBe(general(text));
    }
    expect(wordsOf('Éclair, ECLAIR; e-mail 42')).toEqual(['eclair', 'eclair', 'e', 'mail', '42']);
  });

  it('cuts a word to WORD_LENGTH code points, astral characters counted once', () => {
    expect(wordsOf('a'.repeat(WORD_LENGTH))).toEqual(['a'.repeat(WORD_LENGTH)]);
    expect(wordsOf('b'.repeat(WORD_LENGTH + 5))).toEqual(['b'.repeat(WORD_LENGTH)]);
    // 𠀀 (U+20000) is a letter of two code units: 40 of them are 80 units, 40 code points, kept whole.
    expect(wordsOf('𠀀'.repeat(40))).toEqual(['𠀀'.repeat(40)]);
    expect(wordsOf('𠀀'.repeat(WORD_LENGTH + 1))).toEqual(['𠀀'.repeat(WORD_LENGTH)]);
  });
});
