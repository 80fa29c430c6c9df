/**
 * Issue 25, one clock, one order: logs with typed, spoken, cut and instructor lines (and one as an
 * older version wrote it, a typed line dated at the end of the speech it cut) give the same lines,
 * in the same order, at the same times and in the same number in the report (the review, the
 * debrief), the readable transcript, every export (JSON, Markdown, WebVTT, CSV), the 3D replay and
 * the ended page's count; no line before the line it answers.
 */
import { describe, expect, it } from 'vitest';
import { placeEvents } from '../../client/src/replay/replay';
import { transcriptCsvOf, transcriptJsonOf, transcriptMarkdownOf, transcriptOf, transcriptVttOf } from '../../server/api/transcript';
import type { SessionEvent } from '../../shared/events';
import { recordOf } from '../../shared/review/record';
import { readLog, reportOf } from '../../server/review/report';
import { type Report } from '../../shared/review/report';
import { lineMaker } from '../fakes/utterances';

type Line = Extract<SessionEvent, { type: 'utterance' }>;
const participants = [
  { id: 'alex', name: 'Alex', kind: 'human' as const, present: true, speakingRate: 150 },
  { id: 'raj', name: 'Raj', kind: 'ai' as const, present: false, speakingRate: 150 },
  { id: 'hannah', name: 'Hannah', kind: 'ai' as const, present: false, speakingRate: 150 },
];
/** The lobby took 5 s: the session starts at 5000 on the log's clock. */
const T0 = 5000;
const start: SessionEvent = { seq: 1, t: T0, type: 'session-start', scene: 'job-interview', title: 'Interview', seed: 1, pace: 'realtime', policy: 'round-robin', participants };
const make = lineMaker();
const line = (seq: number, t: number, id: string, speaker: string, text: string, more: Partial<Line> = {}): Line =>
  make(speaker, text, { seq, t: T0 + t, id, source: participants.find((p) => p.id === speaker)!.kind === 'human' ? 'human' : 'ai', durationMs: 2000, ...more });

/**
 * Raj talks about the chatbot (heard from 10 s for 12 s); Alex cuts him off by typing at 14 s (his
 * audio stopped 4 s in); the engine's clock had run on to the end of Raj's speech (22.4 s), where
 * it dated Alex's line; Raj answers, heard from 16 s. Then Alex speaks (VAD 25-28 s, transcribed at
 * 29.5 s), the instructor (in Hannah's seat) types at 31 s, a turn is skipped, Hannah's scripted
 * closing, the end.
 */
const log = (typedSentAt: boolean): SessionEvent[] => [
  start,
  { seq: 2, t: T0, type: 'snippet-start', snippet: 'main', title: 'Questions', turns: 6, initiator: 'raj' },
  line(3, 9000, 'u1', 'raj', 'We are building a full chatbot for the booking flow.', { spoken: { start: T0 + 10_000, end: T0 + 14_000 }, durationMs: 4000, interrupted: true }),
  { seq: 4, t: T0 + 22_400, type: 'interruption', by: 'alex', of: 'raj', utterance: 'u1', vibe: 'barge-in', atWord: 5, atMs: 4000 },
  { seq: 5, t: T0 + 22_400, type: 'floor', speaker: 'alex', reason: 'human' },
  line(6, 22_400, 'u2', 'alex', 'Why a chatbot and not a better form?', { pair: 'question', addressee: 'raj', durationMs: 0, ...(typedSentAt ? { sentAt: T0 + 14_000 } : {}) }),
  line(7, 25_000, 'u3', 'raj', 'Because the full chatbot handles the long tail of requests.', { addressee: 'alex', act: 'answer', replyTo: 'u2', spoken: { start: T0 + 16_000, end: T0 + 20_000 }, durationMs: 4000 }),
  { seq: 8, t: T0 + 25_100, type: 'backchannel', participant: 'hannah', to: 'raj', utterance: 'u3', kind: 'nod' },
  line(9, 29_500, 'u4', 'alex', 'I see, and who maintains it?', { pair: 'question', addressee: 'raj', spoken: { start: T0 + 25_000, end: T0 + 28_000 }, durationMs: 3000 }),
  line(10, 30_000, 'u5', 'raj', 'My team does, with support on call.', { addressee: 'alex', act: 'answer', replyTo: 'u4', spoken: { start: T0 + 30_000, end: T0 + 32_500 }, durationMs: 2500 }),
  line(11, 33_000, 'u6', 'hannah', 'Let us move on to your questions for us.', { source: 'instructor', ...(typedSentAt ? { sentAt: T0 + 31_000 } : {}) }),
  { seq: 12, t: T0 + 36_000, type: 'system', level: 'info', code: 'turn-skipped', message: "Alex's turn was skipped." },
  line(13, 36_400, 'u7', 'hannah', 'Thank you for coming in today.', { source: 'scripted' }),
  { seq: 14, t: T0 + 39_000, type: 'end', reason: 'ended', turns: 8 },
];

