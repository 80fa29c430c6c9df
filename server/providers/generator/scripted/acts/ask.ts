/**
 * Asking: first pair parts addressed to `cue.addressee` (questions, requests, offers, greetings).
 *
 * A question asks about the scene's substance, in this order: a follow-up on the answerer's own
 * words when the engine plans one (`move: 'follow-up'`), the persona's authored question bank
 * (unused questions first), what the trainee just said, the persona's goals ("can I ask why the
 * last PM left?"), then what the context, the contents and the last answer are about.
 */
import type { Kind, Turn } from '../turn';
import { fill, line, marker, placement, shuffled, toName, withMarker } from '../compose';
import { chain, firstNovel, type Drafts } from '../novel';
import { nounPhrases } from '../phrases';
import { contentWords, escapeRegExp, lowerFirst, mentions, normalizeSpace, shared } from '../words';
import { normalizeLine } from '../../../../engine/novelty';

type Frames = { all: string[] } & Partial<Record<Kind, string[]>>;

const framesFor = (frames: Frames, kind: Kind): string[] => [...frames.all, ...(frames[kind] ?? [])];

/** Deeper questions on something the answerer just said (`{x}`, in their words): a small core, then by kind of meeting. */
const followUps: Frames = {
  all: ['and then what happened with {x}', 'how sure are you about {x}', 'who else knew about {x}'],
  investigative: ['who else knew about {x}', 'did anyone else see {x}', "why didn't you mention {x} before", 'when did you last see {x}', 'who could have got near {x}', 'what time was that, with {x}'],
  social: ['how did you end up working on {x}', "what's the best part of {x}", 'what surprised you most about {x}', 'is {x} what brought you here'],
  talk: ['how would {x} hold up somewhere else', 'what would it take to convince a sceptic about {x}', "what's the biggest limitation of {x}", 'how did you measure {x}', 'can you put a number on {x}'],
  deliberative: ["what's blocking {x} right now", 'who should own {x}', 'what has to be true for {x} to work', "what's the risk if we leave {x} as it is", 'what would you cut from {x} if you had half the time', "what's the smallest version of {x} that would still help"],
  interview: [
    'how did you measure the impact of {x}',
    'how did you bring engineering along on {x}',
    'what did you say no to on {x}',
    'what would you do differently on {x} today',
    'what would you cut from {x} if you had half the time',
    'what was the hardest part of {x}',
    'who pushed back on {x}, and what did you do',
    'what did {x} teach you',
  ],
};

/** Follow-ups that refer back with "that", after a sentence that names what was said. */
const bareFollowUps = ['and then what', 'what happened next', 'what would you do differently now', 'how did that land with the people around you', 'what did that cost you', "what's the evidence for that", 'who else knew', 'why that, and not something simpler'];

/** Picking up someone's words before asking about them. */
const pickups = ['You mentioned {x}.', 'Going back to {x}.', 'I want to stay with {x} for a second.', 'Let me pick up on {x}.', '{x}, you said.', 'Interesting, {x}.'];

/** Questions about something in the scene (`{x}`): a neutral core, then by kind of meeting. */
const aboutFrames: Frames = {
  all: ["what's your read on {x}", 'what do you make of {x}', 'how much does {x} matter, in your view', 'what would change your mind about {x}'],
  investigative: ['what do you know about {x}', 'when did you last see {x}', 'who else had anything to do with {x}', 'what did you notice about {x} that evening'],
  social: ['how did you get into {x}', "what's the most surprising thing about {x}", 'how does {x} look from where you sit'],
  talk: ['how robust is {x}, really', "what's the weakest link in {x}", 'how did you settle on {x}', 'what would you do with {x} given more data', 'how would you approach {x}'],
  deliberative: ["what's blocking {x}", 'who should own {x}', "what's the smallest next step on {x}", "what's the risk if we leave {x} as it is", "what's the one thing you'd change about {x}", 'where would you start with {x}'],
  interview: ['how have you handled {x} before', 'how would you explain {x} to a sceptical engineer', 'what would your first month look like on {x}', 'what did you learn the hard way about {x}', 'how would you approach {x}', 'what worries you most about {x}'],
};

/** Questions that need nothing from the scene, as a last resort. */
const plainQuestions: Frames = {
  all: ["what's your honest read on this", 'where do you stand on this', 'what would you add', 'what are we missing here'],
  investigative: ['where were you at the time', 'what did you see', 'what did you hear', "is there anything you haven't told us", 'who did you see last'],
  social: ['what do you work on', 'what brings you here', 'how did you end up in your line of work', "how are you finding the conference", "what's keeping you busy these days"],
  talk: ['what surprised you most in the results', "what's the next step for this work", 'how would this transfer to another setting', 'what would you do with more data'],
  deliberative: ["what's blocking you", 'what do you need from us', "what's the next step", 'how confident are you in the date'],
  interview: ['what are you proudest of in your last role', 'what would your last team say you should work on', 'how do you handle a deadline you think is wrong', "what's a decision you would reverse if you could"],
};

