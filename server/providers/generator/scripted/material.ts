/**
 * Material: what a persona can say this turn, each item a sentence in their own voice. In order
 * of preference: the scene's talking points for them (`cue.bank.points`), their sayable private
 * knowledge (`cue.facts`, retold so that no more than 8 consecutive words are the scene's), their
 * backstory, their goals voiced as intentions, the contents they can see and the shared context.
 *
 * Nothing here may hint at `cue.secrets`: an item carrying one of a secret's distinctive words (a
 * word of the secret nobody has said in public: the topic, the context, the contents, what was just
 * said) or a word a concealment goal names ("the 2019 vintage") is dropped, and so is a confession.
 * Knowledge the persona keeps to themselves (something private, something a goal means to hide)
 * waits for a direct question about it, even when its reveal rule lets it into `cue.facts`.
 */
import type { Cue } from '../../../engine/requests';
import { memoize, memoizeByIdentity } from '../../../engine/memo';
import type { Rng } from '../../../../shared/rng';
import { concealment, roleReference, voicedGoals, type VoicedGoal } from './goals';
import { isHedged, quoting, retellings, type Quoting } from './paraphrase';
import { backstoryForms, backstoryVoice, firstPerson, listenerOf, selfNames, speakerForms, toAddressee } from './person';
import { contentWords, lowerFirst, properNouns, sentence, sentencesOf, shared, tokens, verbWords, wordCount } from './words';

export type Source = 'point' | 'fact' | 'backstory' | 'goal' | 'content' | 'context';

/** What an item speaks to, so an answer can fit the question: "when" wants a time, "how many" a number. */
export type Tag = 'time' | 'place' | 'number' | 'reason' | 'person' | 'identity';

export interface Material {
  /** A sentence in the speaker's voice, ready to say. */
  text: string;
  /** The same, to embed after a lead: no final stop, lower case unless it starts with a name. */
  clause: string;
  source: Source;
  /** Its content words, stemmed. */
  words: ReadonlySet<string>;
  tags: ReadonlySet<Tag>;
  /** Already said this session, by the speaker or just now by someone else, nearly or wholly. */
  used: boolean;
  /** Where it came from, for content: "the doctor's note". */
  cite?: string;
  /** Items retold from the same text share it: an answer does not say the same fact twice. */
  origin: string;
  /** Retold with a hedge to avoid quoting: the plainer retellings come first. */
  hedged: boolean;
}