const ids = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7'];
const texts = (events: readonly SessionEvent[]) => ids.map((id) => (events.find((e) => e.type === 'utterance' && e.id === id) as Line).text);
const clock = (ms: number) => `${String(Math.floor(ms / 60_000)).padStart(2, '0')}:${String(Math.floor(ms / 1000) % 60).padStart(2, '0')}`;

/** Every format's lines: [text, start ms (or the clock's whole seconds)] in the order it gives them. */
const formats = (events: SessionEvent[], report: Report) => {
  const text = transcriptOf(events, undefined, { role: 'observer', participant: null })
    .split('\n')
    .flatMap((l) => {
      const m = /^\[(\d\d:\d\d)\] \w+(?: → \w+)?: (.*)$/.exec(l);
      return m ? [{ text: m[2]!, at: m[1]! }] : [];
    });
  const markdown = transcriptMarkdownOf(report)
    .split('\n')
    .flatMap((l) => {
      const m = /^\\\[(\d\d:\d\d)\\\] \*\*\w+\*\*(?: → \w+)?: (.*?) {2}$/.exec(l);
      return m ? [{ text: m[2]!, at: m[1]! }] : [];
    });
  const vtt = transcriptVttOf(report)
    .split('\n\n')
    .flatMap((cue) => {
      const m = /(\d\d):(\d\d):(\d\d)\.(\d{3}) --> .*\n<v \w+>(.*)/.exec(cue);
      return m ? [{ text: m[5]!, startMs: ((+m[1]! * 60 + +m[2]!) * 60 + +m[3]!) * 1000 + +m[4]! }] : [];
    });
  const csv = transcriptCsvOf(report)
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((row) => {
      // RFC 4180: a quoted field may hold commas, its quotes doubled.
      const [startMs, , , , , text] = [...row.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => m[1]!.replace(/^"|"$/g, '').replace(/""/g, '"'));
      return { text: text!, startMs: +startMs! };
    });
  const json = transcriptJsonOf(report).lines.map((l) => ({ text: l.text, startMs: l.startMs }));
  const timeline = report.timeline.filter((i) => i.kind === 'utterance').map((i) => ({ text: i.text!, startMs: i.startMs }));
  const replay = placeEvents(events, report).flatMap(({ at, event }) => (event.type === 'utterance' ? [{ text: event.text, startMs: at }] : []));
  return { text, markdown, vtt, csv, json, timeline, replay };
};

