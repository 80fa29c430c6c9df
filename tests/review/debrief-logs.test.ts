/**
 * Issue 25: a debrief that only says what happened. Hand-built session logs (answered, dodged,
 * interrupted, typed-only, spoken, paused, and nobody speaking), each read through the report as
 * the server builds it; every observation is checked against its log: it cites at least one moment,
 * each moment is when something was said or someone cut in, and what it claims is true of the log.
 * The written feedback (offline) and the question box are checked against the same logs.
 */
import { describe, expect, it } from 'vitest';
import type { SessionEvent, UtteranceEvent } from '../../shared/events';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { debriefOf } from '../../server/review/debrief';
import { answer, feedback } from '../../server/review/feedback';
import { linesOf } from '../../server/review/model';
import { reportOf } from '../../server/review/report';
import { type Report } from '../../shared/review/report';

const start: SessionEvent = {
  seq: 0,
  t: 0,
  type: 'session-start',
  scene: 'interview',
  title: 'Interview',
  seed: 1,
  policy: 'round-robin',
  participants: [
    { id: 'alex', name: 'Alex Moreno', kind: 'human', present: true, speakingRate: 150 },
    { id: 'hannah', name: 'Hannah Okafor', kind: 'ai', present: false, speakingRate: 150 },
    { id: 'raj', name: 'Raj Malhotra', kind: 'ai', present: false, speakingRate: 150 },
  ],
};

/** A log built line by line at given times (seconds); a human's line is typed unless it has `spoken` times. */
const logOf = (build: (at: Builder) => void): SessionEvent[] => {
  const events: SessionEvent[] = [start];
  let seq = 0;
  const at: Builder = {
    say: (s, speaker, text, extra = {}) => {
      const id = `u${++seq}`;
      const human = speaker === 'alex';
      events.push({ type: 'utterance', seq, t: s * 1000, id, speaker, text, addressee: null, pair: 'none', act: 'statement', snippet: 'main', source: human ? 'human' : 'ai', durationMs: 0, ...extra } satisfies UtteranceEvent);
      return id;
    },
    ask: (s, speaker, text) => at.say(s, speaker, text, { addressee: 'alex', pair: 'question', act: 'question' }),
    speak: (from, to, text, extra = {}) => at.say(to, 'alex', text, { spoken: { start: from * 1000, end: to * 1000 }, durationMs: (to - from) * 1000, ...extra }),
    event: (s, event) => events.push({ ...event, seq: ++seq, t: s * 1000 } as SessionEvent),
  };
  build(at);
  events.push({ type: 'end', seq: ++seq, t: events.at(-1)!.t + 1000, reason: 'ended', turns: events.filter((e) => e.type === 'utterance').length });
  return events;
};
interface Builder {
  say: (s: number, speaker: string, text: string, extra?: Partial<UtteranceEvent>) => string;
  ask: (s: number, speaker: string, text: string) => string;
  speak: (from: number, to: number, text: string, extra?: Partial<UtteranceEvent>) => string;
  event: (s: number, event: Record<string, unknown>) => void;
}

