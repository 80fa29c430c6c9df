/**
 * Interjecting: cutting in on the last speaker, in the vibe of the interruption rule, and the
 * deviations a simulated human brings in (DialogLab §5.2.2: drift, extend, question, emotional).
 * A cut-in is short, picks up the words it cuts into, and makes its point in the same turn: a
 * bare floor grab ("Sorry, just one thing.") whose point never comes is the last resort.
 */
import { ranked } from '../material';
import { fill, shuffled } from '../compose';
import { firstNovel } from '../novel';
import type { Kind, Turn } from '../turn';
import { capitalise, contentWords, wordCount } from '../words';

/** Cut-ins by the vibe of the interruption rule. They say something; they do not ask for the floor. */
const cutIns = {
  supportive: ['Yes, exactly, {last}!', 'Sorry to cut in, but that is spot on.', 'Oh, I love that point about {x}.', 'Absolutely, {last}, yes.', 'Yes! {X}, absolutely.', 'Exactly, {x} is the whole thing.', 'Yes, and {m}', 'Exactly, {last}, and {m}', 'Absolutely, and {m}'],
  critical: ['Hold on, {last}, I am not sure that is right.', 'Sorry, I have to stop you there: that does not add up for me.', 'Wait, wait, that is not what I have seen.', 'Hang on, that seems too optimistic.', 'Hold on: {x} does not add up.', 'Wait, {last}: {x} is not the whole story.', 'Hang on: {m}', 'Wait, {last}: {m}', 'Hold on, {last}, because {m}'],
  neutral: ['Sorry, quick point before we move on.', 'Sorry to jump in, {last}: {m}', 'Just to add something on {x}.', 'Sorry, one thing on {x}.', 'Quick one on {x}, {last}.', 'Sorry, just to add: {m}', 'One thing, {last}: {m}'],
};

/** Cut-ins that need nothing from what was said, for any vibe. */
const plainCutIns = ['{last}, sorry to cut in.', 'Sorry, {last}, just one thing.', 'Hang on a second, {last}.', 'One thing before you go on, {last}.', 'If I can just add something here.', 'Sorry, let me just say one thing.', 'Wait, before we go further.'];

const vibeOf = (vibe: string | undefined): keyof typeof cutIns => {
  if (/support|agree|posit|enthus|excit|warm|eager/i.test(vibe ?? '')) return 'supportive';
  if (/critic|disagree|negat|skept|hostile|challeng|exasperat|catching|impatient|firm/i.test(vibe ?? '')) return 'critical';
  return 'neutral';
};

/** A cut-in is short: at most this many words. */
const CUT_IN_WORDS = 22;

export const interrupt = (turn: Turn): string => {
  const { rng, last } = turn;
  const pool = cutIns[vibeOf(turn.cue.vibe)];
  const xs = (last?.phrases ?? []).filter((p) => p.split(/\s+/).length <= 4);
  // A cut-in adds something of one's own, not a line from the shared documents.
  const short = ranked(turn.gathered.material, rng, { about: last?.words ?? new Set() }).filter(
    (m) => !m.used && wordCount(m.text) <= 16 && m.source !== 'content' && m.source !== 'context',
  );
  // The point first: a frame carrying one's own point, then a claim about what was said, then a bare cut-in.
  const carrying = pool.filter((f) => f.includes('{m}'));
  const claiming = pool.filter((f) => !f.includes('{m}') && f.includes('{x}'));
  function* drafts(): Generator<string | undefined> {
    for (const m of short.slice(0, 3)) {
      for (const frame of shuffled(carrying, rng)) {
        const text = fill(frame, { last: last?.shortName, m: `${m.clause}.` });
        if (text && wordCount(text) <= CUT_IN_WORDS) yield text;
      }
      for (const frame of shuffled(plainCutIns, rng).slice(0, 2)) {
        const text = fill(frame, { last: last?.shortName });
        if (text && wordCount(text) + wordCount(m.text) <= CUT_IN_WORDS) yield `${text} ${m.text}`;
      }
    }
    for (const x of xs.slice(0, 2)) {
      for (const frame of shuffled(claiming, rng)) yield fill(frame, { last: last?.shortName, x, X: capitalise(x) });
    }
    for (const frame of shuffled([...pool.filter((f) => !f.includes('{m}') && !f.includes('{x}')), ...plainCutIns], rng)) yield fill(frame, { last: last?.shortName });
  }
  return firstNovel(turn, drafts(), 'close');
};

type Intent = 'drift' | 'extend' | 'question' | 'emotional';

const offTopics: Record<Kind, string[]> = {
  deliberative: ['the new coffee machine on the third floor', 'the game last night', 'that article about four-day weeks', 'the office move next month', 'the parking situation', 'the team lunch on Friday'],
  social: ['the queue for coffee', 'the keynote this morning', 'the dessert table', 'the weather this weekend'],
  investigative: ['the storm outside', 'the state of the road', 'the lights flickering earlier', 'the dog barking all evening'],
  talk: ['the coffee at this venue', 'the poster next door', 'the conference dinner tonight', 'the weather this weekend'],
  interview: ['the view from this office', 'the traffic on the way in', 'the building next door', 'the weather this week'],
};

const deviations: Record<Intent, string[]> = {
  drift: [
    'Sorry, totally unrelated, but did anyone notice {off}?',
    'This reminds me of {off}, actually.',
    'Random thought: {off}. Anyway.',
    'Off topic, but I keep thinking about {off}.',
    'Completely different subject, but {off}, right?',
    'Can I just say, {off} has been on my mind all day.',
  ],
  extend: ['Building on that, what if we also looked at {x}?', 'And to add to it: {m}', 'One more angle on {x}: {m}', 'Can I take {x} one step further?', 'There is another side to {x}, too: {m}'],
  question: [
    'Wait, can someone explain what {x} would mean for us?',
    'Sorry, I am lost. How does {x} fit in?',
    'Quick question, {last}: what did you mean by {x}?',
    'Can I ask {ask}?',
    'Sorry, could someone explain that again?',
    'Wait, how does that work, exactly?',
  ],
  emotional: ['Honestly, this is getting a bit overwhelming for me.', 'I am feeling pretty {mood} about all this, to be honest.', 'I love where this is going!', 'This really matters to me, so I hope we get it right.', 'Sorry, {x} hits close to home for me.'],
};

export const deviate = (turn: Turn): string => {
  const { rng, last, kind, cue } = turn;
  const intent: Intent = cue.intent ?? 'extend';
  const xs = [...(last?.phrases ?? []), ...(turn.topic ? [turn.topic] : [])].slice(0, 3);
  const material = ranked(turn.gathered.material, rng, { about: last?.words ?? contentWords(cue.topic) }).slice(0, 3);
  const ask = turn.gathered.goals.find((g) => g.ask)?.ask;
  const mood = turn.voice.feeling ?? (intent === 'emotional' ? 'uneasy' : undefined);
  function* drafts(): Generator<string | undefined> {
    for (const x of [...xs, undefined]) {
      for (const frame of shuffled(deviations[intent], rng)) {
        for (const m of [...material, undefined]) {
          const text = fill(frame, { x, last: last?.shortName, m: m && `${m.clause}.`, ask, mood, off: rng.pick(offTopics[kind]) });
          if (text) yield text;
          if (!frame.includes('{m}')) break;
        }
      }
    }
  }
  return firstNovel(turn, drafts(), 'any');
};
