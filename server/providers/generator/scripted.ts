/**
 * The scripted generator: the embedded default that needs no key and no network.
 * It writes from the structured `request.cue` only, never from the prompt, using persona-flavoured
 * templates. `cue.variant` seeds the template choice, so the same request always gives the same
 * text and a resample with another variant gives a different one (MPOD §3.2 anti-repetition).
 *
 * ```ts
 * const text = await complete(createScriptedGenerator(), request);
 * // "Thank you, Hugo. Iris, you had your hand up, please go ahead."
 * ```
 *
 * Templates are data: `{slot}` marks a value from the cue, and a template whose slot has no
 * value (no last message, no facts) is simply not a candidate for this turn.
 */
import { rngFrom, type Rng } from '../../engine/rng';
import type { Cue, GenerateRequest, Generator } from './port';

type Slots = Partial<Record<string, string>>;

// ---------------------------------------------------------------- templates

/** Persona flavour: sentence openers by trait (matched by word stem), then neutral ones. */
const openersByTrait: [RegExp, string[]][] = [
  [/analyt|data|method|detail|precise|rigor/, ['Looking at it carefully,', 'If we are precise about it,', 'Going by the evidence,']],
  [/blunt|direct|frank|honest/, ['Frankly,', 'To be blunt,', 'Let me be direct:']],
  [/warm|friend|kind|empath|support/, ['I really appreciate this discussion, and', 'With all the goodwill in the room,', 'Gently put,']],
  [/caut|skept|careful|risk/, ['I would be careful here:', 'Playing it safe,', 'With some caution,']],
  [/optim|enthus|energ|cheer|excit/, ['I am genuinely excited here:', 'On the bright side,', 'Happily,']],
];
const plainOpeners = ['Honestly,', 'For what it is worth,', 'The way I see it,', 'In my view,'];

const statements = {
  agree: [
    'I agree with {Last} on {kw}, and I would take it one step further.',
    '{Last} is right about {kw}. {Fact}',
    'Yes, that is exactly where my head is at, {Last}.',
    'Building on the point about {kw}: {fact}.',
    'That matches what I have seen myself. {Fact}',
    'Good point, {Last}; {kw} is the part we should not lose sight of.',
    '{opener} I am with {Last} here, and it makes {topic} much simpler for us.',
    'Exactly. If we take {kw} seriously, the rest tends to follow.',
    'That is well put, {Last}, and it is consistent with what I have heard from others.',
    'I can get behind that. {Fact}',
    '{opener} {Last} has it right, and I would add one detail: {other}.',
    'Same here; {kw} has been on my mind all week.',
  ],
  disagree: [
    'I see it differently, {Last}: I am not convinced {kw} is the real issue.',
    'With respect, {Last}, I would push back on that. {Fact}',
    '{opener} I am not sure I agree; what worries me about {kw} is the cost of getting it wrong.',
    'That is a fair point, but I would challenge the assumption behind {kw}.',
    'Let me offer a different angle, {Last}: {fact}.',
    'Hmm, I do not fully buy that. We should test it before we commit to anything on {topic}.',
    'I hear you, {Last}, yet my experience points the other way.',
    'I would slow down here, {Last}; {kw} sounds simpler than it is.',
    'Respectfully, that does not match my numbers. {Fact}',
    '{opener} I think we are underestimating the risk around {kw}.',
    'I am not against it, {Last}, but I need more than that before I sign off.',
  ],
  neutral: [
    '{opener} {fact}.',
    'My perspective on {topic} is shaped by one thing: {fact}.',
    'As the {role}, what I care about most is that we land this well.',
    'There are a few ways to look at {topic}, and I would start with the practical one.',
    'Here is how I would frame it: {fact}.',
    'One thing nobody has mentioned yet: {fact}.',
    '{opener} I think {topic} deserves a clear decision today.',
    'Let me add my own angle on {topic}, since it touches my work directly.',
    'Speaking for myself, the priority is this: {fact}.',
    'If I picture us six months from now, {topic} is the decision that will matter most.',
    'I would like us to be honest about the trade-offs in {topic}.',
    'A quick reality check from my side: {fact}.',
    'For me the question is less what we decide and more how we follow through.',
  ],
};