const logs = {
  answered: logOf((at) => {
    at.ask(0, 'hannah', 'Alex, how many clinics did your reminder redesign reach?');
    at.say(6, 'alex', 'About 340 clinics got the new reminders within two months of launch.');
    at.ask(12, 'raj', 'Alex, why did you pick SMS over push notifications?');
    at.say(18, 'alex', 'Because most patients over sixty never enable push, and SMS reached them reliably.');
  }),
  dodged: logOf((at) => {
    at.ask(0, 'hannah', 'Alex, why did you leave your last company?');
    at.say(5, 'alex', 'Pass.');
    at.ask(10, 'raj', 'Alex, how would you handle an estimate you think is wrong?');
    at.say(16, 'alex', 'Um, well, that is a big question, and I think, like, it really depends on a lot of things, you know.');
    at.ask(24, 'hannah', 'Alex, how many people did you manage?');
    at.say(29, 'alex', 'Four engineers and a designer reported to me.');
  }),
  interrupted: logOf((at) => {
    const long = at.say(0, 'hannah', 'Let me walk you through how the booking flow works today and where it creaks, starting with reminders.');
    at.event(3, { type: 'interruption', by: 'alex', of: 'hannah', utterance: long, vibe: 'barge-in', atWord: 8, atMs: 2500 });
    at.speak(3, 7, 'Sorry, can I ask how reminders are sent now, by text or email?');
    at.say(8, 'hannah', 'By text, mostly, and a few clinics still phone their patients.');
  }),
  typed: logOf((at) => {
    at.ask(0, 'hannah', 'Alex, how many clinics did your reminder redesign reach?');
    at.say(30, 'alex', 'About 340 clinics got the new reminders, like, within two months of launch.');
    at.ask(40, 'raj', 'Alex, why did you pick SMS over push notifications?');
    at.say(70, 'alex', 'Because most patients over sixty never enable push, um, and SMS reached them reliably.');
  }),
  spoken: logOf((at) => {
    at.ask(0, 'hannah', 'Alex, what would you measure in your first week here?');
    at.speak(5, 15, 'I would look at the no-show rate by clinic and by how far ahead the slot was booked, because that is where reminders help the most.');
    at.ask(16, 'raj', 'Alex, when could a pilot start?');
    at.speak(20, 28, 'In about six weeks, um, after I have sat with two clinic front desks and read their complaints.');
  }),
  paused: logOf((at) => {
    at.ask(0, 'hannah', 'Alex, what would you measure in your first week here?');
    at.event(4, { type: 'system', level: 'info', code: 'paused', message: 'The session is paused.' });
    at.event(124, { type: 'system', level: 'info', code: 'resumed', message: 'The session resumed.' });
    at.speak(126, 136, 'I would look at the no-show rate by clinic and by how far ahead the slot was booked, because that is where reminders help the most.');
    at.say(137, 'raj', 'Okay.');
    at.event(140, { type: 'system', level: 'info', code: 'turn-skipped', message: "Raj's turn was skipped." });
    at.speak(200, 206, 'Can I ask what happened to the last product manager on this team?');
  }),
  nobody: logOf(() => {}),
};

/** Every time something was said or someone cut in: where a moment may point. */
const momentsOf = (report: Report) => new Set(report.timeline.filter((i) => i.kind === 'utterance' || i.kind === 'interruption').map((i) => i.startMs));

