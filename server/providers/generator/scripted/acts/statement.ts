/**
 * Statements: saying something of one's own. After someone else spoke, the speaker reacts to their
 * words (agreeing or disagreeing as the snippet's pattern leans, with a reason from their own
 * material), plays the trainee's answer back when that is their habit, or adds a point; with
 * nothing to react to, they make a point. On the session's last turn (`move: 'close'`) they close:
 * whoever runs the meeting thanks everyone and names the next step, anyone else says goodbye;
 * neither asks anything.
 */
import { bearsOn, ranked, type Material } from '../material';
import { fill, line, marker, shuffled, withMarker } from '../compose';
import { chain, firstNovel, type Drafts } from '../novel';
import type { Kind, Turn } from '../turn';
import { contentWords, lowerFirst, sentence, shared } from '../words';

type Lean = 'agree' | 'disagree' | 'neutral';

/** Reactions to the last speaker (`{name}`) about what they said (`{x}`), to be followed by a reason. */
const reactions: Record<Lean, string[]> = {
  agree: ["I'm with {name} on {x}", '{name} is right about {x}', "That matches what I've seen", 'Agreed on {x}', "I'd back {name} there", 'Yes, {x} is the crux', 'Same here on {x}', '{name} has a point about {x}'],
  disagree: ["I'm not sure about {x}, {name}", 'I see {x} differently', "I'd push back on {x}", "With respect, {name}, I'm not convinced", "That's not quite how I see {x}", "I'm wary of {x}", "I'd question {x}", 'Hmm, I doubt {x} is the real issue'],
  neutral: ['On {x}', 'Picking up on {x}', 'Coming back to {x}', 'About {x}', 'Thinking about {x}', 'Since {x} came up'],
};

/**
 * How a reason joins a reaction: "because" only when it bears on what was said; anything else is
 * its own sentence ("I'm wary of that. What I know is this: …" was a formula, not a reason).
 */
const because: Record<Lean, string[]> = { agree: [', because ', ': '], disagree: [', because ', ', since '], neutral: [': ', ', '] };
/** A point that does not bear on it follows the reaction as a sentence of its own, not as its reason. */
// A neutral lead ("On that", "Since that came up") is no sentence by itself: what follows finishes it.
const besides: Record<Lean, string[]> = { agree: ['. ', '. And '], disagree: ['. ', '. Still, '], neutral: [', '] };

/** Whether the room has heard `text` this session, as far as the speaker can tell: their own lines, the last lines, the summary. */
const heardAlready = (turn: Turn, text: string): boolean => {
  const { cue } = turn;
  const said = [...cue.said, cue.lastMessage?.text ?? '', cue.human?.text ?? '', ...cue.topics.summary.flatMap((item) => item.points.map((p) => p.text))];
  return said.some((s) => s.includes(text));
};

/** Reasons that need no material. */
const stanceReasons: Record<Lean, string[]> = {
  agree: ["it's the part that's easiest to get wrong", 'it keeps us honest', "it's what people would notice first", "it's the cheapest thing to fix now"],
  disagree: ["I haven't seen the evidence for it yet", 'it costs more than it looks', 'it skips the hard part', "the numbers don't back it up yet"],
  neutral: ["it deserves more time than we're giving it", "I'd like to hear more before deciding", "it's where I'd look first"],
};

/** Ways to make a point of one's own, by where it comes from. `{m}` is the point as a clause. */
const pointFrames: Record<Material['source'], string[]> = {
  point: ["For what it's worth, {m}"],
  fact: ['Here is something I know: {m}', 'For the record, {m}', 'I should say this: {m}', "For what it's worth, {m}"],
  backstory: [],
  goal: [],
  content: ['As {cite} shows, {m}', 'According to {cite}, {m}'],
  context: ['As we all know, {m}', 'Remember, {m}'],
};

/** Leads that pick up the last speaker's words before a point. */
const pickupLeads = ['{name}, on {x}:', 'On {x}, {name}:', 'Picking up {x}:', 'Since you mention {x}:'];