/** For short target lengths (MUCA §3.3.1: simulated humans often say a few words). */
const briefStatements = {
  agree: ['Yes, exactly.', 'I agree with {Last}.', 'Good point about {kw}.', 'Same here.', 'Agreed, {Last}.', 'True, {kw} matters.'],
  disagree: ['I am not so sure.', 'I disagree, {Last}.', 'Not convinced about {kw}.', 'Hmm, I doubt that.', 'That seems risky to me.'],
  neutral: ['I see both sides.', 'Interesting point.', 'Let me think about {kw}.', 'Depends on {topic}, really.', 'Fair enough.'],
};

/** Optional second sentences that carry a statement forward. */
const statementExtras = [
  'Keep in mind: {other}.',
  'I will admit I am feeling a bit {mood} about it.',
  'That is what I would want us to settle before we move on.',
  'Our aim here, after all: {goal}.',
  'It matters for {topic} more than it first appears.',
  'I have seen this play out before, and the details matter.',
  'We can refine the details later.',
  'I am open to being convinced otherwise, though.',
  'That is my honest read, anyway.',
];

/** Second pair parts (MMAgents Fig. 4), by the first pair part they answer. Never questions. */
const answers = {
  question: [
    'Good question, {Asker}. The short answer: {fact}.',
    '{Asker}, honestly, I think it comes down to {kw}.',
    'I would say it depends on {kw}, {Asker}. {Fact}',
    'Fair question. My answer is that we should be realistic about {topic}.',
    'In short, {Asker}, I am cautiously positive about {kw}.',
    '{opener} {fact}, {Asker}.',
    'From where I sit, {Asker}, the answer is yes, with a few conditions.',
  ],
  acceptRequest: ['Sure, {Asker}, I can do that.', 'Happy to, {Asker}. Let me start with {kw}.', 'Of course. I will walk you through it, {Asker}.'],
  declineRequest: [
    'I would rather hold off on that for now, {Asker}, but I can share what I have so far.',
    'I cannot commit to that today, {Asker}; let me come back to you on it.',
  ],
  acceptOffer: ['Thanks, {Asker}, that would really help.', 'Yes please, {Asker}, I would appreciate that.'],
  declineOffer: ['That is kind of you, {Asker}, but I think we are covered.', 'Thanks, {Asker}, though we should be fine for now.'],
  greeting: ['Good morning, {Asker}! Good to see you.', 'Hi {Asker}, great to be here.', 'Hello everyone, and thank you, {Asker}.'],
  invitation: ['Thanks, {Asker}.', 'Thank you, {Asker}, happy to.', 'Sure.'],
  none: ['{Asker}, I think {kw} is the heart of it.', 'That is fair, {Asker}. {Fact}', 'Noted. {Fact}', 'I take your point, {Asker}.'],
};

