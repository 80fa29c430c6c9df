/**
 * Answering: second pair parts (MMAgents Fig. 4). An answer answers: it takes up what was asked
 * (its key noun phrase, its wh-type: a "when" gets a time, a "why" a reason) and responds with the
 * persona's material best fitted to it, then maybe one more sentence. A request for information
 * ("walk me through ...", "can you put a number on ...") is answered like a question, a request
 * for the floor ("can I jump in?") is granted; other requests, offers, greetings and invitations
 * get their own second parts. No answer opens a new question.
 */
import { sameQuestion } from '../../../../engine/dialogue';
import { similarity, similarityTo } from '../../../../engine/similarity';
import { answerFit, conceptsOf, understand, type Fit, type QuestionType } from '../../../../engine/understanding';
import { ranked, type Material, type Tag } from '../material';
import { fill, line, marker, shuffled, withMarker } from '../compose';
import { firstNovel } from '../novel';
import type { Turn } from '../turn';
import { capitalise, contentWords, lowerFirst, shared } from '../words';
import { ask } from './ask';
import { statementDrafts } from './statement';

/** Asking for the floor: "Can I jump in for a second?" */
const floorRequest = /^\W*(\w+,\s*)?(sorry,\s*)?(can|could|may) I (just )?(jump in|add (something|one thing|to that)|come in|say something|cut in|chip in|ask (you )?(something|a question|one thing))\b[^?]{0,30}\?\s*$/i;