/** Playing back what the trainee said, for personas who summarise answers back. */
const playbacks = ['So, if I follow you, {name}: {x} and {y}.', 'Let me play that back, {name}: {x}, then {y}.', 'What I am hearing, {name}, is {x} and {y}.', 'So the heart of it is {x}, {name}.'];

const briefs = ['Yes, exactly.', 'Agreed, {name}.', 'Good point about {x}.', 'Not sure about {x}.', 'Hmm, {x}. Really.', 'Fair enough.', 'I see what you mean.', 'Right, {x}.', 'Makes sense to me.', 'True, {name}.'];

/** Closing a session. Whoever runs it thanks everyone and names the next step; anyone else says goodbye. */
const chairThanks = ['Thank you, {human}.', 'Thanks, everyone.', 'Thank you all.', 'Right, thank you, {human}.', 'Well, thank you all for this.', 'That is time, so thank you.'];
const wrapUps: Record<Kind, string[]> = {
  interview: ["We'll talk as a panel and be in touch within the week.", 'We will come back to you soon about next steps.', 'It has been a really useful conversation.'],
  social: ['It was lovely to meet you all.', "Let's keep in touch.", 'Enjoy the afternoon sessions.'],
  investigative: ['Nobody leaves this house until the road opens.', 'I will want to speak to some of you again in the morning.', 'That will do for tonight.'],
  deliberative: ['I will send round the notes and the owners.', "Let's check in on this tomorrow.", 'Good work, everyone.'],
  talk: ["Let's thank our speakers once more.", 'Thanks for a great discussion.', 'We will pick this up over lunch.'],
};
const followThrough = ['I will note {x} as the thing to follow up.', 'Let us not lose {x}.', 'I will write up {x} and share it.'];
const guestThanks: Record<Kind, string[]> = {
  interview: ['Thank you all for your time.', 'Thanks, I really enjoyed this.', 'Thank you, this was a good conversation.'],
  social: ['It was lovely to meet you all.', 'Thanks, all, this was fun.', 'Great to meet you, everyone.'],
  investigative: ['Then I will say goodnight.', 'I hope you find who did this.', 'Thank you, Detective.'],
  deliberative: ['Thanks, everyone.', 'Thanks, all; that helped.', 'Good, thank you.'],
  talk: ['Thank you, this was really useful.', 'Thanks, all; I learned a lot.', 'Thanks for taking the questions.'],
};
const takeaways: Record<Kind, string[]> = {
  interview: ['I look forward to hearing from you.', 'I will be thinking about {x} for a while.'],
  social: ["Let's stay in touch.", 'Enjoy the rest of the conference.', 'I will be thinking about {x} for a while.'],
  investigative: ['I will be in the library if anyone needs me.', 'None of us will sleep much tonight.', 'I keep coming back to {x}.'],
  deliberative: ['I will follow up on {x}.', 'Talk tomorrow.'],
  talk: ['I will take {x} back with me.', 'Good luck with the rest of it.'],
};

/**
 * Whoever may wrap the meeting up: its chair or a role that runs it; among colleagues anyone; on
 * an interview panel any panelist (never the candidate).
 */
const leads = (turn: Turn): boolean => {
  const { cue, kind } = turn;
  if (cue.role.part === 'chair' || /\b(chair|facilitat\w*|moderat\w*|scrum master|host|coach|detective|inspector|hiring manager|people partner|interviewer|director)\b/i.test(cue.speaker.role ?? '')) return true;
  const human = cue.participants.find((p) => p.id === cue.speaker.id)?.kind === 'human';
  return kind === 'deliberative' || (kind === 'interview' && !human);
};

/** Who-I-am lines belong to introductions. */
const introducing = (turn: Turn): boolean => /introduc|greet|welcome|sitting down/i.test(turn.cue.snippet.goal) || (turn.kind === 'social' && turn.cue.said.length < 2);

