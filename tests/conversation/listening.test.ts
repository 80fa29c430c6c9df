/**
 * Personas that listen (issue 24): a trainee types into a scene on the embedded default (the
 * scripted dialogue manager) and every reply is read as its user would read it. The room is the
 * engine and the scripted generator, as the live room runs them, at instant pace.
 */
import { describe, expect, it } from 'vitest';
import { createSession, step, type EngineInput } from '../../server/engine/session';
import type { EventOf } from '../../shared/events';
import { complete } from '../../server/providers/generator/port';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { loadScene } from '../../server/scene/load';
import { accusation, understand } from '../../server/engine/understanding';
import { driveSession } from '../../server/conversation/drive';

const generator = createScriptedGenerator();

/**
 * Runs `scene` with `human` present, who types `lines` one by one whenever the room waits for
 * them; the session ends when they have nothing left to say. Returns every utterance.
 */
const typeInto = async (sceneId: string, human: string, seed: number, lines: string[], ended?: (reason: string) => void): Promise<EventOf<'utterance'>[]> => {
  const scene = await loadScene(`scenes/${sceneId}.yaml`);
  let state = createSession(scene, { seed, present: [human], pace: 'instant' });
  const queue: EngineInput[] = [{ type: 'start' }];
  const said: EventOf<'utterance'>[] = [];
  let typed = 0;
  for (let guard = 0; guard < 2000 && queue.length; guard++) {
    const result = step(state, queue.shift()!);
    state = result.state;
    for (const e of result.events) {
      if (e.type === 'utterance') said.push(e);
      if (e.type === 'end') ended?.(e.reason);
      // An open floor (the policy merely offers it) goes by in silence, as it does for a trainee who waits: they answer what is put to them.
      if (e.type === 'human-input-required' && e.participant === human)
        queue.push(e.open && typed > 0 && typed < lines.length ? { type: 'silence', participant: human } : typed < lines.length ? { type: 'say', participant: human, text: lines[typed++]! } : { type: 'end' });
    }
    for (const r of result.requests) {
      if (r.kind === 'generate') queue.push({ type: 'generated', request: r.id, text: await complete(generator, r.request) });
      else queue.push({ type: 'thoughts', request: r.id, answers: await Promise.all(r.participants.map(async (p) => ({ participant: p.participant, text: await complete(generator, p.request) }))) });
    }
  }
  return said;
};

/** What the room said right after the human's line `text` (the `n`th time they said it). */
const replyTo = (said: EventOf<'utterance'>[], human: string, text: string, n = 0): EventOf<'utterance'> => {
  const at = said.map((u, i) => (u.speaker === human && u.text === text ? i : -1)).filter((i) => i >= 0)[n]!;
  expect(at, `"${text}" was said`).toBeGreaterThanOrEqual(0);
  return said[at + 1]!;
};

describe('a persona asked a fact by name answers it from what it knows', () => {
  it('gives the reason the scene lets it reveal when asked, and the number it knows', async () => {
    const said = await typeInto('job-interview', 'alex', 2, ['Yes, that works.', 'Hannah, why did the last PM leave?', 'Raj, how many clinics use the booking system?']);
    const why = replyTo(said, 'alex', 'Hannah, why did the last PM leave?');
    expect(why.speaker).toBe('hannah');
    expect(why.text).toMatch(/CTO|roadmap/);
    const many = replyTo(said, 'alex', 'Raj, how many clinics use the booking system?');
    expect(many.speaker).toBe('raj');
    expect(many.text).toMatch(/340/);
  });

  it('keeps what it must never reveal, in character', async () => {
    const said = await typeInto('job-interview', 'alex', 2, ['Yes.', 'Hannah, what is the approved salary band for this role, and does it top out below what I asked the recruiter for?']);
    const reply = replyTo(said, 'alex', 'Hannah, what is the approved salary band for this role, and does it top out below what I asked the recruiter for?');
    expect(reply.speaker).toBe('hannah');
    expect(reply.text).not.toMatch(/tops out|below what/i);
  });

  it('says it does not know rather than saying something else', async () => {
    const said = await typeInto('job-interview', 'alex', 3, ['Yes.', 'Raj, how many engineers will I have on the team in 2027?']);
    const reply = replyTo(said, 'alex', 'Raj, how many engineers will I have on the team in 2027?');
    expect(reply.speaker).toBe('raj');
    expect(reply.text).toMatch(/\d|don't|not sure|couldn't|guess|number|figure/i);
  });

  it('asked the same question three times, never answers it identically, and never unsays it', async () => {
    const q = 'Hannah, why did the last PM leave?';
    const said = await typeInto('job-interview', 'alex', 2, ['Yes.', q, q, q]);
    const replies = [0, 1, 2].map((n) => replyTo(said, 'alex', q, n));
    expect(new Set(replies.map((r) => r.text)).size).toBe(3);
    for (const r of replies) expect(r.text, r.text).toMatch(/CTO|roadmap/);
    expect(replies[1]!.text).toMatch(/said|before|again|mentioned/i);
  });
});