/** First pair parts. `named` address `cue.addressee`; `group` are used only when there is none. */
const firstPairParts = {
  question: {
    named: [
      '{Name}, what is your take on {topic}?',
      '{Name}, what did you make of the point about {kw}?',
      'How would you approach {kw}, {Name}?',
      '{Name}, where do you stand on this?',
      '{Name}, what would it take for you to feel confident about {topic}?',
      '{Name}, is {kw} something you have looked at?',
      'What is your honest read on this, {Name}?',
    ],
    group: ['What does everyone think about {topic}?', 'Does anyone have a view on {kw}?'],
  },
  request: {
    named: [
      'Could you walk us through {kw}, {Name}?',
      '{Name}, would you mind sharing your numbers on {topic}?',
      '{Name}, could you give us a quick update on {kw}?',
      'Would you take the lead on {kw}, {Name}?',
      'Could you summarise your side of {topic} for us, {Name}?',
    ],
    group: ['Could someone walk us through {topic}?', 'Would anyone volunteer to look into {kw}?'],
  },
  offer: {
    named: [
      '{Name}, I can put together a short summary of {topic} after this, if that helps.',
      'Would it help if I drafted something on {kw}, {Name}?',
      '{Name}, I am happy to pair with you on {kw} this week.',
      'If it saves you time, {Name}, I can take {kw} off your plate.',
    ],
    group: ['I can write up notes on {topic} for everyone, if that helps.', 'Happy to take on {kw} if nobody else has it.'],
  },
  greeting: {
    named: ['Good morning, {Name}!', 'Hi {Name}, good to see you.', 'Hello {Name}, welcome!', 'Good to have you here, {Name}.'],
    group: ['Good morning, everyone!', 'Hello everyone, thanks for joining.', 'Hi all, good to see you.'],
  },
  invitation: {
    named: [
      '{Name}, please go ahead.',
      'Your turn, {Name}.',
      '{Name}, we would love to hear your thoughts on {topic}.',
      '{Name}, the floor is yours.',
    ],
    group: ['Who would like to go next?', 'The floor is open.'],
  },
  /** DialogLab A.3.8: acknowledge the last speaker briefly, then invite the next by name. */
  moderate: {
    named: [
      'Thank you, {Last}. {Name}, you had your hand up, please go ahead.',
      'Thanks, {Last}, that is helpful. {Name}, over to you.',
      'Good point, {Last}. Let us hear from {Name} next; go ahead, {Name}.',
      'Thank you. {Name}, the floor is yours.',
      'Noted, {Last}. {Name}, please go ahead.',
      '{Name}, please go ahead.',
    ],
    group: ['Thank you, {Last}. Who would like to speak next?', 'Thank you. Who is next?'],
  },
  /** MUCA §3.2.3: invite a quiet participant with a question. */
  encourage: {
    named: [
      '{Name}, we have not heard from you yet; what is your take on {topic}?',
      'I would love to hear your view, {Name}: how do you see {kw}?',
      '{Name}, you have been quiet; anything you would add about {topic}?',
      '{Name}, does this match your experience?',
    ],
    group: ['Does anyone who has not spoken yet want to add something?'],
  },
};

const facilitatorActs = {
  summarize: [
    'To sum up, we have been weighing {topic}, and {Last} just raised {kw}.',
    'So far, {topic} is still open, with {kw} as the main sticking point.',
    'Let me recap quickly: we agree on the goal for {topic}, and the open question is {kw}.',
    'In short, we have heard several views on {topic} and are getting closer to a decision.',
  ],
  transition: [
    'Let us move on to the next point: {goal}.',
    'Good, I think that covers it; next up: {goal}.',
    'In the interest of time, let us turn to the next item: {goal}.',
    'Thank you all. Now for the next part: {goal}.',
  ],
  'resolve-conflict': [
    'I hear two reasonable positions here, so let us find what we agree on first.',
    '{Last}, I understand your concern, and I think we all want {topic} to succeed; we differ on how.',
    'Let us take a step back: the disagreement on {kw} is about means, not goals.',
    'Both sides have a point, so let us list what each needs before deciding.',
  ],
  'chime-in': [
    'Just to chime in: {fact}.',
    'Quick thought from me on {kw}: I think it deserves more attention.',
    'If I may add one thing, the point on {kw} ties back to {topic}.',
    'A small addition from my side on {topic}: let us keep it simple.',
  ],
};

/** Cut-ins by the vibe of the interruption rule. */
const interruptions = {
  supportive: ['Yes, exactly, {Last}!', 'Sorry to cut in, but that is spot on.', 'Oh, I love that; {kw} is the key.', 'Absolutely, {Last}, yes.'],
  critical: [
    'Hold on, {Last}, I am not sure that is right.',
    'Sorry, I have to stop you there: {kw} does not add up for me.',
    'Wait, wait, that is not what I have seen.',
    'Hang on, that seems too optimistic.',
  ],
  neutral: ['Sorry, quick point before we move on.', 'Can I jump in for a second, {Last}?', 'Just to add something on {kw}.', 'Sorry, one small thing.'],
};