const leanOf = (turn: Turn): Lean => {
  const { cue, rng } = turn;
  if (cue.snippet.pattern !== 'neutral') return rng.chance(0.8) ? cue.snippet.pattern : 'neutral';
  const draw = rng.next();
  return draw < 0.25 ? 'agree' : draw < 0.4 ? 'disagree' : 'neutral';
};

/** The material said as a point: plainly, in one of its frames, or after the last speaker's words. */
const pointed = (turn: Turn, m: Material): string | undefined => {
  const { rng, last } = turn;
  // An authored point that opens with its own marker or vocative ("Honestly, Detective, ...") is said as written.
  if (m.source === 'point' && /^[\w']+( \w+)?,/.test(m.text)) return m.text;
  const draw = rng.next();
  const x = last?.phrases[0];
  if (x && last && draw < 0.3 && bearsOn(m, last.words)) return line(fill(rng.pick(pickupLeads), { name: last.shortName, x }), `${m.clause}.`);
  const frames = pointFrames[m.source];
  if (frames.length && draw < 0.42) return fill(rng.pick(frames), { m: `${m.clause}.`, cite: m.cite });
  return withMarker(m.text, marker(turn, 0.4), turn.proper);
};

/** Reactions to the last speaker with a reason: one's own material that bears on it, else a reason that needs none. */
function* reactionsTo(turn: Turn, lean: Lean): Generator<string> {
  const { rng, last } = turn;
  if (!last) return;
  const xs = last.phrases.filter((p) => ![...contentWords(p)].some((w) => turn.gathered.avoid.has(w))).slice(0, 3);
  const pool = ranked(turn.gathered.material, rng, { about: last.words, introducing: introducing(turn) })
    .filter((m) => !m.used)
    .slice(0, 3);
  for (const x of xs.length ? xs : ['that']) {
    // One agrees or disagrees with a claim, not with a thing: "I'm wary of the panel" says nothing, "I'm not convinced" does.
    const bare = lean !== 'neutral' && x.split(/\s+/).length <= 2 && x !== 'that';
    const frames = reactions[lean].filter((f) => !bare || !f.includes('{x}'));
    for (const frame of shuffled(frames, rng).slice(0, 3)) {
      const react = fill(frame, { name: last.shortName, x });
      if (!react) continue;
      for (const m of pool) {
        const join = rng.pick(besides[lean]);
        const text = bearsOn(m, last.words) ? `${react}${rng.pick(because[lean])}${m.clause}.` : `${react}${join}${join === '. ' ? m.text : lowerFirst(m.text, turn.proper)}`;
        yield withMarker(text, marker(turn, 0.25), turn.proper);
      }
      // A stock reason someone in the room already gave is not given again.
      // "Coming back to that: it's where I'd look first" says nothing: a neutral stock reason needs something named to be about.
      const reasons = lean === 'neutral' && x === 'that' ? [] : stanceReasons[lean].filter((r) => !heardAlready(turn, r));
      if (reasons.length) yield withMarker(`${react}${rng.pick(because[lean])}${rng.pick(reasons)}.`, marker(turn, 0.25), turn.proper);
    }
  }
}

function* playback(turn: Turn): Generator<string> {
  const { human, last } = turn;
  if (!human || !last || last.id !== human.id || !turn.cue.speaker.traits.some((t) => /summar|paraphras|repeats answers|plays back/i.test(t))) return;
  // Play back what they said, not who they are: two phrases of two words or more.
  const [x, y] = human.phrases.filter((p) => p.split(/\s+/).length >= 3);
  if (!x) return;
  for (const frame of shuffled(playbacks, turn.rng)) {
    const text = fill(frame, { name: human.shortName, x, y });
    if (text) yield text;
  }
}

function* points(turn: Turn): Generator<string | undefined> {
  const { rng, last, cue } = turn;
  const about = new Set([...(last?.words ?? []), ...contentWords(`${cue.topic} ${cue.snippet.goal}`)]);
  const introduce = introducing(turn);
  // Points not yet made: a statement always has reactions to fall back on. The shared context is
  // not news to anyone, and a shared document is cited only on what was just said.
  const onLast = last?.words ?? new Set<string>();
  // Who one is (a backstory line) comes up in an introduction or where it bears on what was just said.
  const fit = (m: Material) =>
    !m.used && m.source !== 'context' && (m.source !== 'content' || shared(m.words, onLast) >= 2) && (m.source !== 'backstory' || introduce || shared(m.words, onLast) >= 1);
  // Any of the three best, by chance: a persona with several things to say does not always say the same one first.
  const best = ranked(turn.gathered.material, rng, { about, introducing: introduce, relevant: true }).filter(fit).slice(0, 6);
  for (const m of [...shuffled(best.slice(0, 3), rng), ...best.slice(3)]) yield pointed(turn, m);
}

function* brief(turn: Turn): Generator<string> {
  const { rng, last } = turn;
  const x = last?.phrases.find((p) => p.split(/\s+/).length <= 3);
  for (const frame of shuffled(briefs, rng)) {
    const text = fill(frame, { name: last?.shortName, x });
    if (text) yield text;
  }
  for (const m of turn.gathered.material.filter((m) => !m.used && m.text.split(/\s+/).length <= 10)) yield m.text;
}

function* closing(turn: Turn): Generator<string> {
  const { rng, kind, cue } = turn;
  const human = cue.human?.shortName ?? cue.participants.find((p) => p.kind === 'human' && p.id !== cue.speaker.id)?.shortName;
  const x = turn.last?.phrases[0] ?? turn.human?.phrases[0];
  const chair = leads(turn);
  // An investigation whose asker named a suspect ends on what happens to them: its resolution.
  const accused = cue.said.map((said) => said.match(/\bI think it was you, ([A-Z][\w'-]+)\b/)?.[1]).find(Boolean);
  if (accused) {
    for (const end of shuffled([`${accused}, you will stay in this house until the police arrive in the morning.`, `I will be handing what we heard tonight to the police, ${accused}, and they will want to hear your side of it.`], rng)) {
      yield line(rng.pick(['Thank you, all of you.', 'That will do for tonight.']), end);
    }
  }
  for (const thank of shuffled(chair ? chairThanks : guestThanks[kind], rng)) {
    const opening = fill(thank, { human });
    if (!opening) continue;
    for (const wrap of shuffled(chair ? [...wrapUps[kind], ...followThrough] : takeaways[kind], rng).slice(0, 3)) {
      const step = fill(wrap, { x });
      if (step) yield line(opening, step);
    }
  }
}

/** Something to say when there is nothing to react to and no material: rare, as every scene has a context. */
const fallbacks = ['I keep turning {topic} over, and I think we need a clearer plan.', 'I would like us to be concrete about the next step.', 'There is more to this than it looks, I think.', 'I want to hear the others before I commit to a view.'];

export const statementDrafts = (turn: Turn): Drafts => {
  const { cue } = turn;
  if (cue.move === 'close') return closing(turn);
  if (cue.targetWords !== undefined && cue.targetWords <= 8) return chain(brief(turn), points(turn));
  const lean = leanOf(turn);
  // Answerers speak to the point; others react first: mostly when the snippet leans one way, half the time otherwise.
  // A human's line is taken up first, whoever speaks.
  const takingUp = cue.dialogue?.task.kind === 'take-up' && !!turn.last && turn.last.id === turn.human?.id;
  const reactFirst = takingUp || (turn.last && cue.role.part !== 'answerer' && turn.rng.chance(cue.snippet.pattern === 'neutral' ? 0.5 : 0.8));
  return chain(
    playback(turn),
    reactFirst ? reactionsTo(turn, lean) : [],
    () => points(turn),
    () => reactionsTo(turn, lean),
    () => reactionsTo({ ...turn, last: turn.last ?? turn.human }, 'neutral'),
    () => shuffled(fallbacks, turn.rng).map((f) => sentence(fill(f, { topic: turn.topic ?? 'this' })!)),
  );
};

export const statement = (turn: Turn): string => firstNovel(turn, statementDrafts(turn), 'close');
