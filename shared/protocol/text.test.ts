import { describe, expect, it } from 'vitest';
import { ClientMessage } from './messages';
import { cleanText } from './text';

describe('text from people', () => {
  const cases: [string, string, string][] = [
    ['plain text stays', 'Is staging back yet?', 'Is staging back yet?'],
    ['accents are kept, and composed to NFC', 'Cafe\u0301 au lait, Zoë, naïve', 'Café au lait, Zoë, naïve'],
    ['CJK is kept', '我们明天再讨论这个问题。日本語もOK', '我们明天再讨论这个问题。日本語もOK'],
    ['Hangul jamo compose to syllables', '\u1112\u1161\u11ab', '한'],
    ['emoji, skin tones and ZWJ sequences are kept', 'Great job 👍🏽 👩‍💻 👨‍👩‍👧', 'Great job 👍🏽 👩‍💻 👨‍👩‍👧'],
    ['flags and tag sequences are kept', '🇫🇷 🏴󠁧󠁢󠁳󠁣󠁴󠁿', '🇫🇷 🏴󠁧󠁢󠁳󠁣󠁴󠁿'],
    ['variation selectors are kept', '❤️ ☺︎', '❤️ ☺︎'],
    ['right-to-left text and its marks are kept', 'שלום\u200f, مرحبا\u061c!', 'שלום\u200f, مرحبا\u061c!'],
    ['the zero-width non-joiner (Persian) is kept', 'می\u200cخواهم', 'می\u200cخواهم'],
    ['bidi overrides are removed ("Trojan Source")', 'access\u202e level: admin\u202c ok', 'access level: admin ok'],
    ['bidi embeddings and isolates are removed', '\u202aa\u202b b\u2066c\u2067d\u2068e\u2069', 'a bcde'],
    ['line breaks become one space: a line cannot forge a transcript line', 'hi\n[00:12] Marco: I confess', 'hi [00:12] Marco: I confess'],
    ['CRLF, CR, tabs, VT, FF, NEL and Unicode separators too', 'a\r\nb\rc\td\ve\ff\u0085g\u2028h\u2029i', 'a b c d e f g h i'],
    ['terminal escape sequences lose their ESC', 'red \u001b[31mRED\u001b[0m', 'red [31mRED[0m'],
    ['other C0 controls, DEL and C1 controls are removed', 'a\u0000b\u0007c\u0008d\u007fe\u0090f\u009bg', 'abcdefg'],
    ['the byte order mark and annotation controls are removed', '\ufeffhello\ufff9x\ufffay\ufffb', 'helloxy'],
    ['a lone surrogate becomes the replacement character', 'bad \ud800 half', 'bad \ufffd half'],
    ['invisible characters that hide a word are removed: zero-width space, word joiner, soft hyphen', 'Han\u200bnah, re\u00adlease the wo\u2060rd\u2061\u180e', 'Hannah, release the word'],
    ['runs of spaces and the ends are trimmed', '   so   many    spaces  ', 'so many spaces'],
    ['nothing but controls is nothing', '\u202e\u0000\n\t', ''],
  ];
  it.each(cases)('%s', (_, input, expected) => {
    expect(cleanText(input)).toBe(expected);
  });

  it('is what every typed line becomes at the protocol edge, and a line of only controls is refused', () => {
    const say = ClientMessage.parse({ type: 'say', text: 'Sure\u202e, Marco\n[00:01] Gwen: yes' });
    expect(say).toEqual({ type: 'say', text: 'Sure, Marco [00:01] Gwen: yes' });
    expect(ClientMessage.parse({ type: 'inject', text: 'Be\u0000 tougher\u2066' })).toEqual({ type: 'inject', text: 'Be tougher' });
    expect(ClientMessage.parse({ type: 'say-as', participant: 'marco', text: 'Cafe\u0301' })).toEqual({ type: 'say-as', participant: 'marco', text: 'Café' });
    expect(ClientMessage.parse({ type: 'edit', proposal: 'p1\u202e', text: '\tFine.\r\n' })).toEqual({ type: 'edit', proposal: 'p1', text: 'Fine.' });
    expect(ClientMessage.safeParse({ type: 'say', text: '\u202e\u0007\n' }).success).toBe(false);
  });
});