describe('every observation of the debrief, against hand-built logs', () => {
  for (const [name, log] of Object.entries(logs)) {
    it(`cites at least one moment of the ${name} log for each observation, and only moments that happened`, () => {
      const report = reportOf(log);
      const debrief = debriefOf(report, 'alex')!;
      expect(debrief.observations.length).toBeGreaterThan(0);
      const happened = momentsOf(report);
      for (const o of debrief.observations) {
        expect(o.moments.length, `${name}: ${o.id}`).toBeGreaterThan(0);
        // The empty session has nothing to point at but its start.
        for (const m of o.moments) expect(happened.has(m.startMs) || (name === 'nobody' && m.startMs === 0), `${name}: ${o.id} at ${m.label}`).toBe(true);
      }
    });
  }

  it('counts a non-answer and a reply that turns the question aside as dodges, never as answers', () => {
    const debrief = debriefOf(reportOf(logs.dodged), 'alex')!;
    expect(debrief.questions.put.map((q) => q.outcome)).toEqual(['non-answer', 'evasive', 'answered']);
    expect(debrief.questions.byContent).toEqual({ questions: 3, answered: 1, partly: 0, not: 2 });
    const dodged = debrief.observations.find((o) => o.id === 'dodged')!;
    expect(dodged.text).toMatch(/^You turned aside 2 questions of the 3 put to you by name; the first, Hannah's at 0:00 .*got “Pass\.”, a non-answer\./);
    expect(dodged.moments.map((m) => m.startMs)).toEqual([0, 10_000]);
    expect(debrief.observations.some((o) => o.id === 'questions-ok')).toBe(false);
  });

  it('says every question was answered only when each reply gave what was asked', () => {
    const debrief = debriefOf(reportOf(logs.answered), 'alex')!;
    expect(debrief.questions.put.map((q) => q.outcome)).toEqual(['answered', 'answered']);
    expect(debrief.observations.find((o) => o.id === 'questions-ok')?.text).toBe('Your replies answered all 2 questions put to you by name: each gave what was asked.');
    expect(debrief.observations.some((o) => o.id === 'dodged' || o.id === 'unanswered')).toBe(false);
  });

  it('gives typed lines no pace, fillers or pauses, and says so', () => {
    const debrief = debriefOf(reportOf(logs.typed), 'alex')!;
    expect(debrief.lines).toMatchObject({ typed: 2, speech: 0 });
    expect(debrief.speech).toMatchObject({ turns: 0, wordsPerMinute: null, fillersPerMinute: null, responseMs: { median: null, samples: 0 }, longestPause: null });
    expect(debrief.unmeasured).toBe('typed — no pace measured');
    const texts = debrief.observations.filter((o) => o.id !== 'typed').map((o) => o.text).join(' ');
    expect(texts).not.toMatch(/words per minute|filler|pause|promptly/);
    expect(debrief.observations.find((o) => o.id === 'typed')?.moments.map((m) => m.startMs)).toEqual([30_000, 70_000]);
  });

  it('measures pace, fillers and pauses on speech', () => {
    const debrief = debriefOf(reportOf(logs.spoken), 'alex')!;
    // 26 + 18 words in 18 s of speech; one "um"; a reply after each question.
    expect(debrief.speech.words).toBe(44);
    expect(debrief.speech.wordsPerMinute).toBe(146.7);
    expect(debrief.speech.fillers.count).toBe(1);
    expect(debrief.speech.responseMs.samples).toBe(2);
    expect(debrief.unmeasured).toBeNull();
    expect(debrief.observations.some((o) => o.id === 'typed')).toBe(false);
  });

  it("leaves the instructor's pause and a skipped turn out of the pauses", () => {
    const debrief = debriefOf(reportOf(logs.paused), 'alex')!;
    // Hannah's question ends at 0:04 (10 words at 150 a minute), Alex speaks at 2:06: 122 s, of which the pause held 120 s.
    // His line at 3:20 came after Raj's skipped turn: not counted.
    expect(debrief.speech.responseMs.samples).toBe(1);
    expect(debrief.speech.longestPause!.ms).toBe(2_000);
    expect(debrief.observations.some((o) => o.id === 'slow-response')).toBe(false);
  });

  it('says when nobody spoke, and when the seat did not', async () => {
    const none = debriefOf(reportOf(logs.nobody), 'alex')!;
    expect(none.observations.map((o) => [o.id, o.tone])).toEqual([['silent', 'note']]);
    expect(none.observations[0]!.text).toBe('Nobody spoke in this session, so there is nothing to measure yet.');
    const quiet = reportOf(logOf((at) => at.ask(0, 'hannah', 'Alex, are you there?')));
    const silent = debriefOf(quiet, 'alex')!;
    expect(silent.observations[0]!.text).toMatch(/^You did not speak in this session, though 1 question was put to you by name/);
    const written = await feedback(quiet, linesOf(quiet), 'alex', createScriptedGenerator());
    expect(written.paragraph).toBe(silent.observations[0]!.text);
    expect(written.moments.map((m) => m.startMs)).toEqual([0]);
  });

  it('writes feedback that agrees with the debrief', async () => {
    for (const log of Object.values(logs)) {
      const report = reportOf(log);
      const debrief = debriefOf(report, 'alex')!;
      const written = await feedback(report, linesOf(report), 'alex', createScriptedGenerator());
      if (debrief.speech.wordsPerMinute === null) expect(written.paragraph).not.toMatch(/\d+ words per minute/);
      else expect(written.paragraph).toContain(`${Math.round(debrief.speech.wordsPerMinute)} words per minute`);
      const improve = debrief.observations.find((o) => o.tone === 'improve');
      if (improve && debrief.you.turns > 0) expect(written.paragraph).toContain(improve.text.slice(1));
      if (debrief.questions.byContent && debrief.questions.put.length > 1) expect(written.paragraph).toContain(`answered ${debrief.questions.byContent.answered} of ${debrief.questions.put.length} questions`);
    }
  });
});

describe('the question box, against hand-built logs', () => {
  const ask = (question: string, log: SessionEvent[]) => {
    const report = reportOf(log);
    return answer(question, linesOf(report), 'alex', createScriptedGenerator(), undefined, report);
  };

  it('finds the dodges: the questions put to the trainee and the replies that turned them aside', async () => {
    const found = await ask('When did I dodge a question?', logs.dodged);
    expect(found.answer).toMatch(/^You turned aside 2 of the 3 questions put to you by name/);
    expect(found.moments.map((m) => m.text)).toEqual(['Alex, why did you leave your last company?', 'Pass.', 'Alex, how would you handle an estimate you think is wrong?', 'Um, well, that is a big question, and I think, like, it really depends on a lot of things, you know.']);
  });

  it('says when it finds no dodge', async () => {
    const found = await ask('When did I dodge a question?', logs.answered);
    expect(found.answer).toBe('I found no dodge: none of the 2 questions put to you by name got a non-answer or was turned aside.');
    expect(found.moments).toEqual([]);
  });

  it('answers about one asker when the question names them', async () => {
    const found = await ask('Did I answer Raj?', logs.dodged);
    expect(found.answer).toMatch(/^Your reply did not answer the question put to you by Raj: at 0:10 Raj asked/);
    expect(new Set(found.moments.map((m) => m.speaker))).toEqual(new Set(['raj', 'alex']));
  });

  it('says typed lines have no pace or pauses', async () => {
    expect((await ask('Was my pace too fast?', logs.typed)).answer).toBe('No pace was measured: your lines were typed, and pace is measured on speech only.');
    expect((await ask('When did I pause the longest?', logs.typed)).answer).toBe('No pauses were measured: your lines were typed, and pauses are measured on speech only.');
  });

  it('answers a question in another language, or of 2,000 characters, plainly', async () => {
    const foreign = await ask('¿Cuándo evité una pregunta de la entrevistadora?', logs.dodged);
    expect(foreign.answer).toMatch(/^The question box reads questions in English/);
    expect(foreign.moments).toEqual([]);
    const long = await ask('weather on Mars '.repeat(125), logs.dodged);
    expect(long.answer).toBe('Nothing in the transcript looks related to that question.');
    expect(long.moments).toEqual([]);
  });
});

describe("the questions a detective's debrief counts", () => {
  it('leaves out offers to be asked and requests put to an asker: only the questions put to the detective', async () => {
    const { loadScene } = await import('../../server/scene/load');
    const scene = await loadScene('scenes/murder-mystery.yaml');
    let seq = 0;
    const line = (s: number, speaker: string, text: string, extra: Partial<UtteranceEvent> = {}): UtteranceEvent => ({
      type: 'utterance', seq: ++seq, t: s * 1000, id: `u${seq}`, speaker, text, addressee: null, pair: 'none', act: 'statement', snippet: 'main', source: speaker === 'kit' ? 'human' : 'ai', durationMs: 3000, ...extra,
    });
    const log: SessionEvent[] = [
      { seq: 0, t: 0, type: 'session-start', scene: scene.id, title: scene.title, seed: 1, policy: 'round-robin', participants: scene.participants.map((p) => ({ id: p.id, name: p.name, kind: p.kind, present: p.id === 'kit', speakingRate: 150 })) },
      line(0, 'kit', 'Agnes, where were you at half past nine?', { addressee: 'agnes', pair: 'question', act: 'question' }),
      line(5, 'agnes', 'In the kitchen, washing up. What else can I tell you, Kit?', { addressee: 'kit', pair: 'question', act: 'answer', replyTo: 'u1' }),
      line(10, 'kit', 'Who else was in the kitchen?', { addressee: 'agnes', pair: 'question', act: 'question' }),
      line(14, 'agnes', 'Nobody, sir.', { addressee: 'kit', act: 'answer', replyTo: 'u3' }),
      line(18, 'vivian', 'Kit, please find out who did this to my husband.', { addressee: 'kit', pair: 'request', act: 'request' }),
      line(22, 'kit', 'I will. Mrs. Ashcombe, did you argue with Henry that night?', { addressee: 'vivian', pair: 'question', act: 'question' }),
      line(26, 'vivian', 'We argued about the will, yes. Kit, why would I hurt him?', { addressee: 'kit', pair: 'question', act: 'answer', replyTo: 'u6' }),
      line(30, 'kit', 'People hurt each other over wills every day.'),
      { seq: ++seq, t: 31_000, type: 'end', reason: 'ended', turns: 8 },
    ];
    const report = reportOf(log, scene);
    expect(report.participants.find((p) => p.id === 'kit')?.asks).toBe(true);
    expect(report.participants.find((p) => p.id === 'agnes')?.asks).toBeUndefined();
    const debrief = debriefOf(report, 'kit')!;
    // Vivian's question is the only one put to Kit: the offer and the request are not.
    expect(debrief.questions.put.map((q) => q.text)).toEqual(['We argued about the will, yes. Kit, why would I hurt him?']);
    expect(debrief.questions.byContent?.questions).toBe(1);
    // The report's own figure for Kit counts the same one question.
    expect(report.participants.find((p) => p.id === 'kit')?.answersGiven?.questions).toBe(1);
  });
});