/** DialogLab §5.2.2: the four deviations a simulated human brings in. */
const deviations = {
  drift: [
    'Sorry, totally unrelated, but did anyone see {off}?',
    'This reminds me of {off}, actually.',
    'Random thought: {off}.',
    'Off topic, but I keep thinking about {off}.',
  ],
  extend: [
    'Building on that, what if we also looked at {kw}?',
    'And to add to it: {fact}.',
    'Could we take that further and think about {topic} over the next year?',
    'One more angle on {topic}: what about the people affected by it?',
  ],
  question: [
    'Wait, can someone explain what {kw} means for us?',
    'Sorry, I am lost. How does {kw} affect {topic}?',
    'Quick question, {Last}: what did you mean by {kw}?',
    'Can I ask something basic about {topic}?',
  ],
  emotional: [
    'Honestly, this is getting a bit overwhelming for me.',
    'I am feeling pretty {mood} about {topic}, to be honest.',
    'I love where this is going!',
    'This really matters to me, so I hope we get it right.',
  ],
};

const offTopics = [
  'the new coffee machine on the third floor',
  'the game last night',
  'that article about four-day weeks',
  'the weather this weekend',
  'the office move next month',
];

// ---------------------------------------------------------------- words

const functionWords = new Set(
  'a an the our your their my his her its this that these those we you they it there here to of in on for with and or but if whether how what why when where which who should could would can will is are was were be being been do does did not no all some any more most much many very just also so as at by from into about than then i me us them he she him'.split(
    ' ',
  ),
);

/** Lower-case-start words that begin a phrase, lowered so the phrase fits mid-sentence. */
const leadWords = new Set('the a an our your their my this that these those we it there to how what why when whether should get make keep'.split(' '));

/** A cue phrase ready to embed: no trailing punctuation, first letter lowered when it is a plain word. */
const phrase = (text: string): string => {
  const trimmed = text.trim().replace(/[.!?;:,]+$/, '');
  const first = trimmed.split(/\s+/)[0] ?? '';
  return leadWords.has(first.toLowerCase()) ? trimmed.charAt(0).toLowerCase() + trimmed.slice(1) : trimmed;
};

/** A long topic shortened to its head, "the launch date for the Aurora app" to "the launch date", so repeated mentions weigh less. */
const subjectOf = (topic: string): string => {
  const words = phrase(topic).split(/\s+/);
  const cut = words.findIndex((w, i) => i >= 2 && /^(for|of|in|on|about|with|to|and|at|from|before|after|during|by)$/i.test(w));
  return words.length > 4 && cut > 0 ? words.slice(0, cut).join(' ') : phrase(topic);
};

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

const tokens = (text: string): string[] => text.toLowerCase().match(/[a-z0-9']+/g) ?? [];

const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

const sentenceCount = (text: string): number => text.split(/(?<=[.!?])\s+/).filter(Boolean).length;

const prepositions = new Set('behind before after about above below between into onto over under with without within across along around through until since from than'.split(' '));

/** Words too common to be what a message is about. */
const fillerWords = new Set(
  'please think really going maybe thanks thank know like want need said something thing things good great right well yeah okay sure actually pretty quite kind sort everyone anyone ahead point handle make made take give have done ready able'.split(
    ' ',
  ),
);

/**
 * What a message is about, to refer back to: a short noun phrase after a determiner ("the port
 * decanter", "our regression suite") when there is one, else one of its longest content words.
 * Never a name.
 */
const keywordOf = (text: string, names: Set<string>, rng: Rng, brief = false): string | undefined => {
  const content = (w: string) => w.length >= 3 && !functionWords.has(w.toLowerCase()) && !fillerWords.has(w.toLowerCase()) && !names.has(w.toLowerCase());
  const phrases: string[] = [];
  const nounish = (w: string) => content(w) && !/(ly|ed|ing)$/i.test(w) && !prepositions.has(w.toLowerCase());
  for (const m of text.matchAll(/\b(the|our|your|their|his|her)\s+([A-Za-z][A-Za-z'-]*)(?:\s+([A-Za-z][A-Za-z'-]*))?/gi)) {
    const [, det, first, second] = m;
    const tail = second && nounish(second) ? ` ${second}` : '';
    if (!content(first!) || (!tail && !nounish(first!))) continue;
    phrases.push(`${det!.toLowerCase() === 'the' ? 'the' : det!.toLowerCase()} ${first}${tail}`.replace(/^(our|your|my)\b/, 'the'));
  }
  if (phrases.length && !brief) return rng.pick(phrases.slice(0, 3));
  const words = (text.match(/[A-Za-z][A-Za-z'-]*/g) ?? []).filter((w) => {
    const word = w.toLowerCase();
    return w.length >= 4 && !functionWords.has(word) && !fillerWords.has(word) && !names.has(word);
  });
  const unique = [...new Set(words)].sort((a, b) => b.length - a.length).slice(0, 2);
  return unique.length ? rng.pick(unique) : undefined;
};

const mentions = (text: string, name: string): boolean =>
  new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(text);

const shuffled = <T>(items: readonly T[], rng: Rng): T[] => {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
};

const fill = (template: string, slots: Slots): string | null => {
  let missing = false;
  const text = template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = slots[key];
    if (!value) missing = true;
    return value ?? '';
  });
  return missing ? null : text;
};