describe('the record of a session with typed, spoken, cut and instructor lines', () => {
  for (const [name, typedSentAt] of [
    ['as this version logs it', true],
    ['as an older version logged it (typed lines without sentAt)', false],
  ] as const) {
    describe(name, () => {
      const events = readLog(log(typedSentAt));
      const report = reportOf(events);
      const record = recordOf(events);
      const all = formats(events, report);

      it('gives every line, in the log\'s order, in every format', () => {
        for (const [format, lines] of Object.entries(all)) expect(lines.map((l) => l.text), format).toEqual(texts(events));
      });

      it('gives every line the same start in every format, and never one before the line it follows', () => {
        const starts = record.lines.map((l) => l.startMs);
        for (const [format, lines] of Object.entries(all)) {
          if ('startMs' in lines[0]!) expect(lines.map((l) => (l as { startMs: number }).startMs), format).toEqual(starts);
          else expect(lines.map((l) => (l as { at: string }).at), format).toEqual(starts.map(clock));
        }
        for (let i = 1; i < starts.length; i++) expect(starts[i]).toBeGreaterThanOrEqual(starts[i - 1]!);
        // The answer is never placed before its question.
        const at = new Map(record.lines.map((l) => [l.event.id, l.startMs]));
        for (const l of record.lines) if (l.event.replyTo) expect(l.startMs).toBeGreaterThanOrEqual(at.get(l.event.replyTo)!);
      });

      it('counts the lines the same everywhere: the report, the ended page, the transcript\'s end', () => {
        expect(report.turns).toBe(7);
        expect(record.turns).toBe(7);
        expect(transcriptOf(events, undefined, { role: 'observer', participant: null })).toContain('— end (ended), 7 turns —');
        expect(report.timeline.find((i) => i.code === 'end')!.text).toBe('The session ended (ended) after 7 turns.');
        expect(transcriptMarkdownOf(report)).toContain('after 7 turns');
      });
    });
  }

  it('places a typed line when it was sent, a spoken one at its voice\'s start, a persona\'s at its first audio', () => {
    const events = readLog(log(true));
    const record = recordOf(events);
    expect(record.lines.map((l) => [l.event.id, l.startMs])).toEqual([
      ['u1', 10_000],
      // Typed at 14 s, where Raj's audio stopped; not at 22.4 s, where the engine's clock stood.
      ['u2', 14_000],
      ['u3', 16_000],
      ['u4', 25_000],
      ['u5', 30_000],
      ['u6', 31_000],
      ['u7', 36_400],
    ]);
    // The barge-in where Raj's speech stopped; the nod within Raj's answer; the skip between the lines around it.
    expect(record.place(events.find((e) => e.type === 'interruption')!)).toBe(14_000);
    expect(record.place(events.find((e) => e.type === 'backchannel')!)).toBe(16_100);
    expect(record.place(events.find((e) => e.type === 'system')!)).toBe(36_000);
  });

  it('keeps an older log\'s typed line in its place after the speech it cut, and the reply to it after it', () => {
    const record = recordOf(readLog(log(false)));
    const [, typed, reply] = record.lines;
    // The older log dated the typed line at 22.4 s, after its reply's first audio at 16 s: the reply moves to it.
    expect([typed!.startMs, reply!.startMs]).toEqual([22_400, 22_400]);
    expect(reportOf(readLog(log(false))).timeline.filter((i) => i.kind === 'utterance').map((i) => i.utterance)).toEqual(ids);
  });

  it('places a line typed while scripted lines wait to be heard before them, in every format', () => {
    // Hannah's two scripted lines are logged at once, dated where the engine expects them heard (19 s, 29 s); Alex typed at 11 s.
    const events = readLog([
      start,
      line(2, 9000, 'u1', 'raj', 'The team owns the booking flow.', { spoken: { start: T0 + 9000, end: T0 + 13_000 }, durationMs: 4000 }),
      line(3, 19_000, 'u2', 'hannah', 'I run product here.', { source: 'scripted' }),
      line(4, 29_000, 'u3', 'hannah', 'Tell us about your take-home.', { source: 'scripted' }),
      line(5, 37_000, 'u4', 'alex', 'And who decides on the chatbot?', { sentAt: T0 + 11_000 }),
    ]);
    const report = reportOf(events);
    const order = ['The team owns the booking flow.', 'And who decides on the chatbot?', 'I run product here.', 'Tell us about your take-home.'];
    for (const [format, lines] of Object.entries(formats(events, report))) expect(lines.map((l) => l.text), format).toEqual(order);
    expect(recordOf(events).lines.map((l) => l.startMs)).toEqual([9000, 11_000, 19_000, 29_000]);
  });

  it('places events before the start (the lobby) at 0 and an empty log at nothing', () => {
    const lobby: SessionEvent = { seq: 1, t: 100, type: 'system', level: 'info', code: 'joined', message: 'Alex joined.' };
    const record = recordOf([lobby, { ...start, seq: 2 }]);
    expect(record.place(lobby)).toBe(0);
    expect(recordOf([])).toMatchObject({ lines: [], turns: 0, durationMs: 0 });
  });
});