/** Questions about the speaker themselves, answered with who they are. */
const aboutYou = /\b(about yourself|what do you (do|work on)|who are you|what (brings|brought) you|your (background|role|line of work|story)|how did you end up|how did you get into (this|your|it)|keeping you busy|what are you working on|what have you been (up to|working on)|what do you do when you're not)\b/i;

/** Tags a kind of question wants of its answer: a time for "when", a reason for "why". */
const wants: Partial<Record<QuestionType, Tag>> = { why: 'reason', when: 'time', where: 'place', who: 'person', 'how-many': 'number' };

/**
 * Saying one does not know, by what was asked (`{x}`: what it is about), in character: better
 * than saying something else. A persona who can find out offers to.
 */
const unknown: Record<QuestionType, string[]> = {
  'how-many': ["I don't have that number to hand. I can find out and send it after.", "I'd only be guessing at the number on {x}, and I'd rather not guess.", "I don't know the exact figure, honestly.", "I couldn't put a number on {x} without checking."],
  when: ["I couldn't tell you exactly when.", "I don't remember the time exactly, I'm afraid.", "I'm not sure when, to be honest."],
  who: ["I honestly couldn't say who.", "I don't know who, and I'd rather not guess.", "I'm not the person who'd know that."],
  where: ["I don't know where, I'm afraid.", "I couldn't say where, honestly."],
  why: ["I don't really know why, to be honest.", "I've wondered that myself, and I don't have a good answer.", "I'd be guessing at the reasons."],
  'yes-no': ["I'm honestly not sure.", "I don't know, to be honest.", "I couldn't say either way."],
  choice: ["Honestly, I haven't made up my mind.", "I'm torn, to be honest."],
  what: ["I don't know enough about {x} to say.", "I haven't got a good answer on {x} yet.", "That's outside what I know, honestly.", "I'd have to think about {x} before I answered."],
  which: ["I haven't settled on one yet, honestly.", "I'm not sure which, to be honest."],
  how: ["I'm not sure how, honestly.", "I haven't worked out how yet.", "I don't know enough about {x} to say how."],
};

/** Asking for someone's view rather than a fact: any view of theirs that bears on it answers. */
const opinionAsked = /\b(what would (you|it take)|would you (need|want|expect|do)|convince you|do you (believe|think|expect|worry)|your take|what do you (make of|think (of|about))|your (view|thoughts|opinion|read) on|how do you (feel|see it)|how does (this|that) sit with you|match(es)? your experience)\b/i;
const takes = ['My take:', 'Honestly,', 'The way I see it,', 'For me,', undefined];

/** Leads for the nearest thing a persona has to an answer, said as such. */
const nearby = ["Not directly, but", "I haven't looked at exactly that; the closest I have:", 'Not that exactly. What I do know is that', "I can't answer that precisely, but", 'Only partly:'];

const otherUnknown = ["Honestly, no idea on that one.", "I can't help you there, I'm afraid.", "That one I can't answer.", "You'd have to ask someone closer to it."];
const stillUnknown = ['As I said, I just do not know.', 'I still do not know, I am afraid.', 'Nothing new on that from me, sorry.', 'Same as before: I honestly could not tell you.'];

/** A polar question's answer opens with yes or no: no for a fact that negates, yes for one that states what was asked. */
const polarity = (m: Material, question: ReadonlySet<string>, asked: string): 'yes' | 'no' | null => {
  // "Did you see anything?" is answered yes by whatever was seen.
  const open = /\b(any|anything|anyone|anybody|something|someone)\b/i.test(asked);
  const first = m.text.split(/(?<=[.;])\s|,\s(?:though|but|although)\s/)[0]!;
  if (!open && /\b(not|never|no|n't|nobody|nothing|none)\b/i.test(first) && shared(contentWords(first), question) >= 1) return 'no';
  return shared(m.words, question) >= 2 || (open && shared(m.words, question) >= 1) ? 'yes' : null;
};
const yesLeads = ['Yes.', 'Yes,'];
const noLeads = ['No.', 'No,'];

const subjects: Record<string, string> = { you: 'I', it: 'it', that: 'it', this: 'it', they: 'they', he: 'he', she: 'she', we: 'we' };
const negatives: Record<string, string> = { do: "don't", does: "doesn't", did: "didn't", am: "'m not", is: "isn't", was: "wasn't", were: "weren't", have: "haven't", has: "hasn't", had: "hadn't", can: "can't", could: "couldn't", will: "won't", would: "wouldn't", should: "shouldn't" };

/**
 * Yes and no as the question put it: "Did you take the key?" is answered "Yes, I did." or "I
 * didn't, no.", "Were you in the hall?" "I was, yes."; a question without such a verb gets a
 * plain yes or no.
 */
const polarLeads = (question: string, said: 'yes' | 'no'): string[] => {
  const m = /^\W*(?:[\p{L}.'’]+,\s*)?(do|does|did|are|is|was|were|have|has|had|can|could|will|would|should)\s+(you|it|that|this|they|he|she|we)\b/iu.exec(question);
  const plain = said === 'yes' ? yesLeads : noLeads;
  if (!m) return plain;
  const subject = subjects[m[2]!.toLowerCase()]!;
  let verb = m[1]!.toLowerCase();
  if (subject === 'I' && verb === 'are') verb = 'am';
  if (subject === 'I' && verb === 'were') verb = 'was';
  if (subject === 'it' && (verb === 'are' || verb === 'were')) verb = verb === 'are' ? 'is' : 'was';
  const who = subject === 'I' ? 'I' : subject;
  const Who = who.charAt(0).toUpperCase() + who.slice(1);
  if (said === 'yes') return [`Yes, ${who} ${verb}.`, `${Who} ${verb}, yes.`, ...plain];
  const not = negatives[verb]!;
  const negated = not.startsWith("'") ? `${who}${not}` : `${who} ${not}`;
  return [`No, ${negated}.`, `${negated.charAt(0).toUpperCase()}${negated.slice(1)}, no.`, ...plain];
};

/** Referring back to a fact already given, rather than reciting it as news: to the same question asked again; asked a third time, a little pointedly. */
const again = ['As I said, {m}', 'Same answer as before: {m}', 'I said it earlier: {m}'];
/** Giving, when pressed, what one turned aside the first time. */
const concessions = ['All right', 'Fine', 'Very well', 'Look, all right'];
/** A fact already given that also answers another question. */
const mentioned = ['As I mentioned, {m}', 'Like I said, {m}', 'Again, {m}', 'It comes back to this: {m}'];
const againTwice = ['I think I have answered that: {m}', 'Same as I said before, really: {m}', 'It has not changed since you asked: {m}'];

/**
 * The gist of a clause said once already: its main part, up to a semicolon or a ", and" / ", but"
 * after six words or more; a clause of sixteen words or fewer is its own gist.
 */
const gist = (clause: string): string => {
  const words = clause.split(/\s+/);
  if (words.length <= 16) return clause;
  const cut = words.findIndex((w, i) => i >= 6 && (/;$/.test(w) || (/,$/.test(w) && /^(and|but|so|which)$/i.test(words[i + 1] ?? ''))));
  return cut >= 0 ? words.slice(0, cut + 1).join(' ').replace(/[,;]$/, '') : clause;
};

interface Fitting {
  m: Material;
  fit: Fit;
  score: number;
}

/**
 * The persona's material that answers `question`, best first: ranked by meaning (the project's
 * sentence similarity) and by kind (a number for how many, a reason for why...), then checked
 * with the same judge the figures use (`answerFit`), so that only what answers is said as an answer.
 */
const fitting = (turn: Turn, question: string, type: QuestionType, about: ReadonlySet<string>, introducing: boolean, antecedent: string | undefined, bridges: readonly string[]): Fitting[] => {
  const to = similarityTo(question);
  const tag = wants[type];
  const scored = turn.gathered.material
    .filter((m) => introducing || !m.tags.has('identity'))
    .map((m) => {
      let score = 4 * to(m.text) + 0.8 * shared(m.words, about);
      if (tag && m.tags.has(tag)) score += 1;
      // What the persona knows that others do not is what a question put to them is for; the shared context everyone heard already.
      if (m.source === 'fact') score += 1.5;
      // What everyone has read (the context, a shared document) answers after what the persona knows themselves.
      if (m.source === 'context' || m.source === 'content') score -= 1;
      if (m.hedged) score -= 0.3;
      if (introducing && m.tags.has('identity')) score += 2;
      return { m, score };
    })
    .sort((a, b) => b.score - a.score)
    // Every line is judged, not the best-scored few: the judge knows that a PM is a role, the score does not.
    .slice(0, 24);
  // A persona's sentence is read out of context: its "it" or "that" does not point at the question.
  const asked = [...about].filter((w) => !turn.names.has(w));
  // A line joins a question through a bridge by meaning: one concept of the question's and one of the bridge's own.
  const concepts = conceptsOf(question);
  const bridging = new Set([...conceptsOf(bridges.join(' '))].filter((w) => !concepts.has(w) && !turn.names.has(w)));
  return scored.map(({ m, score }) => {
    if (introducing && m.tags.has('identity')) return { m, score, fit: 'answered' as const };
    let fit = answerFit(question, m.text, turn.names, { anaphora: false, ...(antecedent ? { about: antecedent } : {}) });
    // Through what everyone was told, a line about the same thing in other words: it must share two of the bridge's own words.
    if (fit !== 'answered' && bridging.size && m.source !== 'context' && m.source !== 'content' && shared(conceptsOf(m.text), concepts) >= 1 && shared(conceptsOf(m.text), bridging) >= 1) {
      fit = answerFit(question, m.text, turn.names, { anaphora: false, about: [antecedent, ...bridges].filter(Boolean).join(' ') });
    }
    // "Did you take the key?": a fact that states what was asked (or denies it) answers it, with a yes or a no in front.
    const needed = Math.min(2, asked.length);
    if (type === 'yes-no' && fit !== 'answered' && asked.length > 0 && shared(m.words, new Set(asked)) >= needed && m.source !== 'context') return { m, score, fit: 'answered' as const };
    // What everyone in the room was told does not say who did what, where or when, or why: the asker knows it already.
    if (m.source === 'context' && fit === 'answered' && type !== 'what' && type !== 'how' && type !== 'which' && type !== 'how-many') return { m, score, fit: 'partly' as const };
    return { m, score, fit };
  });
};

/** How much of what was asked a telling says first: "I took the key…" before "I put it back… I took the key…". */
const leadsWith = (m: Material, about: ReadonlySet<string>): number => shared(contentWords(m.text.split(/(?<!\b(?:Dr|Mr|Mrs|Ms|St))(?<=[.;])\s/)[0]!), about);

/** "Who told you?" of a fact already told: "Dr. Marsh, as I said." A person for who, a time for when; else nothing. */
const briefly = (fact: string, type: QuestionType, turn: Turn): string | undefined => {
  const found =
    type === 'who'
      ? /(?<!^)\b((?:Dr|Mr|Mrs|Ms)\.\s[A-Z][a-z]+|[A-Z][a-z]+(?:\s[A-Z][a-z]+)?)\b/.exec(fact.replace(/^\W*\w+/, (w) => w.toLowerCase()))?.[1]
      : type === 'when'
        ? /\b((?:at |around |about )?(?:(?:quarter|half|ten|five|twenty|twenty-five) (?:past|to) \w+|\w+ o'clock|\d{1,2}[:.]\d{2}\s?(?:[ap]m)?))\b/i.exec(fact)?.[1]
        : undefined;
  if (!found || (type === 'who' && turn.names.has(found.toLowerCase()) && found.toLowerCase() === turn.cue.speaker.shortName.toLowerCase())) return undefined;
  return `${capitalise(found)}, ${turn.rng.pick(['as I said', 'like I told you', 'as I mentioned'])}.`;
};

/** Whether one line says much the same as another: two in five of the shorter one's concepts in common. */
const restates = (a: Material, b: Material): boolean => {
  const [x, y] = [conceptsOf(a.text), conceptsOf(b.text)];
  return shared(x, y) >= 0.4 * Math.min(x.size, y.size);
};

/** A pronoun with nothing else to go on: "who told you to wash it?" is about what was asked or said just before. */
const thin = (turn: Turn, words: readonly string[], question: string): boolean =>
  words.filter((w) => !turn.names.has(w)).length < 3 && /\b(it|them)\b|\b(that|this|those|there|then)\s*([?.!,]|$)/i.test(question.replace(/^[^,]*,\s*/, ''));

/** The answer to a question, in the speaker's words: what answers it, else an honest "I don't know". */
function* answersTo(turn: Turn, question: string, kw: string | undefined, asker: string | undefined): Generator<string> {
  const { rng, cue } = turn;
  const understood = understand(question);
  const type: QuestionType = understood.type ?? 'what';
  // What the question stands on: the rest of its line ("You were heard shouting at 9:30. What was it about?") and, for a thin one, what was asked or said just before.
  const lead = turn.asked!.text.replace(question, ' ').trim();
  // What the pronoun stands for: the question put to the speaker before, and their answer to this asker, if they gave one.
  const lastAnswer = cue.dialogue?.answered.at(-1);
  const previous = thin(turn, understood.words, question) ? [cue.dialogue?.putTo.at(-1), lastAnswer && lastAnswer.from === cue.obligation?.from ? lastAnswer.answer : undefined] : [];
  // What everyone was told links a question to what the persona knows: "why is this role open again after five months?" is
  // about "the team lost its last product manager after five months", and so about why the last PM left.
  const asking = new Set(understood.words.filter((w) => !turn.names.has(w)));
  const bridges = turn.gathered.material.filter((m) => (m.source === 'context' || m.source === 'content') && shared(m.words, asking) >= 2).map((m) => m.text);
  const antecedent = [lead, ...previous].filter(Boolean).join(' ') || undefined;
  // What a line is ranked by: the question and what its pronoun stands for; a bridge only tells the judge what the question is about.
  const about = new Set([...turn.asked!.words, ...contentWords(kw ?? ''), ...contentWords(previous.filter(Boolean).join(' '))]);
  const introducing = aboutYou.test(question);
  const found = fitting(turn, question, type, about, introducing, antecedent, bridges);
  // What has not been said yet first: a fact already given is referred back to only when nothing new answers.
  // Asked again: what was answered before is referred to, not recited as news (and not swapped for another fact).
  const before = cue.dialogue?.task.again ?? 0;
  // "When was that?" right after an answer is about that answer: what was said just now comes first.
  const earlier = before > 0 ? cue.dialogue?.answered.findLast((a) => sameQuestion(a.question, question))?.answer : previous[1];
  const answers = found
    .filter((f) => f.fit === 'answered')
    .sort((a, b) => (earlier ? similarity(b.m.text, earlier) - similarity(a.m.text, earlier) : Number(a.m.used) - Number(b.m.used) || (type === 'yes-no' ? leadsWith(b.m, about) - leadsWith(a.m, about) : 0)));
  const named = (text: string): string => {
    const where = asker ? rng.next() : 1;
    return where < 0.25 ? `${asker}, ${lowerFirst(text, turn.proper)}` : text;
  };
  for (const { m } of answers.slice(0, 3)) {
    // Said again, the answer is what was said before and nothing more.
    // A second fact only if it says something else: not the first one again in other words ("nineteen hundred dollars a roof" and "$1,900 per roof").
    const second = before > 0 ? undefined : answers.find((f) => f.m.origin !== m.origin && !f.m.used && !restates(f.m, m) && rng.chance(0.35));
    let body = m.text;
    // Asked again what they had turned aside, they give it now: as a concession, not as something said before.
    if (before > 0 && !m.used && !(earlier && similarity(m.text, earlier) > 0.5)) {
      const giving = rng.pick(concessions);
      const said = type === 'yes-no' ? polarity(m, about, question) : null;
      if (said) {
        const lead = rng.pick(polarLeads(turn.asked!.text, said)).replace(/[.,]$/, '');
        yield `${giving}, ${lowerFirst(lead, turn.proper)}. ${m.text}`;
      }
      yield `${giving}. ${m.text}`;
      continue;
    }
    // Said already, and asked only who, when or where: the one thing asked, pointing back at what was said.
    const brief = m.used ? briefly(m.text, type, turn) : undefined;
    if (brief) yield brief;
    if (m.used || before > 0) {
      // Its first part, unless that alone would quote the scene's words at length.
      const short = gist(m.clause);
      const frames = before > 1 ? againTwice : before > 0 ? again : mentioned;
      body = `${fill(rng.pick(frames), { m: turn.gathered.quotes(short) ? m.clause : short })!}.`;
    }
    if (type === 'yes-no') {
      const said = polarity(m, about, question);
      if (said) {
        const picked = rng.pick(polarLeads(turn.asked!.text, said));
        // "Yes, Omar." now and then: the asker's name after the yes or no.
        const lead = asker && rng.chance(0.3) && /^(Yes|No)[.,]$/.test(picked) ? `${picked.slice(0, -1)}, ${asker}${picked.slice(-1)}` : picked;
        yield line(lead.endsWith(',') ? `${lead} ${lowerFirst(body, turn.proper)}` : `${lead} ${body}`, second?.m.text);
        continue;
      }
    }
    const plain = m.used || before > 0 ? body : withMarker(body, marker(turn, 0.15), turn.proper);
    const said = named(plain);
    yield line(said, second?.m.text);
    if (second) yield said;
    // The same answer without the name in front, should the name make it read as a new question or request.
    if (said !== plain) yield plain;
  }
  // Nothing answers it: say so, in character, then what the persona does know that bears on it.
  // Having answered it, the persona never says they don't know.
  if (answers.length) return;
  const related = found.filter((f) => f.fit === 'partly' && f.score >= 1.6 && !f.m.used).slice(0, 2);
  // A question about nothing in particular ("anything you would add?", "what should we take away?") is an invitation: a point of one's own answers it.
  const topical = understood.words.filter((w) => !turn.names.has(w) && !['add', 'think', 'anyth', 'anything', 'take', 'away', 'experienc', 'sit', 'match', 'feel', 'thought'].includes(w));
  if (topical.length === 0 && related.length === 0) for (const text of statementDrafts({ ...turn, last: null })) if (text) yield text;
  // Asked for their take ("what do you make of the reminder software?"), a persona gives their own view: the point of theirs nearest to it.
  if (opinionAsked.test(question)) {
    const views = found.filter((f) => !f.m.used && (f.m.source === 'point' || f.m.source === 'fact' || f.m.source === 'backstory') && !f.m.tags.has('identity')).slice(0, 2);
    for (const v of views) yield named(withMarker(v.m.text, rng.pick(takes), turn.proper));
  }
  // Whoever is there to be asked (a candidate, a presenter) gives what they have that bears on an open question, as far as it goes.
  // Anyone else does too when what they have is close to it (a persona asked something near their own point gives that, not a bare "I don't know").
  if (type === 'what' || type === 'how' || type === 'which' || type === 'why') {
    const close = cue.role.part === 'answerer' ? 0 : 1.6;
    const nearest = found.filter((f) => f.fit === 'partly' && !f.m.used && f.m.source !== 'context' && f.score >= close).slice(0, 2);
    // Said as what it is: the nearest thing they have, not the answer ("Not directly, but…").
    for (const r of nearest) yield named(`${rng.pick(nearby)} ${lowerFirst(r.m.text, turn.proper)}`);
  }
  // "I don't know enough about my clinics" is no thing to say of one's own: such a phrase is left out.
  const x = kw && !/^(my|our)\b/i.test(kw) ? kw : 'that';
  for (const frame of shuffled(unknown[type], rng)) {
    const text = fill(frame, { x });
    if (!text) continue;
    for (const r of related) yield line(named(text), r.m.text);
    yield named(text);
  }
  // Asked again what they could not answer: they say so again, without pretending it is news.
  if (before > 0) for (const frame of shuffled(stillUnknown, rng)) yield named(frame);
  // Other ways of not knowing, for a persona who has had to say so before.
  for (const frame of shuffled(otherUnknown, rng)) yield named(frame);
}

/** Questions about the arrangements ("Does that work?"): a plain yes answers them. */
const arrangement = /\b(does that work|is that (ok|okay|all right|alright|fine)|sounds? good|okay with (you|that)|fine with (you|that)|shall we (start|begin)|ready to (start|begin))\b/i;
const confirmations = ['Yes, that works for me.', 'That works, thank you.', 'Sounds good, {asker}.', 'Yes, perfect, thank you.'];

/** Turning aside a question that touches a secret, in character. */
const deflections = ["I'd rather not get into that, {asker}.", "That's a private matter, {asker}.", "I don't see what that has to do with anything.", "Let's not go there, {asker}."];

function* denials(turn: Turn): Generator<string> {
  const asker = turn.asked!.shortName;
  const frames = ["I don't know what you're getting at, {asker}.", 'Nothing happened that matters, {asker}.', "I've told you where I was.", 'That has nothing to do with any of this, {asker}.'];
  const own = turn.gathered.material.filter((m) => m.source === 'point' || (m.source === 'fact' && (m.tags.has('time') || m.tags.has('place'))));
  for (const frame of shuffled(frames, turn.rng)) {
    const denial = fill(frame, { asker })!;
    for (const m of own.filter((m) => !m.used).slice(0, 2)) yield line(denial, m.text);
    yield denial;
  }
}

function* aside(turn: Turn, frames: string[]): Generator<string> {
  const asker = turn.asked!.shortName;
  for (const frame of shuffled(frames, turn.rng)) yield fill(frame, { asker })!;
}

/** Explaining what one meant by one's own words: "What did you mean by the table?" */
const meanings = ['What I meant: {m}.', 'I meant this: {m}.', 'Just that {m}.', 'Sorry, I was not clear. I meant: {m}.'];

/**
 * Asked what they meant by something they said, a speaker says that sentence again more plainly:
 * the sentence of their own that holds the words asked about, without its lead-in ("Quick recap:").
 */
function* clarifications(turn: Turn): Generator<string> {
  const asked = turn.asked!;
  const about = new Set([...asked.words].filter((w) => !turn.names.has(w) && !['mean', 'meant', 'quick', 'question', 'sorry'].includes(w)));
  if (about.size === 0) return;
  const sentences = [...turn.cue.said].reverse().flatMap((said) => said.split(/(?<=[.!?])\s+/));
  const mine = sentences.find((s) => shared(contentWords(s), about) >= 1);
  if (!mine) return;
  const body = mine.replace(/^[^:]{0,30}:\s*/, '').replace(/[.!?]+$/, '');
  for (const frame of shuffled(meanings, turn.rng)) yield fill(frame, { m: lowerFirst(body, turn.proper) })!;
}

const answerQuestion = (turn: Turn): string => {
  const asked = turn.asked!;
  if (arrangement.test(asked.text)) return firstNovel(turn, aside(turn, confirmations), 'close');
  if (understand(asked.text).act === 'clarification') {
    const explained = firstNovel(turn, clarifications(turn), 'close');
    if (explained) return explained;
  }
  // Two words of a secret in the question: the persona turns it aside rather than answer.
  if (shared(asked.words, contentWords(turn.cue.secrets.join(' '))) >= 2) return firstNovel(turn, aside(turn, deflections), 'close');
  const question = understand(asked.text).asking;
  // Asked for the first time about what they hide: a denial, with what they will say of their evening.
  if (turn.gathered.withheld) return firstNovel(turn, denials(turn), 'close');
  return firstNovel(turn, answersTo(turn, question, asked.phrases[0] ?? turn.topic, asked.shortName), 'close');
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
  // A request for information ("walk me through…", "could you tell me why…") is answered like a question.
  const understood = understand(asked.text);
  if (understood.act === 'proposal') return answerProposal(turn);
  if (understood.act === 'offer') return answerOffer(turn);
  if (understood.act === 'question' || understood.type) return answerQuestion(turn);
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

/** Taking the floor after an invitation means saying something of one's own; for whoever is there to ask, asking. */
const answerInvitation = (turn: Turn): string => {
  const asked = turn.asked!;
  if (turn.cue.role.part === 'asker') return ask({ ...turn, cue: { ...turn.cue, act: 'question', addressee: { id: asked.id, shortName: asked.shortName } }, name: asked.shortName });
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

/** A proposal for the group ("Can we look at the record first?"): agreed to, mostly, with a reason when there is one. */
const answerProposal = (turn: Turn): string => {
  const asked = turn.asked!;
  const { rng } = turn;
  const yes = ['Yes, let us do that.', 'Good idea, {asker}.', 'Fine by me, {asker}.', 'Yes, that makes sense.', 'Sure, {asker}, go ahead.'];
  const no = ['I would rather not just yet, {asker}.', 'Not yet, I think, {asker}.'];
  const reasons = ranked(turn.gathered.material, rng, { about: asked.words }).filter((m) => !m.used && shared(m.words, asked.words) > 0).slice(0, 2);
  function* drafts(): Generator<string> {
    for (const frame of shuffled(rng.chance(0.8) ? yes : no, rng)) {
      const opening = fill(frame, { asker: asked.shortName })!;
      for (const m of reasons) yield line(opening, m.text);
      yield opening;
    }
  }
  return firstNovel(turn, drafts(), 'close');
};

export const answer = (turn: Turn): string => {
  switch (turn.cue.obligation?.pair) {
    case 'question':
      if (floorRequest.test(turn.asked?.text ?? '')) return answerRequest(turn);
      // "Could you write it up for everyone?" asks for an act: it is taken on or declined, not answered "I'm not sure".
      switch (understand(turn.asked?.text ?? '').act) {
        case 'proposal':
          return answerProposal(turn);
        case 'request':
          return answerRequest(turn);
        default:
          return answerQuestion(turn);
      }
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