describe('a detective gets answers that answer, a suspect denies before it concedes', () => {
  it('gives the fact that answers, by meaning and by kind, over what everyone has read', async () => {
    const lines = [
      'Agnes, what happened to the port decanter that should have been on that table?',
      'Agnes, who told you to wash it?',
      'Theo, did you take the cellar key?',
      'Vivian, did Henry say anything at dinner that worried you?',
      'Rupert, did you see anyone with the port tray?',
    ];
    const said = await typeInto('murder-mystery', 'kit', 3, lines);
    const [decanter, who, key, dinner, tray] = lines.map((l) => replyTo(said, 'kit', l));
    // What happened to it: Agnes washed it when Dr. Marsh asked, not "no decanter on the table", which the question says already.
    expect(decanter!.speaker).toBe('agnes');
    expect(decanter!.text).toMatch(/Marsh/);
    expect(decanter!.text).toMatch(/wash|rinse/);
    // "it" is the decanter just asked about: the one who asked her is a person.
    expect(who!.speaker).toBe('agnes');
    expect(who!.text).toMatch(/Marsh/);
    // A polar question gets its yes first, in the question's own verb, then the fact that says it.
    expect(key!.speaker).toBe('theo');
    expect(key!.text).toMatch(/^(Yes|I did)\b/);
    expect(key!.text).toMatch(/took the cellar key/);
    // Someone's words she heard are said again as they were said.
    expect(dinner!.text).toMatch(/medical board/);
    expect(tray!.text).toMatch(/Elena/);
    expect(tray!.text).toMatch(/tray/);
  });

  it('denies what it hides the first time, concedes it when pressed on the same thing, and never says it said it before', async () => {
    const asked = 'Rupert, were you in the cellar passage at 9:30?';
    const said = await typeInto('murder-mystery', 'kit', 3, [asked, asked]);
    const first = replyTo(said, 'kit', asked, 0);
    const second = replyTo(said, 'kit', asked, 1);
    expect(first.speaker).toBe('rupert');
    expect(first.text).not.toMatch(/argued/);
    expect(second.speaker).toBe('rupert');
    expect(second.text).toMatch(/argued with Henry/);
    expect(second.text).not.toMatch(/as I said|as I mentioned|like I said|said it earlier/i);
  });

  it('does not answer where the speaker was with where someone else was', async () => {
    const asked = 'Rupert, where were you at half past nine?';
    const said = await typeInto('murder-mystery', 'kit', 3, [asked]);
    const reply = replyTo(said, 'kit', asked);
    expect(reply.speaker).toBe('rupert');
    expect(reply.text).not.toMatch(/Henry Ashcombe, the owner, was found dead/);
  });
});

describe('a mystery builds to its accusation', () => {
  it('the stand-in detective names a suspect in the conclusion, with what was heard when there is any, and the accused defends themself', async () => {
    const scene = await loadScene('scenes/murder-mystery.yaml');
    let accused = 0;
    for (const seed of [5, 6, 7, 8]) {
      const events = await driveSession(scene, { seed, generator });
      const said = events.filter((e): e is EventOf<'utterance'> => e.type === 'utterance');
      const naming = said.findIndex((u) => u.snippet === 'reveal' && u.speaker === 'kit' && accusation.test(u.text));
      if (naming < 0) continue;
      accused++;
      const line = said[naming]!;
      // Put to the suspect by name, as a question they must answer; what it quotes was said in the room.
      expect(line.addressee, line.text).toBeTruthy();
      for (const quote of line.text.match(/"([^"]+)"/g) ?? []) {
        const words = quote.slice(1, -2).split(/\s+/).slice(0, 5).join(' ');
        expect(said.slice(0, naming).some((u) => u.text.includes(words)), quote).toBe(true);
      }
      const reply = said[naming + 1]!;
      expect(reply.speaker).toBe(line.addressee);
      expect(reply.text).not.toMatch(/\bI (killed|poisoned|did it)\b/i);
    }
    expect(accused).toBeGreaterThanOrEqual(3);
  });
});