/** Requests: asking the addressee to do or tell something. */
const requestFrames: Frames = {
  all: ['could you walk us through {x}', 'could you say a bit more about {x}', 'could you give us a concrete example of {x}'],
  // Taking something on is for colleagues deciding together, not for a candidate or a suspect.
  deliberative: ['could you give us a quick update on {x}', 'could you pair with someone on {x} today', 'could you write up {x} for everyone', 'would you take the lead on {x}'],
  investigative: ['could you tell us exactly what you saw of {x}', 'would you go over {x} once more, slowly'],
  social: ['could you tell me a bit more about {x}'],
};

/** Offers of help: a neutral core, then by kind of meeting. */
const offerFrames: Frames = {
  all: ['I can help with {x}, if you need me', 'I am happy to look at {x} with you', 'let me know if you want a second pair of eyes on {x}'],
  deliberative: [
    'if it saves you time, I can take {x} off your plate',
    'I could write something up on {x} for you',
    'shall I dig into {x} with you this week',
    'would it help if I took a first pass at {x}',
  ],
  social: ['I would be happy to introduce you to a few people here', 'I can send you a couple of papers on {x}, if you like'],
  investigative: ['can I get you a glass of water', 'I can sit with you while you go over {x}'],
  talk: ['I am happy to send you my notes on {x} afterwards'],
};

/**
 * An interviewer's offers to the candidate: help with the process, not with the candidate's work
 * (the panel does not take things off a candidate's plate).
 */
const interviewerOffers = [
  'happy to go into {x} in more detail at the end, if you like',
  'I can tell you more about how we handle {x} here, afterwards',
  'if it helps, I can put you in touch with the team that works on {x}',
  'I can send you what we have written up on {x} after today',
];

const greetingFrames = { named: ['Hi {name}, good to see you.', 'Hello {name}, welcome.', 'Good to have you here, {name}.', 'Hi {name}, nice to meet you.', 'Morning, {name}.'], group: ['Hello everyone.', 'Hello everyone, thanks for joining.', 'Hi all, good to see you.', 'Good morning, everyone.'] };

/** Phrases to ask about, best first: the answerer's or trainee's words, then what the speaker knows of the scene, then the topic. */
const focus = (turn: Turn): string[] => {
  const { cue, gathered } = turn;
  const toHuman = turn.human && cue.addressee?.id === turn.human.id ? turn.human.phrases : [];
  const fromLast = turn.last && turn.last.id === cue.addressee?.id ? turn.last.phrases : [];
  // The scene's shared substance, not the speaker's own points: one does not ask others about one's own words.
  const unused = gathered.material.filter((m) => !m.used && (m.source === 'context' || m.source === 'content'));
  const fromScene = shuffled(unused, turn.rng).flatMap((m) => nounPhrases(m.text, turn.names).slice(0, 2));
  const asked = new Set(cue.said.map(normalizeLine).join(' ').split(' '));
  // A phrase the speaker has already asked about twice is worn out.
  const fresh = (p: string) => !p.split(/\s+/).every((w) => asked.has(w.toLowerCase())) || !cue.said.length;
  const avoid = (p: string) => [...contentWords(p)].some((w) => gathered.avoid.has(w));
  return [...new Set([...toHuman, ...fromLast, ...fromScene, ...(turn.last?.phrases ?? []), ...(turn.topic ? [turn.topic] : [])])].filter((p) => fresh(p) && !avoid(p)).slice(0, 8);
};

/** A question to the addressee, in one of several shapes, each draft a new draw. */
function* asked(turn: Turn, cores: string[], lead?: () => string | undefined): Generator<string> {
  for (const core of cores) {
    // "And then what ...?" carries its own opening.
    const mark = /^(and|so)\b/i.test(core) ? undefined : marker(turn, 0.3);
    const where = placement(turn.rng, !turn.name);
    const q = toName(core, turn.name, where, true);
    yield line(lead?.(), withMarker(q, mark));
  }
}

/** Bank questions not yet asked, that name nobody but the addressee. */
const unusedBank = (turn: Turn): string[] => {
  const { cue } = turn;
  const said = cue.said.map(normalizeLine);
  const others = cue.participants.filter((p) => p.id !== cue.addressee?.id && p.id !== cue.speaker.id);
  return cue.bank.questions.filter((q) => {
    if (others.some((p) => new RegExp(`^\\W*(\\w+\\W+){0,2}${escapeRegExp(p.shortName)}\\s*,`).test(q))) return false;
    const n = normalizeLine(q);
    return !said.some((s) => s.includes(n) || shared(contentWords(s), contentWords(q)) >= Math.max(3, contentWords(q).size * 0.7));
  });
};

/**
 * A bank question as authored, addressed: the name at the end ("..., Alex?"), or in front when
 * the question is one sentence ("Alex, which number ...?"), or after its lead ("Lovely talk,
 * Nadia. If the city ...?").
 */
