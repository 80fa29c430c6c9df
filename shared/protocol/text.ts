/**
 * What text from people may contain: every line a human types or says (`say`, the instructor's
 * `inject`, `say-as` and edits, transcripts of speech) passes `cleanText` before the room sees
 * it, so the log, the screens, terminal clients and transcript exports get text that prints as
 * written and cannot rearrange or erase what is around it.
 *
 * - Normalised to NFC: "é" typed as e + combining accent is stored as the one character "é".
 * - A line is one line: line breaks (CR, LF, VT, FF, NEL, U+2028, U+2029) and tabs become spaces,
 *   so nobody can forge a transcript line; runs of such spaces are one space; the ends are trimmed.
 * - Removed: the other C0 and C1 controls and DEL; the bidirectional embeddings, overrides and
 *   isolates (U+202A-202E, U+2066-2069: "Trojan Source" reordering that can spill over the rest of a
 *   terminal line); the byte order mark (U+FEFF) and the interlinear annotation controls
 *   (U+FFF9-FFFB); the invisible characters that would hide a word from the room's reading of it
 *   while it prints the same ("Han\u200Bnah" would not call Hannah): the zero-width space U+200B,
 *   the word joiner and invisible operators U+2060-2064, the soft hyphen U+00AD and the Mongolian
 *   vowel separator U+180E; lone surrogates become U+FFFD.
 * - Kept: accents, CJK, right-to-left scripts and their marks (U+200E LRM, U+200F RLM, U+061C ALM:
 *   they affect only the characters next to them and RTL writers use them), the zero-width joiner
 *   and non-joiner (U+200D emoji sequences like 👩‍💻, U+200C in Persian), variation selectors,
 *   emoji tag sequences (flags like 🏴󠁧󠁢󠁳󠁣󠁴󠁿) and ordinary spaces.
 *
 * `printable` is the same for text that is already stored (logs recorded before, generated lines):
 * what an export prints.
 */

// eslint-disable-next-line no-control-regex
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]/g;
// eslint-disable-next-line no-control-regex
const REMOVED = /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f\u00ad\u180e\u200b\u2060-\u2064\u202a-\u202e\u2066-\u2069\ufeff\ufff9-\ufffb]/g;
const SPACES = / {2,}/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text from a person, as the room keeps it: NFC, one line, no controls or bidi overrides. */
export const cleanText = (text: string): string => text.replace(LONE_SURROGATE, '\ufffd').normalize('NFC').replace(REMOVED, '').replace(BREAKS, ' ').replace(SPACES, ' ').trim();

/** Any stored text, as an export prints it (the same rules: old logs may hold raw text). */
export const printable = cleanText;