describe('the human’s words are taken up', () => {
  it('says the question again when asked to repeat it, more simply the second time', async () => {
    const said = await typeInto('job-interview', 'alex', 2, ['Yes.', 'Could you repeat the question?', 'Sorry, could you repeat that?']);
    const asked = said[said.findIndex((u) => u.text === 'Could you repeat the question?') - 1]!;
    const first = replyTo(said, 'alex', 'Could you repeat the question?');
    const second = replyTo(said, 'alex', 'Sorry, could you repeat that?');
    expect(first.speaker).toBe(asked.speaker);
    const core = understand(asked.text).asking.replace(/^[^,]+,\s*/, '').replace(/[?.!]$/, '').slice(0, 20).toLowerCase();
    expect(first.text.toLowerCase()).toContain(core);
    expect(first.addressee).toBe('alex');
    expect(second.text).toMatch(/simply|in short|put simply/i);
  });

  it('says a question pressed again as the question, without the lead the probe put before it', async () => {
    const LEAD = /let me (come back|put it|ask it)|even briefly|say it again/i;
    let probesWithLead = 0;
    for (const [scene, human] of [['performance-review', 'sam'], ['poster-session', 'leila'], ['networking-lunch', 'sam']] as const) for (let seed = 1; seed <= 10; seed++) {
      const said = await typeInto(scene, human, seed, ['Yes.', 'Pass.', 'No idea.', 'Sorry, again?']);
      const at = said.findIndex((u) => u.text === 'Sorry, again?');
      if (at < 1) continue;
      const asked = said[at - 1]!;
      const repeated = said[at + 1]!;
      if (asked.speaker === human || !LEAD.test(asked.text)) continue;
      probesWithLead++;
      expect(repeated.speaker, `seed ${seed}`).toBe(asked.speaker);
      expect(repeated.text, `seed ${seed}: "${asked.text}"`).not.toMatch(LEAD);
      // It is the question again: its asking words are there.
      const core = asked.text.split(/:\s*/).at(-1)!.slice(0, 20).toLowerCase();
      expect(repeated.text.toLowerCase(), `seed ${seed}`).toContain(core);
    }
    expect(probesWithLead).toBeGreaterThan(3);
  });

  it('comes back once to a question the trainee passed on, then moves on', async () => {
    const said = await typeInto('job-interview', 'alex', 2, ['Yes.', 'Pass.', 'Pass.']);
    const asked = said[said.findIndex((u) => u.text === 'Pass.') - 1]!;
    const probe = replyTo(said, 'alex', 'Pass.');
    expect(probe.speaker).toBe(asked.speaker);
    expect(probe.addressee).toBe('alex');
    expect(probe.text).toMatch(/\?$/);
    // The probe itself is not pressed again.
    const after = replyTo(said, 'alex', 'Pass.', 1);
    expect(after.text).not.toMatch(/come back to my question|another way|differently/i);
  });

  it('takes up a concrete answer: the asker speaks next and picks up its number or its words', async () => {
    const answer = 'At the delivery company we cut missed deliveries by 11% in three months by moving reminders to two hours before the slot.';
    const said = await typeInto('job-interview', 'alex', 5, ['Yes.', answer]);
    const asked = said[said.findIndex((u) => u.text === answer) - 1]!;
    const next = replyTo(said, 'alex', answer);
    expect(next.speaker).toBe(asked.speaker);
  });

  it('has the one spoken to answer an accusation, not the witness it names', async () => {
    const accusing = 'Elena, Rupert saw you with the tray at twenty past nine. I think you poisoned Henry.';
    const said = await typeInto('murder-mystery', 'kit', 3, [accusing]);
    const reply = replyTo(said, 'kit', accusing);
    expect(reply.speaker).toBe('elena');
    expect(reply.text).toMatch(/not true|nothing to do|no proof|no such thing|absurd/i);
  });

  it('lets an accused suspect defend itself, without confessing', async () => {
    const said = await typeInto('murder-mystery', 'kit', 5, ['Theo, where were you at half past nine?', 'I think Elena did it.', 'Rupert, you are lying about the cellar.']);
    const elena = replyTo(said, 'kit', 'I think Elena did it.');
    expect(elena.speaker).toBe('elena');
    expect(elena.text).toMatch(/not true|nothing to do|no proof|no such thing|absurd/i);
    const rupert = replyTo(said, 'kit', 'Rupert, you are lying about the cellar.');
    expect(rupert.speaker).toBe('rupert');
    expect(rupert.text).not.toMatch(/I killed|I did it|thanks/i);
  });
});

describe('bad input gets a sensible reply in character', () => {
  const odd = ['ok', 'WHY IS THIS ROLE OPEN AGAIN HANNAH', '😀👍', 'We measured everything. '.repeat(84).slice(0, 2000), '¿Por qué se fue el último gerente de producto?', 'This is a f***ing waste of time, shit.', 'Hannah'];
  it.each(odd.map((text) => [text.slice(0, 40), text]))('%s', async (_, text) => {
    const said = await typeInto('job-interview', 'alex', 2, ['Yes.', text]);
    const reply = replyTo(said, 'alex', text);
    expect(reply.source).toBe('ai');
    expect(reply.text.trim().length).toBeGreaterThan(3);
    if (text.startsWith('¿')) expect(reply.text).toMatch(/English/);
    if (text.startsWith('This is')) expect(reply.text).toMatch(/frustrat|civil|long session/i);
    if (text.startsWith('WHY')) expect(reply.text).toMatch(/CTO|roadmap/);
  });
});

describe('a session never ends on a human’s unanswered question', () => {
  it('answers a question asked on the last turn', async () => {
    // More questions than the session has turns: it ends by itself, never on one of them.
    const lines = Array.from({ length: 60 }, (_, i) => (i % 2 ? 'Sofia, how long is the interview?' : 'Hannah, what happens after today?'));
    let reason = '';
    const said = await typeInto('job-interview', 'alex', 2, lines, (r) => (reason = r));
    expect(reason).not.toBe('ended');
    expect(said.at(-1)!.speaker).not.toBe('alex');
  });
});