/**
 * Fills one of `templates`, chosen by rng among those whose slots all have values.
 * With a target length, templates near it are preferred (MUCA §3.3.1 lengths for simulated humans).
 */
const choose = (templates: readonly string[], slots: Slots, rng: Rng, targetWords?: number): string | null => {
  const filled = templates.map((t) => fill(t, slots)).filter((t): t is string => t !== null);
  if (filled.length === 0) return null;
  if (targetWords === undefined) return rng.pick(filled);
  const fitting = filled.filter((t) => wordCount(t) <= Math.max(targetWords * 1.5, targetWords + 4));
  return fitting.length ? rng.pick(fitting) : filled.reduce((a, b) => (wordCount(b) < wordCount(a) ? b : a));
};

/**
 * Adds up to two extra sentences, to at most three in all: with a target, while the text stays
 * near it; without one, by chance, so lengths vary. `lead` puts them first (a question must stay last).
 */
const extend = (core: string, extras: string[], rng: Rng, targetWords: number | undefined, lead = false): string => {
  const parts = [core];
  for (const extra of extras.slice(0, 2)) {
    const text = parts.join(' ');
    if (sentenceCount(text) >= 3) break;
    const keep = targetWords === undefined ? rng.chance(0.45) : wordCount(text) + wordCount(extra) <= targetWords * 1.2;
    if (!keep) break;
    if (lead) parts.unshift(extra);
    else parts.push(extra);
  }
  return parts.join(' ');
};

// ---------------------------------------------------------------- acts

const slotsFor = (cue: Cue, rng: Rng): Slots => {
  const last = cue.lastMessage && cue.lastMessage.speaker !== cue.speaker.id ? cue.lastMessage : null;
  const [fact, other] = shuffled(cue.facts, rng).map(phrase);
  const traits = cue.speaker.traits.join(' ').toLowerCase();
  const openers = openersByTrait.find(([pattern]) => pattern.test(traits))?.[1] ?? plainOpeners;
  const calm = /^(neutral|calm|fine|ok|okay)$/i.test(cue.speaker.mood.trim());
  const names = new Set(cue.participants.flatMap((p) => tokens(`${p.name} ${p.shortName}`)));
  return {
    Name: cue.addressee?.shortName,
    Last: last?.shortName,
    Asker: cue.obligation?.fromShortName ?? last?.shortName,
    // A cut-in stays short: one word, not a phrase.
    kw: keywordOf(cue.obligation?.text ?? last?.text ?? '', names, rng, cue.act === 'interrupt'),
    topic: rng.chance(0.4) ? phrase(cue.topic) : subjectOf(cue.topic),
    goal: cue.snippet.goal.trim() ? phrase(cue.snippet.goal) : phrase(cue.topic),
    fact,
    Fact: fact ? `${capitalise(fact)}.` : undefined,
    /** A second fact, so an added sentence does not repeat the first. */
    other,
    role: cue.speaker.role?.replace(/^(the|a|an)\s+/i, ''),
    mood: calm ? undefined : cue.speaker.mood.trim().toLowerCase(),
    opener: rng.pick(openers),
    off: rng.pick(offTopics),
  };
};

/** The first candidate that could be written. Each act's last candidate needs only slots every cue has, so text is never empty. */
const firstOf = (...candidates: (string | null)[]): string => candidates.find((c): c is string => c !== null) ?? '';

