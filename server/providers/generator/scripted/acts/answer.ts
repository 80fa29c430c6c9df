/**
 * Answering: second pair parts (MMAgents Fig. 4). An answer answers: it takes up what was asked
 * (its key noun phrase, its wh-type: a "when" gets a time, a "why" a reason) and responds with the
 * persona's material best fitted to it, then maybe one more sentence. A request for information
 * ("walk me through ...", "can you put a number on ...") is answered like a question, a request
 * for the floor ("can I jump in?") is granted; other requests, offers, greetings and invitations
 * get their own second parts. No answer opens a new question.
 */
import { bearsOn, ranked, type Material, type Tag } from '../material';
import { fill, line, marker, shuffled, withMarker } from '../compose';
import { chain, firstNovel } from '../novel';
import type { Kind, Turn } from '../turn';
import { capitalise, contentWords, lowerFirst, shared } from '../words';
import { statementDrafts } from './statement';

type Wh = 'why' | 'how' | 'when' | 'where' | 'who' | 'how-many' | 'yes-no' | 'what' | 'tell';

/** Requests for information rather than action. */
const tellMe =
  /\b(tell (me|us)|walk (me|us) through|talk (me|us) through|describe|explain|say (a bit )?more|give (me|us) (an|a concrete) example|take (me|us) through|go over|put a number on|clarify|elaborate|share (your|the) (numbers|thinking|view))\b/i;

/** Asking for the floor: "Can I jump in for a second?" */
const floorRequest = /^\W*(\w+,\s*)?(sorry,\s*)?(can|could|may) I (just )?(jump in|add (something|one thing|to that)|come in|say something|cut in|chip in|ask (you )?(something|a question|one thing))\b[^?]{0,30}\?\s*$/i;

/** Questions about the speaker themselves, answered with who they are. */
const aboutYou = /\b(about yourself|what do you (do|work on)|who are you|what brings you|your (background|role|line of work)|how did you end up)\b/i;