function* bankDrafts(turn: Turn): Generator<string> {
  for (const q of unusedBank(turn)) {
    const text = normalizeSpace(q);
    const name = turn.name;
    if (!name) {
      yield text;
      continue;
    }
    const sentences = text.split(/(?<=[.!?])\s+/);
    const last = sentences.pop()!;
    const lead = sentences.join(' ');
    const asks = /\?$/.test(last);
    // A question that already names its addressee is said as written.
    if (mentions(text, name)) {
      yield text;
      continue;
    }
    const named = asks ? `${last.replace(/\?$/, '')}, ${name}?` : `${name}, ${lowerFirst(last, turn.proper)}`;
    const front = `${name}, ${lowerFirst(text, turn.proper)}`;
    yield* shuffled([line(lead, named), sentences.length ? null : front].filter((t): t is string => !!t), turn.rng);
    if (sentences.length) yield `${name}, ${lowerFirst(text, turn.proper)}`;
  }
}

export const ask = (turn: Turn): string => {
  const { cue, rng, kind } = turn;
  const phrases = focus(turn);
  const lastPhrases = turn.last ? turn.last.phrases.filter((p) => ![...contentWords(p)].some((w) => turn.gathered.avoid.has(w))) : [];
  const ownFollowUps = turn.voice.followUps.flatMap((f) => (/\bit\b/.test(f) ? [f.replace(/\bit\b/, '{x}')] : [`${f} with {x}`, f]));
  // Phrases in order of preference (the trainee's words first), frames at random.
  const frameDrafts = (frames: string[], xs: string[]): string[] =>
    xs.flatMap((x) => shuffled(frames, rng).slice(0, 3).map((f) => fill(f, { x })).filter((t): t is string => !!t));
  const followUp = (): Drafts =>
    chain(
      asked(turn, frameDrafts([...ownFollowUps, ...framesFor(followUps, kind)], lastPhrases.slice(0, 3))),
      asked(turn, shuffled([...turn.voice.followUps.filter((f) => !/\bit\b/.test(f)), ...bareFollowUps], rng), () => {
        const x = lastPhrases[0];
        return x ? fill(rng.pick(pickups), { x }) : undefined;
      }),
    );
  // What the persona wants to find out, until they have asked it.
  const said = cue.said.map(contentWords);
  const goalAsks = turn.gathered.goals
    .filter((g) => g.ask)
    .map((g) => g.ask!)
    .filter((a) => !said.some((s) => shared(contentWords(a), s) >= Math.max(2, contentWords(a).size * 0.6)));
  const drafts = chain(
    cue.move === 'follow-up' ? followUp : [],
    () => bankDrafts(turn),
    () => asked(turn, shuffled(goalAsks, rng).flatMap((a) => [`can I ask ${a}`, `I'd like to understand ${a}: what's your take`])),
    () => asked(turn, frameDrafts([...framesFor(aboutFrames, kind)], phrases.slice(0, 4))),
    () => asked(turn, frameDrafts(framesFor(followUps, kind), phrases.slice(0, 3))),
    () => asked(turn, shuffled(framesFor(plainQuestions, kind), rng)),
  );
  return firstNovel(turn, drafts, 'ask');
};

export const request = (turn: Turn): string => {
  const { rng, kind } = turn;
  const phrases = focus(turn);
  const { request: goalRequest, askee } = turn.gathered.goals.find((g) => g.request) ?? {};
  const goalDrafts = goalRequest && (!askee || askee === turn.name) ? [goalRequest] : [];
  const cores = [...goalDrafts, ...shuffled(phrases.slice(0, 4), rng).flatMap((x) => shuffled(framesFor(requestFrames, kind), rng).slice(0, 3).map((f) => fill(f, { x })!))];
  return firstNovel(turn, chain(asked(turn, cores), asked(turn, ['could you say a bit more about that', 'could you walk us through that once more'])), 'ask');
};

export const offer = (turn: Turn): string => {
  const { rng, kind } = turn;
  const phrases = [...new Set([...(turn.last?.phrases ?? []), ...(turn.human?.phrases ?? []), 'any of this'])];
  function* drafts(): Generator<string> {
    for (const x of phrases.slice(0, 4)) {
      const frames = kind === 'interview' && turn.cue.role.part === 'asker' ? interviewerOffers : framesFor(offerFrames, kind);
      for (const frame of shuffled(frames, rng).slice(0, 3)) {
        const core = fill(frame, { x })!;
        const asks = /^(can|could|would|shall)\b/.test(core);
        yield withMarker(toName(core, turn.name, turn.name ? placement(rng, false) : 'none', asks), marker(turn, 0.35), turn.proper);
      }
    }
  }
  return firstNovel(turn, drafts(), 'any');
};

export const greet = (turn: Turn): string => {
  const { rng } = turn;
  const frames = turn.name ? greetingFrames.named : greetingFrames.group;
  function* drafts(): Generator<string> {
    for (const frame of shuffled(frames, rng)) yield fill(frame, { name: turn.name })!;
  }
  return firstNovel(turn, drafts(), 'any');
};