const statement = (cue: Cue, slots: Slots, rng: Rng): string => {
  const pattern = slots.Last ? cue.snippet.pattern : 'neutral';
  const pool = cue.targetWords !== undefined && cue.targetWords <= 8 ? briefStatements : statements;
  const core = firstOf(
    choose(pool[pattern], slots, rng, cue.targetWords),
    choose(statements.neutral, slots, rng, cue.targetWords),
    `I have been thinking about ${slots.topic}.`,
  );
  const extras = shuffled(statementExtras, rng)
    .map((t) => fill(t, slots))
    .filter((t): t is string => t !== null);
  return extend(core, extras, rng, cue.targetWords);
};

const answer = (cue: Cue, slots: Slots, rng: Rng): string => {
  const pair = cue.obligation?.pair ?? 'none';
  const accept = rng.chance(0.75);
  const pool =
    pair === 'request'
      ? accept ? answers.acceptRequest : answers.declineRequest
      : pair === 'offer'
        ? accept ? answers.acceptOffer : answers.declineOffer
        : answers[pair];
  const core = firstOf(choose(pool, slots, rng, cue.targetWords), 'I agree, and I am happy to go with that.');
  // Taking the floor after an invitation means saying something of one's own, not reacting to the invitation.
  const text = pair === 'invitation' ? `${core} ${statement({ ...cue, targetWords: 12 }, { ...slots, Last: undefined }, rng)}` : core;
  // A second pair part closes the pair; it must not open another (the engine reads '?' as a question).
  return text.replace(/\?/g, '.');
};

const firstPairPart = (kind: keyof typeof firstPairParts, cue: Cue, slots: Slots, rng: Rng): string => {
  const { named, group } = firstPairParts[kind];
  const pool = slots.Name ? named : group;
  const core = firstOf(choose(pool, slots, rng, cue.targetWords), choose(pool, { ...slots, kw: slots.topic, Last: 'everyone' }, rng));
  const asks = core.endsWith('?');
  // A lead-in sentence before a question keeps it last; other acts may run on.
  const extras = [fill('I keep coming back to one thing: {fact}.', slots), fill('We still need to settle {topic}.', slots)].filter(
    (t): t is string => t !== null,
  );
  return kind === 'question' || kind === 'request' || kind === 'encourage' || kind === 'offer'
    ? extend(core, asks ? extras : [], rng, cue.targetWords, true)
    : core;
};

const vibeOf = (vibe: string | undefined): keyof typeof interruptions => {
  if (/support|agree|posit|enthus|excit|warm/i.test(vibe ?? '')) return 'supportive';
  if (/critic|disagree|negat|skept|hostile|challeng/i.test(vibe ?? '')) return 'critical';
  return 'neutral';
};

const deviation = (cue: Cue, slots: Slots, rng: Rng): string => {
  const intent = cue.intent ?? 'extend';
  const mood = slots.mood ?? (intent === 'emotional' ? 'uneasy' : undefined);
  return firstOf(
    choose(deviations[intent], { ...slots, mood }, rng, cue.targetWords),
    choose(deviations[intent], { ...slots, kw: slots.topic, Last: 'everyone', fact: slots.topic, mood }, rng, cue.targetWords),
  );
};

const utterance = (cue: Cue, rng: Rng): string => {
  const slots = slotsFor(cue, rng);
  const act = cue.act;
  switch (act) {
    case 'statement':
      return statement(cue, slots, rng);
    case 'answer':
      return answer(cue, slots, rng);
    case 'question':
    case 'request':
    case 'offer':
    case 'greeting':
    case 'invitation':
    case 'moderate':
    case 'encourage':
      // Thank the last speaker only when it is not the person being invited.
      return firstPairPart(act, cue, { ...slots, Last: slots.Last !== slots.Name ? slots.Last : undefined }, rng);
    case 'interrupt':
      return firstOf(
        choose(interruptions[vibeOf(cue.vibe)], slots, rng, cue.targetWords),
        choose(interruptions[vibeOf(cue.vibe)], { ...slots, Last: 'everyone', kw: slots.topic }, rng),
      );
    case 'deviation':
      return deviation(cue, slots, rng);
    case 'summarize':
    case 'transition':
    case 'resolve-conflict':
    case 'chime-in':
      return firstOf(
        choose(facilitatorActs[act], slots, rng, cue.targetWords),
        choose(facilitatorActs[act], { ...slots, Last: 'everyone', kw: slots.topic, fact: slots.topic }, rng),
      );
  }
};