/** What kind of answer the last question (or request) in `text` wants. */
const whOf = (text: string): Wh => {
  const sentences = text.split(/(?<=[.!?])\s+/);
  const asked = sentences.filter((s) => s.includes('?')).at(-1) ?? sentences.at(-1) ?? text;
  if (/\bhow (many|much|long|often|big)\b/i.test(asked)) return 'how-many';
  const embedded = asked.match(/\b(?:ask|know|wonder|wondering|tell (?:me|us)|explain)\s+(what|why|how|when|where|who|which)\b/i);
  if (embedded) return embedded[1]!.toLowerCase() === 'which' ? 'what' : (embedded[1]!.toLowerCase() as Wh);
  if (tellMe.test(asked)) return 'tell';
  // The clause that asks decides: "When an engineer says no, what's your next move?" asks what.
  const clauses = asked.split(/[,:;—]\s*/);
  const asking = clauses.findIndex((c) => c.includes('?'));
  const ordered = asking >= 0 ? [...clauses.slice(asking).reverse(), ...clauses.slice(0, asking)] : clauses;
  const openers = ordered.map((c) => c.trim().split(/\s+/)[0]?.toLowerCase().replace(/['’]s$/, '') ?? '');
  const first = openers.find((w) => /^(what|why|how|when|where|who|whom|which|whose|is|are|was|were|do|does|did|can|could|would|will|have|has|had|should|may|might)$/.test(w));
  if (!first) return asked.includes('?') ? 'what' : 'tell';
  if (/^(is|are|was|were|do|does|did|can|could|would|will|have|has|had|should|may|might)$/.test(first)) return 'yes-no';
  return first === 'whom' || first === 'whose' ? 'who' : first === 'which' ? 'what' : (first as Wh);
};

const wants: Record<Wh, Tag[]> = { why: ['reason'], how: [], when: ['time'], where: ['place'], who: ['person'], 'how-many': ['number'], 'yes-no': [], what: [], tell: [] };

/** What an answer may open with, by what was asked. Leads ending in ":" or "." take a sentence. */
const leads: Record<Wh, string[]> = {
  'yes-no': ['Yes, mostly:', 'Partly, yes:', 'Not entirely:', 'In short, yes:', 'I think so:', 'Honestly, not quite:', 'Mostly, yes, because', 'Yes.'],
  why: ['Mostly because', 'Partly because', 'The honest reason is that', 'Simply because', 'It comes down to this:'],
  how: ['In practice,', 'Here is how:', 'Practically speaking,', 'The way I see it,', 'Concretely,'],
  when: ['As far as I remember,', 'If I have the times right,', 'On timing:', 'Time-wise,'],
  where: ['As for where,', 'Honestly,'],
  who: ['As for who,', 'Honestly,'],
  'how-many': ['In numbers:', 'Roughly:', 'The number I have is this:'],
  what: ['Well,', 'The short version:', 'What I can tell you is this:', 'So,', 'Honestly,'],
  tell: ['Sure.', 'Happy to.', 'Of course.', 'Sure, briefly:', 'Right, so'],
};

/** Leads that name what was asked (`{x}`), for material that does not. */
const namedLeads = ['On {x}:', 'About {x}:', 'When it comes to {x},', 'As for {x},'];

/** Second sentences after an answer, by kind of meeting. */
const closers: Record<Kind, string[]> = {
  talk: ['That is about as far as the data lets me go.', 'I would not claim more than that.'],
  deliberative: ['That is my honest read, anyway.', 'That is how I see it.'],
  interview: ['That is the short version, anyway.', 'I can go deeper on any of that.'],
  investigative: ['That is all I can say for certain.', 'I have gone over it a dozen times since.'],
  social: ['That is the short version, anyway.', 'Long story, but that is the gist.'],
};

/** Answers with no material to draw on: a position on what was asked. */
const stances = [
  'On {x}, I would rather be careful than quick: start small and check what happens.',
  '{X} is where I would look first, honestly.',
  'I do not have the full picture on {x}, but I would start with the people closest to it.',
  'My honest view on {x}: it needs more work than it looks.',
  'I think {x} needs a clearer owner.',
  'From where I sit, {x} was the hard part.',
  'I would want to see {x} written down before we commit to anything.',
  '{X} is what slowed us down, if I am honest.',
];

const tail = (turn: Turn, after: Material, others: Material[]): string | undefined => {
  const { rng, voice, kind, cue } = turn;
  const room = cue.targetWords === undefined || cue.targetWords > 30;
  const draw = rng.next();
  if (draw < 0.3 && room) return others.find((m) => m.origin !== after.origin && !m.used)?.text;
  if (draw < 0.42 && voice.uneasy && voice.feeling) return `I will admit I am a bit ${voice.feeling} about it.`;
  if (draw < 0.5) return rng.pick(closers[kind]);
  return undefined;
};

/** The material, opened by `lead`, as a whole sentence. */
const phrased = (lead: string, m: Material): string => {
  if (/\.$/.test(lead)) return `${lead} ${m.text}`;
  return `${lead} ${m.clause}.`;
};

/** Answers to what was asked, from material. */
function* answersTo(turn: Turn, wh: Wh, about: ReadonlySet<string>, kw: string | undefined, asker: string | undefined, introducing: boolean): Generator<string> {
  const { rng, gathered } = turn;
  const pool = ranked(gathered.material, rng, { about, want: new Set(wants[wh]), answering: true, introducing });
  const fresh = pool.filter((m) => !m.used).slice(0, 4);
  for (const m of [...fresh, ...pool.filter((m) => m.used).slice(0, 2)]) {
    // Material that does not touch what was asked is introduced by it ("On the reminder system: ..."), so the answer answers.
    const named = kw && !bearsOn(m, about);
    // A body with its own colon takes a lead without one.
    const options = shuffled(named ? namedLeads : leads[wh], rng).filter((l) => !(/:$/.test(l) && /:/.test(m.clause)));
    for (const option of options.slice(0, 3)) {
      const lead = fill(option, { x: kw });
      if (!lead) continue;
      const core = phrased(lead, m);
      const where = asker ? rng.next() : 1;
      const said = where < 0.3 ? `${asker}, ${lowerFirst(core, turn.proper)}` : where < 0.55 ? core.replace(/\.$/, `, ${asker}.`) : core;
      const plain = /^(Yes|Partly|Not|In short|I think|Honestly|Mostly|Sure|Happy|Of course|Right|On|About|When|As|With)\b/.test(core);
      yield line(withMarker(said, plain || where < 0.3 ? undefined : marker(turn, 0.2)), tail(turn, m, fresh));
    }
  }
}

function* stanceAnswers(turn: Turn, kw: string | undefined, asker: string | undefined): Generator<string> {
  for (const frame of shuffled(stances, turn.rng)) {
    const text = fill(frame, { x: kw ?? 'that', X: capitalise(kw ?? 'that') });
    if (text) yield asker && turn.rng.chance(0.5) ? `${asker}, ${lowerFirst(text, turn.proper)}` : text;
  }
}

/** Questions about the arrangements ("Does that work?"): a plain yes answers them. */
const arrangement = /\b(does that work|is that (ok|okay|all right|alright|fine)|sounds? good|okay with (you|that)|fine with (you|that)|shall we (start|begin)|ready to (start|begin))\b/i;
const confirmations = ['Yes, that works for me.', 'That works, thank you.', 'Sounds good, {asker}.', 'Yes, perfect, thank you.'];

/** Turning aside a question that touches a secret, in character, then saying something else. */
const deflections = ["I'd rather not get into that, {asker}.", "That's a private matter, {asker}.", "I don't see what that has to do with anything.", "Let's not go there, {asker}."];

function* aside(turn: Turn, frames: string[]): Generator<string> {
  const asker = turn.asked!.shortName;
  const other = ranked(turn.gathered.material, turn.rng, { about: new Set() }).filter((m) => !m.used && m.source !== 'content' && m.source !== 'context');
  for (const frame of shuffled(frames, turn.rng)) {
    const opening = fill(frame, { asker })!;
    if (other[0] && turn.rng.chance(0.5)) yield line(opening, other[0].text);
    yield opening;
  }
}

const answerQuestion = (turn: Turn): string => {
  const asked = turn.asked!;
  if (arrangement.test(asked.text)) return firstNovel(turn, chain(aside(turn, confirmations), answersTo(turn, 'yes-no', asked.words, undefined, asked.shortName, false)), 'close');
  // Two words of a secret in the question: the persona turns it aside rather than answer.
  if (shared(asked.words, contentWords(turn.cue.secrets.join(' '))) >= 2) return firstNovel(turn, aside(turn, deflections), 'close');
  const wh = whOf(asked.text);
  const kw = asked.phrases[0];
  const about = new Set([...asked.words, ...contentWords(kw ?? '')]);
  const introducing = aboutYou.test(asked.text);
  // A stance names what was asked about: its own phrase, else the topic.
  return firstNovel(turn, chain(answersTo(turn, wh, about, kw, asked.shortName, introducing), stanceAnswers(turn, kw ?? turn.topic, asked.shortName)), 'close');
};

const grants = ['Go ahead, {asker}.', 'Sure, go ahead.', 'Please, {asker}, go on.', 'Of course, {asker}.'];
const acceptances = ['Sure, I can take that.', 'Happy to.', 'Yes, leave it with me.', 'Of course, {asker}.', 'Sure, {asker}, I will do it today.'];
const refusals = ['I would rather not take that on today, {asker}.', 'I cannot commit to that yet, {asker}.'];

const answerRequest = (turn: Turn): string => {
  const asked = turn.asked!;
  const { rng } = turn;
  if (floorRequest.test(asked.text)) {
    return firstNovel(turn, shuffled(grants, rng).map((g) => fill(g, { asker: asked.shortName })), 'any');
  }
  if (tellMe.test(asked.text) || (asked.text.includes('?') && /\b(what|why|how|when|where|who)\b/i.test(asked.text))) return answerQuestion(turn);
  const accept = rng.chance(0.75);
  const reasons = ranked(turn.gathered.material, rng, { about: asked.words }).slice(0, 3);
  function* drafts(): Generator<string> {
    for (const frame of shuffled(accept ? acceptances : refusals, rng)) {
      const opening = fill(frame, { asker: asked.shortName })!;
      if (accept && asked.phrases[0]) yield line(opening, `I will start with ${asked.phrases[0]}.`);
      for (const m of reasons) yield line(opening, m.text);
      yield opening;
    }
  }
  return firstNovel(turn, drafts(), 'close');
};

const answerOffer = (turn: Turn): string => {
  const asked = turn.asked!;
  const { rng } = turn;
  const yes = ['Thanks, {asker}, that would really help.', 'Yes please, {asker}, I would appreciate that.', 'That would be great, thank you.', 'Oh, thank you, {asker}; yes.'];
  const no = ['That is kind of you, {asker}, but I think I am covered.', 'Thanks, {asker}, though I should be fine for now.'];
  const reasons = ranked(turn.gathered.material, rng, { about: asked.words }).slice(0, 2);
  function* drafts(): Generator<string> {
    for (const frame of shuffled(rng.chance(0.75) ? yes : no, rng)) {
      const opening = fill(frame, { asker: asked.shortName })!;
      for (const m of reasons) yield line(opening, m.text);
      yield opening;
    }
  }
  return firstNovel(turn, drafts(), 'close');
};

const answerGreeting = (turn: Turn): string => {
  const asked = turn.asked!;
  const { rng } = turn;
  const returned = /good morning/i.test(asked.text)
    ? ['Good morning, {asker}.', 'Morning, {asker}, good to see you.']
    : ['Hi {asker}, good to see you.', 'Hello, {asker}! Nice to meet you.', 'Hello everyone, and thank you, {asker}.', 'Hi {asker}.'];
  const intro = turn.gathered.material.find((m) => m.tags.has('identity') && !m.used);
  function* drafts(): Generator<string> {
    for (const frame of shuffled(returned, rng)) {
      const opening = fill(frame, { asker: asked.shortName })!;
      if (intro) yield line(opening, intro.text);
      yield opening;
    }
  }
  return firstNovel(turn, drafts(), 'any');
};

/** Taking the floor after an invitation means saying something of one's own. */
const answerInvitation = (turn: Turn): string => {
  const asked = turn.asked!;
  const own = { ...turn, last: null };
  function* drafts(): Generator<string> {
    for (const text of statementDrafts(own)) {
      if (!text) continue;
      const thanks = turn.rng.pick(['Thanks, {asker}.', 'Thank you, {asker}.', 'Sure.', 'Happy to.', '']);
      yield line(fill(thanks, { asker: asked.shortName }), text);
    }
  }
  return firstNovel(turn, drafts(), 'close');
};

export const answer = (turn: Turn): string => {
  switch (turn.cue.obligation?.pair) {
    case 'question':
      return floorRequest.test(turn.asked?.text ?? '') ? answerRequest(turn) : answerQuestion(turn);
    case 'request':
      return answerRequest(turn);
    case 'offer':
      return answerOffer(turn);
    case 'greeting':
      return answerGreeting(turn);
    case 'invitation':
      return answerInvitation(turn);
    default:
      return firstNovel(turn, statementDrafts(turn), 'close');
  }
};