/** Knowledge nobody would volunteer: a confession. */
const confession = /\b(nobody knows|no one knows|nobody else knows|secret|secretly|killed|murder(ed|er)?|poison(ed)?|removed the evidence)\b/i;
/** What one keeps to oneself: said only in answer to a direct question about it. */
const private_ = /\b(not public|did not tell|didn't tell|has not told|hasn't told|never told|has not said|hasn't said|not sure|confidential|another company|job offer|resign\w*|divorce|affair|owes|owe|privately|quietly|secretly)\b/i;

const tagPatterns: [Tag, RegExp][] = [
  ['time', /\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(am|pm)\b|o'clock|half past|quarter (past|to)|\b(yesterday|tonight|last night|this morning|next (week|year|month|tuesday|wednesday|thursday|friday)|ago|since|until|before|after|when|day|days|weeks?|months?|years?|quarter|june|july|autumn|spring|thursday|wednesday)\b/i],
  ['place', /\b(in|at|into|from|through|toward|near) (the|my|our|his|her) (\w+ )?(room|hall|kitchen|cellar|garden|passage|library|window|office|table|car|house|ward|clinic|clinics|hospital|city|county|lab|door|counter|board|screen)\b/i],
  ['number', /\d|percent|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|half|third|fifth)\b/i],
  ['reason', /\b(because|so that|since|due to|which is why|so|why|caused?|reason)\b/i],
];


/** Sentences of the context that say something about the situation, not about the rehearsal or the room's rules. */
const meta = /\b(trainee|rehears|practis|practic|panelists take turns|answers in between|anyone may|nobody is in charge|facilitates|runs a strict|the conversation is open|sit(s)? around|face a screen|meets? for|share a round|each will stay|\d+-minute|fortnightly|the designer presenting)\b/i;

const citationOf = (content: Cue['contents'][number]): string => {
  if (content.kind === 'slides') return 'the slides';
  if (content.kind === 'poster') return 'the poster';
  const head = content.title.split(/\s+(?:on|for|of|about|,|-)\s+|,\s*/)[0]!.trim();
  return wordCount(head) <= 4 ? `the ${head.charAt(0).toLowerCase()}${head.slice(1)}` : `the ${content.kind}`;
};

/** Words that make a fragment a clause: "Burnout affects about 40% ...", "Bank linking moved ...". */
const hasVerb = (text: string): boolean =>
  tokens(text).some((w) => /^(is|are|was|were|has|have|had|affects?|happens?|happen|showed|shows?|fell|rose|moved|predicted|arrives?|runs?|comes?|goes|takes?|needs?|means?)$/.test(w));

/**
 * A section line as something to say: "Cellar key: on its hook in the hall" is "The cellar key was
 * on its hook in the hall", "Cost: about $1,900 per roof" is "The cost is about $1,900 per roof",
 * "On the table: one glass of port" is "On the table, one glass of port". A label that ends in a
 * preposition ("Found by:") or a body that starts with a verb ("onboarded two accounts") reads as
 * a note, not as speech, and is left out.
 */
const sectionLine = memoize((section: string): string | undefined => {
  const m = section.match(/^([^:]{2,40}):\s+(.+)$/);
  if (!m) return section;
  const label = m[1]!.trim().replace(/^(the|a|an)\s+/i, '');
  const body = m[2]!.trim();
  const noun = /^[A-Z]{2,}/.test(label) ? label : label.toLowerCase();
  const plural = /[^s]s$/.test(label) && !/(sis|ics)$/i.test(label);
  if (/\b(by|from|to|of|with)$/i.test(label) || /^[a-z]+ed\b/.test(body)) return undefined;
  if (/^(on|in|at|under|over|inside|behind)\b/i.test(label)) return `${label}, ${body}`;
  if (/^(on|in|at|by|from|under|over)\b/i.test(body)) return `the ${noun} ${plural ? 'were' : 'was'} ${body}`;
  if (/^(why|what|how|who|when|where)\b/i.test(label) || (wordCount(body) >= 5 && hasVerb(body))) return body;
  if (/^next$/i.test(label)) return `the next step is ${body}`;
  return `the ${noun} ${plural ? 'are' : 'is'} ${body}`;
});

/** "I'm a staff engineer ...", "I've had eleven years on the job": who one is, said when asked or introducing oneself. */
const identity = /^(I'm (a|an|the|[A-Z])|I've had|I was married)/;

/** What an item's text gives, whoever says it and when; null for a text too short to say. */
interface Reading {
  said: string;
  /** `said` without its final stop, to embed (its first letter is lowered or not by the turn's proper nouns). */
  body: string;
  words: ReadonlySet<string>;
  tokens: readonly string[];
  /** Its tags, and the same with 'person' for a text that names someone in the room. */
  tags: ReadonlySet<Tag>;
  personTags: ReadonlySet<Tag>;
  hedged: boolean;
}

// A persona's material is gathered again on every turn: each text is read once.
const readingOf = memoize((text: string): Reading | null => {
  if (wordCount(text) < 4) return null;
  const tagged = (person: boolean): Set<Tag> => {
    const tags = new Set<Tag>(tagPatterns.filter(([, p]) => p.test(text)).map(([t]) => t));
    if (person) tags.add('person');
    if (identity.test(text)) tags.add('identity');
    return tags;
  };
  const said = sentence(text);
  return { said, body: said.trim().replace(/[.;:,!]+$/, ''), words: contentWords(text), tokens: tokens(text), tags: tagged(false), personTags: tagged(true), hedged: isHedged(said) };
});

/** Words of a concealment goal that say how, not what ("hide that ... that night"). */
const concealing = new Set(['hide', 'keep', 'never', 'mention', 'avoid', 'subject', 'private', 'secret', 'quiet', 'hidden', 'night', 'own', 'away']);

/**
 * What the speaker must not hint at: the distinctive words of their secrets (in no public text so
 * far and in none of the facts they may say), and what their concealment goals name (the 2019
 * vintage of "avoid the subject of the 2019 vintage"). `concealed` are the latter, facts about
 * which wait for a direct question.
 */
const sensitiveWords = (cue: Cue): { avoid: Set<string>; concealed: Set<string> } => {
  // Word by word, each text on its own: the scene's texts are read once, only the turn's words are
  // new; and only for a speaker with something to keep (most have no secret and hide nothing).
  let visibleTexts: ReadonlySet<string>[] | undefined;
  const visible = {
    has: (w: string) =>
      (visibleTexts ??= [
        cue.topic,
        cue.context,
        ...cue.contents.flatMap((c) => [c.title, c.summary, ...c.sections]),
        cue.lastMessage?.text ?? '',
        cue.human?.text ?? '',
        cue.obligation?.text ?? '',
      ].map(contentWords).concat(participantWords(cue.participants))).some((words) => words.has(w)),
  };
  const sayableTexts = cue.facts.map(contentWords);
  const sayable = { has: (w: string) => sayableTexts.some((words) => words.has(w)) };
  const avoid = new Set<string>();
  for (const secret of cue.secrets) for (const w of contentWords(secret)) if (!visible.has(w) && !sayable.has(w)) avoid.add(w);
  const concealed = new Set<string>();
  for (const goal of cue.goals) {
    if (!concealment.test(goal.trim())) continue;
    for (const w of contentWords(goal)) if (!concealing.has(w) && !visible.has(w)) concealed.add(w);
  }
  for (const w of concealed) if (!sayable.has(w)) avoid.add(w);
  return { avoid, concealed };
};

/** The words of everyone's name and role, once per room (the engine gives a session's cues one participant list). */
const participantWords = memoizeByIdentity((participants: Cue['participants']): ReadonlySet<string>[] => participants.map((p) => contentWords(`${p.name} ${p.role ?? ''}`)));

const usedIn = (words: ReadonlySet<string>, said: readonly ReadonlySet<string>[]): boolean =>
  words.size > 0 && said.some((s) => shared(words, s) >= Math.max(2, Math.ceil(words.size * 0.6)));

export interface Gathered {
  material: Material[];
  goals: VoicedGoal[];
  /** What the speaker would rather not touch: their secrets' distinctive words and what their concealment goals name. */
  avoid: Set<string>;
  /** Whether a text quotes private knowledge (facts and secrets) at length. */
  quotes: Quoting;
  /** Something the speaker hides was asked about for the first time: they deny before they concede. */
  withheld: boolean;
}

// What a scene's own texts offer is the same on every turn: each text is sifted once.

/** The backstory's sentences a persona would say aloud: no confession, nothing kept private. */
const sayableBackstory = memoize((backstory: string): readonly string[] =>
  // What someone wants ("Wants to be seen as reliable") is an agenda, not something they say about themselves.
  sentencesOf(backstory).filter((line) => !confession.test(line) && !private_.test(line) && !agenda.test(line) && !temperament.test(line)),
);
/**
 * What one has done, out of who one is: "I'm a designer who changed the flow twice after user
 * tests…" also says "I changed the flow twice after user tests…", which answers "why did the
 * design change?" where the introduction would not (a line about who one is is said only when
 * asked who one is). The relative clause's first verb is put in the first person ("who has kept"
 * → "I have kept", "who needs" → "I need"); undefined when the line has no such clause.
 */
export const deedOf = (voiced: string): string | undefined => {
  const m = /^I'm (?:a|an|the)\s[^,;]*?\swho\s+(\w+)\b(.*)$/.exec(voiced);
  if (!m) return undefined;
  const verb = m[1]!;
  const first = irregular[verb.toLowerCase()] ?? (/(ss|us)$/.test(verb) || !/s$/.test(verb) ? verb : /ies$/.test(verb) ? `${verb.slice(0, -3)}y` : /(sh|ch|x|z|ss)es$/.test(verb) ? verb.slice(0, -2) : verb.slice(0, -1));
  return `I ${first}${m[2]}`;
};
const irregular: Record<string, string> = { has: 'have', is: 'am', was: 'was', does: 'do', goes: 'go' };

const agenda = /\b(wants?|hopes?|hoping|would like|is determined|needs? (someone|to be seen))\b/i;
/** How others see someone ("Charming, talks too much when nervous", "can be short with people when tired"): the author's note, not a thing one says of oneself. */
const temperament = /\b(can be (short|blunt|curt|impatient|defensive|prickly)|talks too much|charming|when (nervous|tired|cornered|stressed)|tends to|is known for)\b/i;

/** A content summary's sentences as lines to say; sentences that start with a verb ("Found 10:05pm slumped ...") are notes, not speech. */
const summaryLines = memoize((summary: string): readonly string[] =>
  sentencesOf(summary)
    .filter((line) => !(wordCount(line) < 7 || /^[A-Z][a-z]+ed\b/.test(line) || verbWords.has(line.split(/\s+/)[0]!.toLowerCase()) || (!line.includes(':') && !hasVerb(line))))
    .map((line) => sectionLine(line.replace(/\.$/, '')))
    .filter((line): line is string => line !== undefined),
);

/** The context's sentences that are news, each as it is said: not the setting ("Alder Creek, a family vineyard in the hills ...") nor the rules of the room. */
const contextLines = memoize((context: string): readonly { line: string; news: string }[] =>
  sentencesOf(context)
    .filter((line) => !(meta.test(line) || roleReference.test(line) || !hasVerb(line) || wordCount(line) < 7))
    .map((line) => ({ line, news: line.replace(/^Everyone knows:\s*/i, '') })),
);

/** The context's news that names nobody in the room, per room (a session's cues share one participant list) and context. */
const anonymousNews = memoizeByIdentity((participants: Cue['participants']) => {
  const everyone = participants.flatMap((p) => [p.name, p.shortName]);
  return memoize((context: string): readonly string[] => contextLines(context).filter(({ line }) => !everyone.some((n) => line.includes(n))).map(({ news }) => news), 64);
});

/** A sentence of news in its parts: split at semicolons, each part of four words or more a sentence; else the whole. */
const newsParts = memoize((news: string): readonly string[] => {
  const parts = news.split(/;\s+/).map((p) => p.trim().replace(/[.;]+$/, ''));
  return parts.length > 1 && parts.every((p) => wordCount(p) >= 4) ? parts.map((p) => sentence(p)) : [news];
});

export const gather = (cue: Cue, rng: Rng, names: ReadonlySet<string>): Gathered => {
  const { avoid, concealed } = sensitiveWords(cue);
  const question = cue.obligation?.pair === 'question' || cue.obligation?.pair === 'request' ? contentWords(cue.obligation.text) : new Set<string>();
  const quotes = quoting([...cue.facts, ...cue.secrets]);
  const said = cue.said.map(contentWords);
  const listener = listenerOf(cue);
  const self = selfNames(cue);
  const items: Material[] = [];
  // Pressed before: a question put to them earlier touched the same thing (two words in common).
  const putTo = (cue.dialogue?.putTo ?? []).map(contentWords);
  const pressed = (words: ReadonlySet<string>): boolean => putTo.some((q) => shared(words, q) >= 2);
  let withheld = false;
  // What someone just said (not asked) is said: nobody repeats it as news.
  const heard = [cue.lastMessage?.text, cue.human?.text].filter((t): t is string => !!t && !t.includes('?')).map(contentWords);
  const proper = properNouns([cue.context, cue.speaker.backstory ?? '', ...cue.facts, ...cue.bank.points, ...cue.contents.flatMap((c) => [c.summary, ...c.sections])]);
  for (const p of cue.participants) for (const n of tokens(p.name)) proper.add(n);
  const add = (text: string | undefined, source: Source, cite?: string, origin = text ?? '') => {
    if (!text) return;
    const reading = readingOf(text);
    if (!reading) return;
    const { words } = reading;
    for (const w of words) if (avoid.has(w)) return;
    items.push({
      text: reading.said,
      clause: lowerFirst(reading.body, proper),
      source,
      words,
      tags: reading.tokens.some((w) => names.has(w)) ? reading.personTags : reading.tags,
      used: usedIn(words, said) || usedIn(words, heard),
      origin,
      hedged: reading.hedged,
      ...(cite ? { cite } : {}),
    });
  };

  for (const point of cue.bank.points) add(point, 'point');

  for (const fact of cue.facts) {
    if (confession.test(fact)) continue;
    // Facts reach the cue only when their reveal rule allows them; what one keeps private, or means to
    // hide, still waits for a question about it (two words in common: "your boots ... so muddy").
    const words = contentWords(fact);
    if ((private_.test(fact) || shared(words, concealed) > 0) && shared(words, question) < 2) continue;
    // What a goal means to hide is denied the first time it is asked about, and conceded when pressed (a suspect defends before it concedes).
    if (shared(words, concealed) > 0 && !pressed(words)) {
      withheld = true;
      continue;
    }
    const mine = toAddressee(firstPerson(fact.trim(), speakerForms(cue, fact), self), listener);
    for (const told of retellings(mine, quotes, rng)) add(told, 'fact', undefined, fact);
  }

  const forms = backstoryForms(cue);
  for (const line of sayableBackstory(cue.speaker.backstory ?? '')) {
    const voiced = backstoryVoice(line, forms, self);
    add(voiced && toAddressee(voiced, listener), 'backstory');
    const deed = voiced && deedOf(voiced);
    if (deed) add(toAddressee(deed, listener), 'backstory', undefined, line);
  }

  // Goals steer what a persona asks and requests; an agenda read out ("I am hoping to…") is not something people say.
  const goals = voicedGoals(cue, rng);

  for (const content of cue.contents) {
    const cite = citationOf(content);
    for (const line of summaryLines(content.summary)) add(line, 'content', cite);
    for (const section of content.sections) add(sectionLine(section), 'content', cite);
  }

  // The context's news clause by clause: "the cellar is kept locked" answers what a long sentence of the evening buries.
  for (const news of anonymousNews(cue.participants)(cue.context)) for (const part of newsParts(news)) add(part, 'context');
  // Whoever runs the meeting knows what happens after it.
  const next = cue.role.form && (cue.role.part === 'asker' || cue.role.part === 'chair') ? whatHappensNext[cue.role.form] : undefined;
  // Theirs to say, like a point of their own: not the room's shared context.
  if (next) add(next, 'point');
  // A fact said once in any retelling is said.
  const usedOrigins = new Set(items.filter((m) => m.used).map((m) => m.origin));
  for (const m of items) if (usedOrigins.has(m.origin)) m.used = true;
  return { material: items, goals, avoid, quotes, withheld };
};

/** What those who run a meeting of each form can say of what comes after it. */
const whatHappensNext: Partial<Record<NonNullable<Cue['role']['form']>, string>> = {
  interview: 'After today the panel talks it over, and you will hear from us within the week.',
  standup: 'After the stand-up, blockers get picked up straight away, and we check in again tomorrow morning.',
  retro: 'After the retro, each action gets an owner, and we look at them again at the next retro.',
  review: 'After today I write this up, and we agree the goals for the next half in our next one-to-one.',
  critique: 'After the critique, the designer picks what to change, and we look at the next version next week.',
  discussion: 'After this meeting, the decision and its owners go round in the notes.',
  qa: 'After the questions we break for lunch, and the speaker is around for anything we did not get to.',
  poster: 'The poster session runs until lunch, and the presenters stay by their boards until then.',
};

const sourceWeight: Record<Source, number> = { point: 3, fact: 2.5, backstory: 1.5, goal: 2, content: 1.2, context: 0.4 };

/** What a turn wants of its material. */
export interface Ranking {
  /** Content words of what the line responds to. */
  about: ReadonlySet<string>;
  /** Tags an answer should carry: a time for "when", a reason for "why". */
  want?: ReadonlySet<Tag>;
  /** Answering a question: knowledge first (the engine offers facts most relevant first), nothing unrelated. */
  answering?: boolean;
  /** Saying who one is is welcome: an introduction, or a question about oneself. */
  introducing?: boolean;
  /** Shared knowledge (the context, a public document) only where it bears on what is being said. */
  relevant?: boolean;
}

/**
 * Material ranked for a turn: by how many words it shares with what it responds to, the tags
 * wanted, its source, and whether it is still unsaid. Who-I-am lines wait for an introduction.
 */
export const ranked = (material: readonly Material[], rng: Rng, ranking: Ranking): Material[] =>
  material
    .map((m, index) => {
      const overlap = shared(m.words, ranking.about);
      let score = (m.source === 'context' ? 1.1 : 2.2) * overlap + sourceWeight[m.source] + rng.next() * 2;
      for (const tag of ranking.want ?? []) if (m.tags.has(tag)) score += 1.5;
      if (ranking.answering && m.source === 'fact') score += 2 - index * 0.05;
      if (ranking.answering && overlap === 0 && (m.source === 'goal' || m.source === 'context')) score -= 3;
      if (ranking.relevant && overlap < 2 && (m.source === 'content' || m.source === 'context')) score -= 4;
      if (ranking.answering && overlap === 0 && m.source === 'content') score -= 2;
      if (m.tags.has('identity')) score += 3;
      if (m.used) score -= 6;
      if (m.hedged) score -= 1.5;
      return { m, score };
    })
    // Who one is waits for an introduction or a question about oneself.
    .filter(({ m }) => ranking.introducing || !m.tags.has('identity'))
    .sort((a, b) => b.score - a.score)
    .map(({ m }) => m);

/** Whether an item bears on `about` at all. */
export const bearsOn = (m: Material, about: ReadonlySet<string>): boolean => shared(m.words, about) > 0;