// ---------------------------------------------------------------- selector and think()

/** MPOD §3.1 turn selector: the addressee when it is a candidate, else a seeded pick. */
const selectNext = (cue: Cue, rng: Rng): string => {
  const candidates = cue.candidates?.length ? cue.candidates : cue.participants.map((p) => p.shortName);
  const addressee = cue.addressee && cue.participants.find((p) => p.id === cue.addressee?.id);
  const names = [cue.addressee?.id, cue.addressee?.shortName, addressee?.name].filter(Boolean).map((n) => n!.toLowerCase());
  return candidates.find((c) => names.includes(c.toLowerCase())) ?? rng.pick(candidates);
};

/**
 * MMAgents §3.2.1 think(): bid to speak with an importance 0-9. Being named in the last message
 * makes a strong bid; the last message touching the speaker's goals or facts a likely one.
 */
const think = (cue: Cue, rng: Rng): { thought: string; action: 'speak' | 'listen'; importance: number } => {
  const last = cue.lastMessage;
  if (!last) {
    const importance = rng.int(3, 6);
    return { thought: `Someone has to open on ${phrase(cue.topic)}; I could.`, action: importance >= 5 ? 'speak' : 'listen', importance };
  }
  if (last.speaker === cue.speaker.id) {
    return { thought: 'I just spoke; let the others react first.', action: 'listen', importance: rng.int(0, 2) };
  }
  if (cue.obligation || mentions(last.text, cue.speaker.shortName)) {
    return { thought: `${last.shortName} spoke to me directly, so I should answer.`, action: 'speak', importance: rng.int(7, 9) };
  }
  const interests = new Set(tokens([...cue.facts, cue.snippet.goal].join(' ')).filter((w) => w.length >= 4 && !functionWords.has(w)));
  const shared = tokens(last.text).find((w) => interests.has(w));
  if (shared) {
    const importance = rng.int(5, 8);
    return { thought: `${last.shortName} brought up ${shared}, which I care about.`, action: rng.chance(0.85) ? 'speak' : 'listen', importance };
  }
  const importance = rng.int(0, 4);
  return { thought: 'Nothing here needs me yet; I will listen.', action: importance >= 4 && rng.chance(0.5) ? 'speak' : 'listen', importance };
};

// ---------------------------------------------------------------- generator

/** FNV-1a, to mix the turn's identity into the variant's seed. */
const hash = (text: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
};

/** A variant is a number in [0, 1) or an integer; either seeds the same way, mixed with who speaks and how. */
const seedOf = ({ purpose, cue }: GenerateRequest): number => {
  const variant = Number.isInteger(cue.variant) ? cue.variant : Math.floor(cue.variant * 2 ** 32);
  return (variant ^ hash(`${purpose}|${cue.act}|${cue.speaker.id}|${cue.intent ?? ''}`)) >>> 0;
};

const write = (request: GenerateRequest): string => {
  const rng = rngFrom(seedOf(request));
  const { cue } = request;
  switch (request.purpose) {
    case 'select':
      return JSON.stringify({ next: selectNext(cue, rng) });
    case 'think':
      return JSON.stringify(think(cue, rng));
    case 'proposal':
      return deviation(cue, slotsFor(cue, rng), rng);
    case 'utterance':
      return utterance(cue, rng);
  }
};

/** About three deltas, split on spaces, so streaming consumers are exercised. */
const deltasOf = (text: string): string[] => {
  const words = text.split(/(?<= )/);
  const size = Math.max(1, Math.ceil(words.length / 3));
  const deltas: string[] = [];
  for (let i = 0; i < words.length; i += size) deltas.push(words.slice(i, i + size).join(''));
  return deltas;
};

export const createScriptedGenerator = (): Generator => ({
  name: 'scripted',
  async *stream(request, signal) {
    for (const delta of deltasOf(write(request))) {
      signal?.throwIfAborted();
      yield delta;
    }
  },
});
