/**
 * Answers a reader would call answers (the scripted generator, no key): a persona asked why they
 * did what their backstory says they did gives the reason; a request to act is taken on or turned
 * down; asked for their take, they give their view; asked what they meant, they say it again more
 * plainly. Each is read over many variants: no variant may fall back on "I don't know".
 */
import { describe, expect, it } from 'vitest';
import type { PairType } from '../../../../shared/events';
import type { Cue } from '../../../engine/requests';
import { quietCue } from '../../../../tests/fakes/cue';
import { complete } from '../port';
import { createScriptedGenerator } from '../scripted';
import { deedOf } from './material';
import { loadScene } from '../../../scene/load';

const generator = createScriptedGenerator();
const variants = Array.from({ length: 12 }, (_, i) => (i * 0.6180339887) % 1);

/** The sprint retro as shipped: Ana, its designer, is asked by Riley, the trainee. */
const retro = await loadScene('scenes/sprint-retro.yaml');
const seat = (id: string) => retro.participants.find((p) => p.id === id)!;
const { persona } = seat('ana');

const ana = (question: string, overrides: Partial<Cue> = {}, pair: PairType = 'question'): Cue => ({
  ...quietCue,
  speaker: { id: 'ana', name: seat('ana').name, shortName: 'Ana', role: seat('ana').role, backstory: persona!.backstory, mood: persona!.mood, traits: persona!.traits },
  participants: ['ana', 'riley'].map((id) => ({ id, name: seat(id).name, shortName: seat(id).shortName!, kind: seat(id).kind })),
  topic: retro.topic,
  snippet: { id: 'what-happened', goal: 'Find out why the sprint slipped', pattern: 'neutral' },
  act: 'answer',
  addressee: { id: 'riley', shortName: 'Riley' },
  obligation: { pair, from: 'riley', fromShortName: 'Riley', text: question },
  lastMessage: { speaker: 'riley', shortName: 'Riley', text: question },
  facts: [],
  goals: persona!.goals,
  bank: { questions: [], points: persona!.points },
  human: { id: 'riley', shortName: 'Riley', text: question },
  variant: 0,
  ...overrides,
});

const answers = (cue: Cue) =>
  Promise.all(variants.map((variant) => complete(generator, { purpose: 'utterance', system: '', prompt: '', temperature: 0.9, json: false, maxTokens: 100, cue: { ...cue, variant } })));

const notKnowing = /\b(don't know|do not know|not sure|couldn't say|no idea|can't help|can't answer|guessing|wondered that|outside what I know|haven't got a good answer|either way)\b/i;

describe('what a persona has done answers questions about it', () => {
  it('puts the relative clause of a backstory in the first person', () => {
    expect(deedOf("I'm a designer who changed the flow twice after user tests showed people abandoning the booking.")).toBe(
      'I changed the flow twice after user tests showed people abandoning the booking.',
    );
    expect(deedOf("I'm a staff engineer who has kept the booking system running for seven years.")).toBe('I have kept the booking system running for seven years.');
    expect(deedOf("I'm a sustainability officer for a mid-size city who needs evidence for the council.")).toBe('I need evidence for the council.');
    expect(deedOf("I'm a research scientist who negotiates data access.")).toBe('I negotiate data access.');
    expect(deedOf("I'm a designer, two years out of school.")).toBeUndefined();
  });

  it('gives Ana’s reason when she is asked why the design changed, in every variant', async () => {
    for (const said of await answers(ana('Ana, why did the design change twice during the sprint?'))) {
      expect(said).not.toMatch(notKnowing);
      expect(said).toMatch(/user tests/);
    }
  });

  it('takes on or turns down a request to do something, never answers it "I couldn’t say either way"', async () => {
    for (const said of [...(await answers(ana('Oh, could you write up the redesigned booking flow for everyone, Ana?'))), ...(await answers(ana('Honestly, Ana, could you write up the redesigned booking flow for everyone?')))]) {
      expect(said).not.toMatch(notKnowing);
      expect(said).toMatch(/\b(sure|happy to|leave it with me|of course|I will|rather not|cannot commit)\b/i);
    }
  });

  it('gives her own view when asked for her take', async () => {
    for (const said of await answers(ana('Riley here: what is your take on the old booking flow, Ana?'))) {
      expect(said).not.toMatch(notKnowing);
      expect(said).toMatch(/user tests|old flow|abandoning/);
    }
  });

  it('says what she meant by her own words again, more plainly', async () => {
    const cue = ana('Sorry, Ana, what did you mean by the hard part?', { said: ['Honestly, I see the evidence differently. My worry: the re-plan skips the hard part, which is telling people early.'] });
    for (const said of await answers(cue)) {
      expect(said).not.toMatch(notKnowing);
      expect(said).toMatch(/the re-plan skips the hard part, which is telling people early/);
    }
  });

  it('reads the question a line asks from its last clause first: "When an engineer says no, what is your next move?" asks what', async () => {
    const { understand } = await import('../../../engine/understanding');
    expect(understand("When an engineer tells you a date is impossible, what's your next move, Alex?").type).toBe('what');
    expect(understand('When, realistically, will staging be green?').type).toBe('when');
    expect(understand('Ben, when the migration ran, who was on call?').type).toBe('who');
  });

  it('picks up what was asked about without an adverb stuck to it: "the design change", not "the design change twice"', async () => {
    const { nounPhrases } = await import('./phrases');
    const phrases = nounPhrases('Ana, why did the design change twice during the sprint?', new Set(['ana']));
    expect(phrases).toContain('the design change');
    expect(phrases.some((p) => /twice/.test(p))).toBe(false);
  });
});

