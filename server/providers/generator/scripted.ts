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
 *
 * What goes into the slots is prepared so that it can be said aloud:
 * - private knowledge is written in the third person ("Her network's no-show rate is 19%"); it is
 *   turned into the first person ("My network's no-show rate is 19%"), and knowledge the persona
 *   would keep to themselves (a confession, something "nobody knows", what a goal says to hide)
 *   is not volunteered;
 * - goals are imperatives ("get Ruth's card"); they are voiced as intentions ("I'd really like
 *   to ...") or turned into the act they call for (asking for the card), never read out, and
 *   covert ones ("steer suspicion toward Rupert") are never voiced at all;
 * - the scene topic and the snippet goal are stage directions: the topic is referred to by a short
 *   noun phrase when it has one ("the launch date") and otherwise as "this"; a snippet goal is only
 *   ever announced by a facilitator moving on, and only when it reads as an agenda item;
 * - the last message is referred back to by a real noun phrase from it ("the port decanter"), or
 *   by "that".
 */
import { detectDesignation } from '../../engine/designation';
import { rngFrom, type Rng } from '../../engine/rng';
import { similarity } from '../../engine/similarity';
import type { Generator } from './port';
import type { Cue, GenerateRequest } from '../../engine/requests';

type Slots = Partial<Record<string, string>>;

/** What kind of conversation this is, read from the topic: which templates fit it. */
type Kind = 'social' | 'investigative' | 'deliberative' | 'talk';

/** A template pool: `all` fits any scene; the others only that kind of scene. */
type Pool = { all: string[] } & Partial<Record<Kind, string[]>>;

const poolFor = (pool: Pool, kind: Kind): string[] => [...pool.all, ...(pool[kind] ?? [])];

// ---------------------------------------------------------------- templates

/** Persona flavour: discourse markers by trait (matched by word stem), then neutral ones. */
const openersByTrait: [RegExp, string[]][] = [
  [/analyt|data|method|detail|precise|rigor|evidence|metric/, ['Going by the evidence,', 'To be precise,', 'Looking at it carefully,']],
  [/blunt|direct|frank|terse|laconic/, ['Frankly,', 'To be blunt,', 'Look,']],
  [/warm|friend|kind|empath|support|reassur/, ['You know,', 'Well,', 'I have to say,']],
  [/caut|skept|scept|careful|risk/, ['If I am honest,', 'Carefully put,', 'Well,']],
  [/optim|enthus|energ|cheer|excit|joke/, ['You know what,', 'Honestly,', 'Oh,']],
];
const plainOpeners = ['Honestly,', 'For what it is worth,', 'To be honest,', 'Well,'];

/** Statements that react to the last speaker (pattern agree or disagree), then say something of one's own. */
const reactions = {
  agree: [
    'I agree with {Last}. {Fact}',
    '{Last} is right about {kw}. {Fact}',
    'Yes, that is exactly where my head is at, {Last}.',
    'Building on what {Last} said: {fact}.',
    'That matches what I have seen myself. {Fact}',
    'Good point, {Last}; we should not lose sight of {kw}.',
    'Exactly. If we take {kw} seriously, the rest tends to follow.',
    'That is well put, {Last}. {Want}',
    'I can get behind that. {Want}',
    '{opener} {Last} has it right, and I would add one thing: {other}.',
    'Same here; I have had {kw} on my mind too.',
    'I agree with {Last} on {kw}, and I would take it one step further.',
    'Right, and it fits with what I know: {fact}.',
    'Agreed, {Last}. {Want}',
  ],
  disagree: [
    'I see it differently, {Last}: I am not convinced the real issue is {kw}.',
    'With respect, {Last}, I would push back on that. {Fact}',
    '{opener} I am not sure I agree; what worries me about {kw} is the cost of getting it wrong.',
    'That is a fair point, but I would challenge the assumption behind {kw}.',
    'Let me offer a different angle, {Last}: {fact}.',
    'Hmm, I do not fully buy that. {Fact}',
    'I hear you, {Last}, yet my experience points the other way.',
    'I would slow down here, {Last}; there is more to {kw} than it sounds.',
    'Respectfully, that does not match what I know. {Fact}',
    '{opener} I think we are underestimating {kw}.',
    'I am not against it, {Last}, but I need more than that. {Want}',
    'I am not so sure, {Last}. {Want}',
  ],
};

/** Statements of one's own: what the speaker knows, wants, or thinks. */
const ownStatements: Pool = {
  all: [
    '{opener} {fact}.',
    '{Fact}',
    'For what it is worth, {fact}.',
    'Here is something from my side: {fact}.',
    'One thing I can add: {fact}.',
    '{Want}',
    '{opener} {want}.',
    'Speaking for myself, {want}.',
    'I keep thinking about {kw}.',
    'That is interesting, {Last}. {Fact}',
    'That is worth thinking about, {Last}. {Want}',
    'There is more to {topic} than it looks, I think.',
    'I have been turning {topic} over in my head, and I am not sure we have it right yet.',
  ],
  deliberative: [
    'I would like us to be honest about the trade-offs here.',
    'For me the question is less what we decide and more how we follow through.',
    'We should make a call on {topic} today rather than let it drift.',
  ],
  social: ['It is good to talk to people outside my own bubble, honestly.', 'I am mostly here to listen and learn, to be honest.'],
  investigative: [
    'I have told you everything I remember.',
    'Something about that evening still does not sit right with me.',
    'I keep going over the evening in my head.',
    'None of this makes any sense to me.',
  ],
  talk: [
    'I would be curious how this holds up in practice.',
    'That is a fair challenge, and I want to take it seriously.',
    'It raises a bigger question than it answers, I think.',
    'I like where this is heading, to be honest.',
  ],
};

/** Own statements for whoever runs an investigation, instead of the witnesses' ones. */
const investigatorStatements = ['Let me go over the timeline once more.', 'Someone in this room knows more than they are saying.', 'I would like to hear that again, slowly.'];


/** For short target lengths (MUCA §3.3.1: simulated humans often say a few words). */
const briefStatements = {
  agree: ['Yes, exactly.', 'I agree with {Last}.', 'Good point about {kw}.', 'Same here.', 'Agreed, {Last}.', 'True, good point about {kw}.'],
  disagree: ['I am not so sure.', 'I disagree, {Last}.', 'Not convinced about {kw}.', 'Hmm, I doubt that.', 'That seems risky to me.'],
  neutral: ['I see both sides.', 'Interesting point.', 'Let me think about {kw}.', 'Depends, really.', 'Fair enough.', 'Hm, good to know.'],
};

/** Optional second sentences that carry a statement forward. */
const statementExtras: Pool = {
  all: ['Also, {other}.', '{Want}', 'I will admit I am a bit {uneasy} about it.'],
  deliberative: ['I am open to being convinced otherwise, though.', 'That is my honest read, anyway.', 'That is what I would want us to settle before we move on.'],
  talk: ['I am open to being convinced otherwise, though.', 'That is my honest read, anyway.'],
  social: ['That is my honest read, anyway.'],
  investigative: ['That is all I can tell you.'],
};

/** Second sentences that add no content: a statement takes at most one. */
const fillers = new Set([
  'That is all I can tell you.',
  'I am open to being convinced otherwise, though.',
  'That is my honest read, anyway.',
  'That is what I would want us to settle before we move on.',
]);

/** Answers to a question, best first: with knowledge, with a goal, with a stance, with nothing. */
const questionAnswers = {
  factWh: [
    'Good question, {Asker}. {Fact}',
    '{Fact} That is the honest answer, {Asker}.',
    'Well, {Asker}, {fact}.',
    'What I can tell you is this: {fact}.',
    'As far as I know, {Asker}, {fact}.',
  ],
  /** Yes-or-no questions get a short answer first, then what backs it. */
  yesNo: ['I think so, {Asker}.', 'Partly, {Asker}.', 'Not entirely, {Asker}.', 'Yes, mostly.', 'Honestly, it depends, {Asker}.', 'I would say yes, {Asker}, with a caveat.'],
  want: ['{Asker}, {want}.', 'Honestly, {Asker}, {want}.', 'For me it is simple, {Asker}: {want}.', 'Well, {want}.'],
  stance: [
    'It is a fair point about {kw}, {Asker}, and I will not pretend we have solved it.',
    'Honestly, {Asker}, it comes down to {kw}, and I would rather be careful than quick.',
    'I would start with {kw}, {Asker}; that is where most of the risk is.',
    'My honest guess is that there is more to {kw} than it looks.',
    'I think people underestimate {kw}, and I would look there first.',
  ],
  none: {
    all: [
      'Honestly, {Asker}, I do not know yet; I would rather check than guess.',
      'Fair question, {Asker}. I would rather not guess; I will check and get back to you.',
      'My honest answer is that it depends on the details, and I would rather not overclaim.',
    ],
    talk: [
      'Good question, {Asker}. I can speak to part of that, but not all of it, and I would rather say so plainly.',
      'The short answer is that I only know part of the picture, {Asker}, so I would be careful generalising.',
    ],
    investigative: ['I have already said what I know, {Asker}.', 'I was not paying attention to the time, {Asker}; I wish I had been.'],
    social: [
      'Oh, it has been a bit of a mixed bag, {Asker}, to be honest.',
      'Still figuring that out, {Asker}, honestly.',
      'Oh, a bit of everything, {Asker}; it is a long story.',
      'I am still new to all this, to be honest, {Asker}.',
    ],
    deliberative: ['I would need to check the details before I commit, {Asker}.'],
  } as Pool,
  /** Backing for a bare yes or no, when there is nothing more specific to say. */
  hedge: ['I would rather not overclaim, though.', 'There is more to it, but that is the short version.', 'I would want to check the details first.'],
};

/** Second pair parts (MMAgents Fig. 4) other than answers to questions. Never questions. */
const answers = {
  acceptRequest: ['Sure, {Asker}, I can do that.', 'Happy to, {Asker}. {Fact}', 'Of course. {Fact}', 'Of course, {Asker}. Let me start with {kw}.', 'Sure. {Want}'],
  declineRequest: [
    'I would rather hold off on that for now, {Asker}, but I can share what I have so far.',
    'I cannot commit to that today, {Asker}; I will get back to you on it.',
  ],
  acceptOffer: ['Thanks, {Asker}, that would really help.', 'Yes please, {Asker}, I would appreciate that.'],
  declineOffer: ['That is kind of you, {Asker}, but I think we are covered.', 'Thanks, {Asker}, though we should be fine for now.'],
  greeting: ['Hi {Asker}, good to see you.', 'Hello, {Asker}! Nice to meet you.', 'Hello everyone, and thank you, {Asker}.', 'Hi {Asker}, nice to meet you. {Intro}'],
  invitation: ['Thanks, {Asker}.', 'Thank you, {Asker}, happy to.', 'Sure.'],
  none: ['{Asker}, I think the heart of it is {kw}.', 'That is fair, {Asker}. {Fact}', 'Noted. {Fact}', 'I take your point, {Asker}.'],
};

/** First pair parts. `named` address `cue.addressee`; `group` are used only when there is none. */
const firstPairParts: Record<string, { named: Pool; group: Pool }> = {
  question: {
    named: {
      all: [
        '{Name}, what did you make of {kw}?',
        'How would you approach {kw}, {Name}?',
        '{Name}, where do you stand on this?',
        '{Name}, have you looked at {kw} yourself?',
        'What is your honest read on this, {Name}?',
        '{Name}, what is your take on {topic}?',
      ],
      deliberative: ['{Name}, what would it take for you to feel confident about {topic}?', '{Name}, what would you need from us to move forward?'],
      social: ['{Name}, what do you work on?', 'So what brings you here, {Name}?', '{Name}, how did you end up in your line of work?', '{Name}, how are you finding it so far?'],
      investigative: ['{Name}, where exactly were you at the time?', '{Name}, what did you see?', 'And then what happened, {Name}?', '{Name}, is there anything you have not told us?'],
      talk: ['{Name}, how would that work in practice?', '{Name}, how confident are you in {kw}?', '{Name}, what would you do differently next time?'],
    },
    group: { all: ['What does everyone think?', 'Does anyone have a view on {kw}?', 'Does anyone see it differently?'] },
  },
  request: {
    named: {
      all: [
        'Could you walk us through {kw}, {Name}?',
        '{Name}, could you say a bit more about {kw}?',
        '{Name}, could you say a bit more about that?',
        'Could you walk me through that again, {Name}?',
      ],
      deliberative: ['{Name}, could you give us a quick update on {kw}?', 'Would you take the lead on {kw}, {Name}?', '{Name}, would you mind sharing your numbers on {topic}?'],
      social: ['{Name}, could you tell me a bit about what you do?'],
      investigative: ['{Name}, could you tell us exactly what you saw?', '{Name}, would you go over your timeline once more?'],
      talk: ['{Name}, could you give us a concrete example?'],
    },
    group: { all: ['Could someone walk us through that?', 'Would anyone volunteer to look into {kw}?'] },
  },
  offer: {
    named: {
      all: ['{Name}, I can help with any of this, if you need me.'],
      deliberative: [
        '{Name}, I can put together a short summary after this, if that helps.',
        '{Name}, I am happy to pair with you on {kw} this week.',
        'Would it help if I wrote something up on {kw}, {Name}?',
        'If it saves you time, {Name}, I can take {kw} off your plate.',
      ],
      social: ['{Name}, I would be happy to introduce you to a few people here.', '{Name}, can I get you a coffee before the next session?'],
      investigative: ['{Name}, can I get you a glass of water?'],
      talk: ['{Name}, I am happy to send you my notes afterwards.'],
    },
    group: { all: ['I can write up notes for everyone, if that helps.', 'Happy to take on {kw} if nobody else has it.'] },
  },
  greeting: {
    named: { all: ['Hi {Name}, good to see you.', 'Hello {Name}, welcome!', 'Good to have you here, {Name}.', 'Hi {Name}!'] },
    group: { all: ['Hello everyone!', 'Hello everyone, thanks for joining.', 'Hi all, good to see you.'] },
  },
  invitation: {
    named: { all: ['{Name}, please go ahead.', 'Your turn, {Name}.', '{Name}, we would love to hear your thoughts.', '{Name}, the floor is yours.'] },
    group: { all: ['Who would like to go next?', 'The floor is open.'] },
  },
  /** DialogLab A.3.8: acknowledge the last speaker briefly, then invite the next by name. */
  moderate: {
    named: {
      all: [
        'Thank you, {Last}. {Name}, you had your hand up, please go ahead.',
        'Thanks, {Last}, that is helpful. {Name}, over to you.',
        'Good point, {Last}. Let us hear from {Name} next; go ahead, {Name}.',
        'Thank you. {Name}, the floor is yours.',
        'Noted, {Last}. {Name}, please go ahead.',
        '{Name}, please go ahead.',
      ],
    },
    group: { all: ['Thank you, {Last}. Who would like to speak next?', 'Thank you. Who is next?'] },
  },
  /** MUCA §3.2.3: invite a quiet participant with a question. */
  encourage: {
    named: {
      all: [
        '{Name}, we have not heard from you yet; what is your take?',
        'I would love to hear your view, {Name}: how do you see {kw}?',
        '{Name}, you have been quiet; anything you would add?',
        '{Name}, does this match your experience?',
      ],
    },
    group: { all: ['Does anyone who has not spoken yet want to add something?'] },
  },
};

/** Questions and requests that pursue the speaker's own goals (see `voiceGoal`). */
const goalQuestions = ['{Name}, can I ask {ask}?', '{Name}, do you know {ask}?', '{Name}, I keep wondering {ask}; what do you think?'];

const facilitatorActs: Record<'summarize' | 'transition' | 'resolve-conflict' | 'chime-in', Pool> = {
  summarize: {
    all: [
      'To sum up, we have heard a few views, and {Last} just raised {kw}.',
      'So far, the main open question is {kw}.',
      'In short, we have heard several views on {topic} and are getting closer.',
      'So, to sum up where we are: several views, and no agreement yet.',
    ],
    deliberative: ['Let me recap quickly: we agree on the goal, and the open question is {kw}.'],
  },
  transition: {
    all: [
      "Good, I think that covers it. Next, let's {agenda}.",
      "In the interest of time, let's {agenda}.",
      "Thank you all. Now let's {agenda}.",
    ],
  },
  'resolve-conflict': {
    all: [
      'I hear two reasonable positions here, so let us find what we agree on first.',
      '{Last}, I understand your concern, and I think we all want this to work; we differ on how.',
      'Let us take a step back: the disagreement on {kw} is about means, not goals.',
      'Both sides have a point, so let us list what each needs before deciding.',
    ],
  },
  'chime-in': {
    all: [
      'Just to chime in: {fact}.',
      'Quick thought from me on {kw}: I think it deserves more attention.',
      'If I may add one thing: {fact}.',
      'Just to chime in: {want}.',
      'I was going to say the same thing, actually.',
      'Just to chime in: I would take a closer look at {kw}.',
    ],
    deliberative: ["A small addition from my side: let's keep it simple."],
    social: ['Ha, I know exactly what you mean.', 'Oh, that is so true.'],
    investigative: ['That is not quite how I remember it.'],
    talk: ['That is a really good point, actually.'],
  },
};

/** Moving on when the next snippet's goal is a stage direction rather than an agenda item. */
const plainTransitions = ["Good, I think that covers it; let's move on.", "In the interest of time, let's keep moving.", "Thank you all. Let's turn to the next part."];

/** Cut-ins by the vibe of the interruption rule. */
const interruptions = {
  supportive: ['Yes, exactly, {Last}!', 'Sorry to cut in, but that is spot on.', 'Oh, I love that point about {kw}.', 'Absolutely, {Last}, yes.'],
  critical: ['Hold on, {Last}, I am not sure that is right.', 'Sorry, I have to stop you there: that does not add up for me.', 'Wait, wait, that is not what I have seen.', 'Hang on, that seems too optimistic.'],
  neutral: ['Sorry, quick point before we move on.', 'Can I jump in for a second, {Last}?', 'Just to add something on {kw}.', 'Sorry, one small thing.'],
};

/** DialogLab §5.2.2: the four deviations a simulated human brings in. */
const deviations: Record<'drift' | 'extend' | 'question' | 'emotional', Pool> = {
  drift: {
    all: [
      'Sorry, totally unrelated, but did anyone notice {off}?',
      'This reminds me of {off}, actually.',
      'Random thought: {off}.',
      'Off topic, but I keep thinking about {off}.',
    ],
  },
  extend: {
    all: ['Building on that, what if we also looked at {kw}?', 'And to add to it: {fact}.', 'Also, {want}.'],
    deliberative: ['Could we take that further and think about {topic} over the next year?', 'One more angle: what about the people affected by it?'],
    talk: ['One more angle: what about the people affected by it?'],
    social: ['And how did you get into that?'],
    investigative: ['And who else knew about {kw}?', 'Let us go back a step: who saw {kw} last?'],
  },
  question: {
    all: [
      'Wait, can someone explain what {kw} would mean for us?',
      'Sorry, I am lost. How does {kw} fit in?',
      'Quick question, {Last}: what did you mean by {kw}?',
      'Can I ask {ask}?',
      'Sorry, could someone explain that again?',
      'Sorry, I missed the last part. What did you mean?',
      'Wait, how does that work, exactly?',
    ],
    social: ['So what does everyone here work on?'],
    investigative: ['Wait, who else was in the house at that point?'],
    deliberative: ['Sorry, what would that mean for the timeline?'],
  },
  emotional: {
    all: [
      'Honestly, this is getting a bit overwhelming for me.',
      'I am feeling pretty {mood} about all this, to be honest.',
      'I love where this is going!',
      'This really matters to me, so I hope we get it right.',
    ],
  },
};

const offTopics: Record<Kind, string[]> = {
  deliberative: ['the new coffee machine on the third floor', 'the game last night', 'that article about four-day weeks', 'the office move next month'],
  social: ['the queue for coffee', 'the keynote this morning', 'the dessert table', 'the weather this weekend'],
  investigative: ['the storm outside', 'the state of the road', 'the lights flickering earlier', 'the dog barking all evening'],
  talk: ['the coffee at this venue', 'the poster next door', 'the conference dinner tonight', 'the weather this weekend'],
};

// ---------------------------------------------------------------- words

const wordSet = (list: string): Set<string> => new Set(list.split(/\s+/).filter(Boolean));

const functionWords = wordSet(
  'myself yourself himself herself itself ourselves yourselves themselves a an the our your their my his her its this that these those we you they it there here to of in on for with and or but if whether how what why when where which who should could would can will is are was were be being been do does did not no all some any more most much many very just also so as at by from into about than then i me us them he she him',
);

const prepositions = wordSet(
  'about above across after against along among around at before behind below beneath beside between beyond by despite down during except for from in inside into like near of off on onto out outside over past since through throughout till to toward towards under until up upon via with within without',
);

const conjunctions = wordSet('and or but nor so yet because although though while whereas if unless when whenever where once than that which who whom whose as');

/** Words too common to be what a message is about. */
const fillerWords = wordSet(
  'please think really going maybe thanks thank know like want need said something thing things good great right well yeah okay sure actually pretty quite kind sort everyone anyone ahead point handle make made take give have done ready able',
);

/** Nouns too vague to refer back to ("the point", "the honest read", "the practical one"). */
const vagueNouns = wordSet(
  'one ones way ways part parts point points thing things bit lot lots kind sort rest same other others answer answers question questions floor time times moment side sides take read view views thought thoughts idea ideas lead end start case fact facts stuff detail details matter issue issues everyone everything something nothing anything record turn chance sense reason word words hand hands number people person room day days week weeks year years minute minutes version short long goal goals trade-offs meeting session experience perspective opinion angle input update quarter month months hour hours morning evening night risk risks',
);

/** Adverbs that end a noun phrase: "that again", "the cellar now". */
const adverbs = wordSet('again still now then there here too either anyway instead yet soon later earlier today tonight tomorrow yesterday ago back away');

/** Words that describe rather than name, so a reference cannot end on them. */
const describingWords = wordSet(
  'honest real practical short main same new good great best worst clear whole only first last next big small little other own various certain current previous former latest early late right wrong true false key major minor simple hard easy quick slow whole',
);

/** Verbs, so that a reference stops before them: "the CTO rewrote", "his father meant", "the city chose". */
const verbWords = wordSet(
  'chose led fed met shot drew flew grew showed shut sold stuck broke dealt dug fled froze hung laid lent lit quit rang sank shook slid sought spun swept swung wept rewrote wrote took gave told brought bought caught taught kept sent spent built held stood understood began drank drove ate fell forgot hid lost paid rode rose sang sat slept spoke stole struck threw woke wore won meant said knew went came found left saw heard thought got made felt put ran ' +
    'fit fits holds shows uses gets helps starts happens depends matters tends turns moves works means says tells was were is are be been has had have did does do know knows go goes come comes take takes find finds leave leaves see sees hear hears asked asks wanted wants can could will would should may might must get make makes let seen say tell think thinks need needs feel feels keep keeps sounds sound seems seem looks look write writes run runs worked happened',
);

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** Lower-cases a sentence's first letter so it can follow a comma or colon, unless it starts with "I" or an acronym or name. */
const lowerFirst = (text: string): string => {
  const first = text.split(/\s+/)[0] ?? '';
  if (/^I('|’|$)/.test(first) || /^[A-Z0-9]{2,}/.test(first)) return text;
  const bare = first.replace(/[^A-Za-z]/g, '').toLowerCase();
  return sentenceStarters.has(bare) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
};

/** Capitalised words that are only capitalised because they start the sentence. */
const sentenceStarters = wordSet(
  'the a an my our your their this that these those it there here we you they in at on from after before during when while if as for with by since until walking one two three four five some each every any no what why how where which who whether to let lets let\'s company legal also and but so however still just honestly well frankly yes',
);

const tokens = (text: string): string[] => text.toLowerCase().match(/[a-z0-9']+/g) ?? [];

const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

const sentenceCount = (text: string): number => text.split(/(?<=[.!?])\s+/).filter(Boolean).length;

/** A crude stem, to match "argued" with "argue" and "bottles" with "bottle". */
const stemOf = (word: string): string => word.replace(/(ing|ed|es|s)$/, '');

/** Content words of a text, stemmed: to tell whether two texts are about the same thing. */
const contentWords = (text: string): Set<string> =>
  new Set(tokens(text).filter((w) => w.length >= 4 && !functionWords.has(w) && !fillerWords.has(w) && !concealWords.has(w)).map(stemOf));

/** Words of a concealment goal that say how, not what ("hide that ... that night"). */
const concealWords = wordSet('hide keep never mention avoid subject private secret quiet hidden night own');

const overlaps = (a: Set<string>, b: Set<string>): boolean => [...a].some((w) => b.has(w));

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const mentions = (text: string, name: string): boolean => new RegExp(`\\b${escapeRegExp(name)}\\b`, 'i').test(text);

/** Tidies punctuation where a slot's own ending met a template's: `board.".` to `board."`, `..` to `.`. */
const tidy = (text: string): string =>
  text
    .replace(/([.!?]["”])[.]/g, '$1')
    .replace(/([!?])\./g, '$1')
    .replace(/\.{2,}/g, '.')
    .replace(/,\./g, '.')
    .replace(/\s{2,}/g, ' ')
    .trim();

/** A sentence from a cue phrase: capitalised, ending with a full stop unless it has its own ending. */
const sentence = (text: string): string => {
  const trimmed = text.trim().replace(/[;:,]+$/, '');
  return capitalise(/[.!?]["”]?$/.test(trimmed) ? trimmed : `${trimmed}.`);
};

/** A cue phrase to embed mid-sentence: no final full stop, first letter lowered when it is a plain word. */
const clause = (text: string): string => lowerFirst(text.trim().replace(/[.;:,]+$/, ''));

// ---------------------------------------------------------------- the scene

const kindPatterns: [Kind, RegExp][] = [
  ['investigative', /\b(killed|kill|murder\w*|death|dead|crime|detective|suspects?|alibis?|mystery|culprit)\b/i],
  ['social', /\b(lunch|dinner party|party|small talk|strangers|networking|getting to know|mingl\w*|drinks|reception)\b/i],
  ['talk', /\b(interview|q&a|questions after|poster|talk|presentation|seminar|lecture|panel)\b/i],
  ['deliberative', /\b(decid\w*|decision|plan|planning|launch|release|stand-?up|deadline|budget|ready|approve|roadmap|priorit\w*|ship|date|sprint|review|rating|critique|retro\w*)\b/i],
];

/** The topic decides; the snippet goal only when the topic says nothing. */
const kindOf = (cue: Cue): Kind =>
  kindPatterns.find(([, pattern]) => pattern.test(cue.topic))?.[0] ?? kindPatterns.find(([, pattern]) => pattern.test(cue.snippet.goal))?.[0] ?? 'talk';

const occasions = /^(stand-?ups?|meetings?|reviews?|interviews?|sessions?|talks?|q&a|lunch|dinner|critiques?|discussions?|conversations?|calls?|syncs?|questions|retros?|retrospectives?|workshops?|presentations?|visits?|parties|party)$/i;

const headStops = wordSet(
  'for of in on about with to and at from before after during by as is are was were will can should could would has have had which that who where while whose than or but',
);

/**
 * The topic as a short noun phrase to mention in passing, or nothing when it has none: "the launch
 * date for the Aurora app" gives "the launch date", "Whether the redesigned onboarding flow ... is
 * ready" gives "the redesigned onboarding flow"; "Getting to know strangers ..." and "Who killed
 * ..." give nothing, and the templates say "this" instead.
 */
const topicRef = (topic: string): string | undefined => {
  const words = topic.trim().replace(/[.!?]+$/, '').split(/\s+/);
  let start = 0;
  const first = (words[0] ?? '').toLowerCase();
  if (/^(who|what|when|where|why|how|which)$/.test(first) || /ing$/.test(first)) return undefined;
  if (first === 'whether' || first === 'if') start = 1;
  const head: string[] = [];
  for (const word of words.slice(start)) {
    const bare = word.replace(/[,;:]$/, '');
    if (headStops.has(bare.toLowerCase())) break;
    head.push(bare);
    if (bare !== word) break;
  }
  if (head.length === 0) return undefined;
  const determiner = /^(the|a|an|our|their|this)$/i.test(head[0]!) ? head.shift()! : undefined;
  if (head.length === 0 || (!determiner && head.length < 2)) return undefined;
  // A topic named after the occasion ("the daily stand-up", "a year-end review") is not a subject to discuss.
  if (occasions.test(head.at(-1)!)) return undefined;
  const nouns = head.length > 3 ? head.slice(-2) : head;
  const noun = nouns.map((w, i) => (i === 0 && start === 0 && !determiner && /^[A-Z][a-z]/.test(w) ? w.toLowerCase() : w)).join(' ');
  const article = !determiner || /^(a|an)$/i.test(determiner) ? 'the' : determiner.toLowerCase();
  return `${article} ${noun}`;
};

/**
 * What a message is about, to refer back to: a noun phrase after a determiner ("the port
 * decanter", "our regression suite" as "the regression suite"), never a vague noun ("the point"),
 * a verb ("his father meant") or a name. Undefined when the message has none: templates then use "that".
 */
const keywordOf = (text: string, names: Set<string>, rng: Rng, brief = false): string | undefined => {
  // Prefer the question being answered: the last sentence with a question mark.
  const questions = text.split(/(?<=[.!?])\s+/).filter((s) => s.includes('?'));
  const sources = questions.length ? [questions.at(-1)!, text] : [text];
  for (const source of sources) {
    const found = nounPhrases(source, names).filter((p) => !brief || wordCount(p) <= 3);
    if (found.length) {
      const longer = found.filter((p) => wordCount(p) >= 3);
      return rng.pick((longer.length ? longer : found).slice(0, 3));
    }
  }
  return undefined;
};

/** Words that start an object, so what precedes them is a verb. */
const objectStarts = wordSet('the a an my your his her our their this that these those you me him them us it');

const nounPhrases = (text: string, names: Set<string>): string[] => {
  const phrases: string[] = [];
  // Words, with a marker where punctuation breaks the phrase.
  const parts = text.replace(/["“”]/g, ' | ').match(/[A-Za-z0-9][A-Za-z0-9'’-]*|[^\sA-Za-z0-9]+/g) ?? [];
  const nounish = (word: string, first: string | undefined): boolean => {
    const lower = word.toLowerCase().replace(/’/g, "'");
    if (!/^[A-Za-z0-9]/.test(word)) return false;
    if (functionWords.has(lower) || prepositions.has(lower) || conjunctions.has(lower) || verbWords.has(lower) || fillerWords.has(lower)) return false;
    if (/ly$/.test(lower) || midAdverbs.has(lower) || adverbs.has(lower) || names.has(lower.replace(/'s$/, ''))) return false;
    // A capitalised word after a lower-case one starts a name: "the winemaker Henry".
    return !(first && /^[A-Z]/.test(word) && /^[a-z]/.test(first));
  };
  const trim = (words: string[], next: string | undefined): string[] => {
    const kept = [...words];
    // A word followed by a determiner or object is a verb: "does this match your experience".
    if (next && objectStarts.has(next.toLowerCase())) kept.pop();
    const ends = (w: string) => vagueNouns.has(w.toLowerCase()) || describingWords.has(w.toLowerCase()) || /(ed|'s)$/i.test(w) || (/ing$/i.test(w) && kept.length > 1);
    while (kept.length && ends(kept.at(-1)!)) kept.pop();
    return kept;
  };
  for (let i = 0; i < parts.length; i++) {
    const det = parts[i]!.toLowerCase();
    if (!/^(the|our|your|their|this)$/.test(det)) continue;
    const words: string[] = [];
    let j = i + 1;
    for (; j < parts.length && words.length < 3 && nounish(parts[j]!, words[0]); j++) words.push(parts[j]!);
    // "the state of the road": a head noun with its "of the" complement.
    const of: string[] = [];
    if (words.length && parts[j]?.toLowerCase() === 'of' && parts[j + 1]?.toLowerCase() === 'the') {
      for (let k = j + 2; k < parts.length && of.length < 2 && nounish(parts[k]!, of[0]); k++) of.push(parts[k]!);
    }
    const tail = trim(of, parts[j + 2 + of.length]);
    const head = tail.length ? words : trim(words, parts[j]);
    if (head.length === 0 || (head.length === 1 && (head[0]!.length < 3 || (det === 'this' && /s$/.test(head[0]!))))) continue;
    if (!tail.length && head.length === 1 && vagueNouns.has(head[0]!.toLowerCase())) continue;
    const article = det === 'this' ? 'that' : 'the';
    const phrase = `${article} ${head.join(' ')}${tail.length ? ` of the ${tail.join(' ')}` : ''}`;
    if (!phrases.includes(phrase)) phrases.push(phrase);
  }
  return phrases;
};

// ---------------------------------------------------------------- first person

type Gender = 'f' | 'm';

const pronounForms = {
  f: wordSet("she her hers herself she's she'd she'll"),
  m: wordSet("he him his himself he's he'd he'll"),
  they: wordSet("they them their theirs themselves themself they're they'd they'll they've"),
};

const genderOf = (word: string): Gender | undefined =>
  pronounForms.f.has(word) ? 'f' : pronounForms.m.has(word) ? 'm' : undefined;

/** Adverbs that may stand between a subject and its verb: "she also has", "he never carried". */
const midAdverbs = wordSet('also still never always only already often usually really just even then later once now sometimes quietly actually apparently probably certainly finally nearly almost recently rarely barely hardly');

/** Words after which "her" is an object ("asked her to", "told her yesterday"), not a possessive ("her network"). */
const afterObjectHer = new Set([
  ...prepositions,
  ...conjunctions,
  ...wordSet('a an the this these those some any every each no to yesterday today tonight tomorrow again later earlier twice back away too it him her them me us you everything something nothing anything all alone'),
]);

/** The verb after a new "I", agreeing with it: "is" to "am", "has" to "have", "knows" to "know". */
const agreeWithI = (word: string): string => {
  const lower = word.toLowerCase().replace(/’/g, "'");
  const irregular: Record<string, string> = {
    is: 'am', are: 'am', were: 'was', has: 'have', does: 'do', goes: 'go',
    "isn't": 'am not', "aren't": 'am not', "weren't": "wasn't", "hasn't": "haven't", "doesn't": "don't",
  };
  if (irregular[lower]) return irregular[lower]!;
  if (!/^[a-z]{3,}s$/.test(lower) || /(ss|us|is|was|has)$/.test(lower)) return word;
  if (/[^aeiou]ies$/.test(lower)) return `${lower.slice(0, -3)}y`;
  if (/(ch|sh|x|z)es$/.test(lower)) return lower.slice(0, -2);
  return lower.slice(0, -1);
};

/** The names someone may go by in a text, longest first: "Dr. Elena Marsh", "Dr. Marsh", "Elena". */
const namesOf = (name: string, shortName: string): string[] => {
  const parts = name.split(/\s+/);
  const titled = /^(dr|prof|professor|detective|mr|mrs|ms|miss|sir|dame)\.?$/i.test(parts[0] ?? '') && parts.length >= 3 ? [`${parts[0]} ${parts.at(-1)}`] : [];
  return [...new Set([name, ...titled, shortName])].filter(Boolean).sort((a, b) => b.length - a.length);
};

/** The speaker's own names as they may appear in their knowledge: "Rupert", "Rupert Vale", "Dr. Marsh". */
const selfNames = (cue: Cue): string[] => namesOf(cue.speaker.name, cue.speaker.shortName);

/**
 * Rewrites a third-person text about the speaker in the first person: `forms` are the pronouns
 * that mean the speaker (she/her/..., he/him/..., they/them/...), `names` the speaker's names.
 * Quoted speech is left as it is. "Her network's rate is 19%, and she has budget" becomes "My
 * network's rate is 19%, and I have budget"; "Dr. Marsh asked her at 10:15" becomes "Dr. Marsh
 * asked me at 10:15"; "for Henry to collect on his way down" keeps "his" when only she/her mean
 * the speaker.
 */
const firstPerson = (text: string, forms: Set<string>, names: string[]): string =>
  text
    .split(/(["“][^"”]*["”])/)
    .map((segment, i) => (i % 2 === 1 ? segment : firstPersonSegment(segment, forms, names)))
    .join('');

const firstPersonSegment = (segment: string, forms: Set<string>, names: string[]): string => {
  let text = segment;
  const placeholder = '\u0000SELF\u0000';
  for (const name of names) text = text.replace(new RegExp(`\\b${escapeRegExp(name)}(?![\\w-])`, 'g'), placeholder);
  const parts = text.match(/\u0000SELF\u0000(?:['’]s\b)?|[A-Za-z][A-Za-z'’-]*|[^A-Za-z\u0000]+/g) ?? [];
  const out: string[] = [];
  let verbDue = false;
  const nextWord = (i: number): string | undefined => (/^\s+$/.test(parts[i + 1] ?? '') ? parts[i + 2]?.toLowerCase() : undefined);
  const atStart = (): boolean => /(^|[.!?]["”]?\s+)$/.test(out.join(''));
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.startsWith(placeholder)) {
      if (part.length > placeholder.length) {
        out.push(atStart() ? 'My' : 'my');
        continue;
      }
      const next = nextWord(i);
      const subject = next !== undefined && /^[a-z]/.test(next) && !prepositions.has(next) && !conjunctions.has(next) && next !== 'to';
      out.push(subject ? 'I' : atStart() ? 'Me' : 'me');
      verbDue = subject;
      continue;
    }
    if (!/^[A-Za-z]/.test(part)) {
      out.push(part);
      if (/[^\s]/.test(part)) verbDue = false;
      continue;
    }
    const lower = part.toLowerCase().replace(/’/g, "'");
    if (verbDue) {
      if (midAdverbs.has(lower)) {
        out.push(part);
        continue;
      }
      out.push(agreeWithI(part));
      verbDue = false;
      continue;
    }
    if (!forms.has(lower)) {
      out.push(part);
      continue;
    }
    const cap = (word: string) => (/^[A-Z]/.test(part) ? capitalise(word) : word);
    const next = nextWord(i);
    if (lower === 'she' || lower === 'he' || lower === 'they') {
      out.push('I');
      verbDue = true;
    } else if (/^(she|he|they)'(s|re)$/.test(lower)) {
      out.push(next && /^(been|got|had|done|seen|gone|never|already)$/.test(next) ? "I've" : "I'm");
    } else if (/^(she|he|they)'(d|ll|ve)$/.test(lower)) {
      out.push(`I'${lower.split("'")[1]}`);
    } else if (lower === 'her') {
      out.push(cap(next === undefined || afterObjectHer.has(next) || /ly$/.test(next) ? 'me' : 'my'));
    } else if (lower === 'his' || lower === 'their') {
      out.push(cap(next === undefined ? 'mine' : 'my'));
    } else if (lower === 'hers' || lower === 'theirs') {
      out.push(cap('mine'));
    } else if (lower === 'him' || lower === 'them') {
      out.push(cap('me'));
    } else {
      out.push(cap('myself'));
    }
  }
  return out.join('');
};

/** A pronoun's gender where it opens the text (its first three words) or, weaker, anywhere. */
const pronounEvidence = (text: string): { gender: Gender; strong: boolean } | undefined => {
  const unquoted = text.replace(/["“][^"”]*["”]/g, ' ');
  const words = unquoted.toLowerCase().match(/[a-z']+/g) ?? [];
  const index = words.findIndex((w) => genderOf(w));
  return index < 0 ? undefined : { gender: genderOf(words[index]!)!, strong: index < 3 };
};

/** Someone other than the speaker a later pronoun may stand for: "the last PM ... without telling her". */
const otherPerson = /\bthe (last |previous |new |other |former )?(pm|cto|ceo|cfo|manager|candidate|director|engineer|nurse|doctor|patient|woman|man|girl|boy|colleague|friend|mother|father|wife|husband|sister|brother|daughter|son|boss|founder|student|owner)\b/i;

/**
 * The speaker's pronouns, from their knowledge and goals taken together: a text that opens with
 * "She" or "His" says it firmly, a pronoun in a goal well, one inside a sentence weakly. A text
 * whose only evidence is its own inner pronoun after another person ("the last PM ... telling
 * her") is left in the third person.
 */
const speakerForms = (cue: Cue, text: string): Set<string> => {
  const votes = { f: 0, m: 0 };
  for (const other of cue.facts) {
    if (other === text) continue;
    const evidence = pronounEvidence(other);
    if (evidence) votes[evidence.gender] += evidence.strong ? 3 : 1;
  }
  for (const goal of cue.goals) {
    const evidence = pronounEvidence(goal);
    if (evidence) votes[evidence.gender] += 2;
  }
  const own = pronounEvidence(text);
  let gender: Gender | undefined = votes.f > votes.m ? 'f' : votes.m > votes.f ? 'm' : undefined;
  if (!gender && own && (own.strong || !otherPerson.test(text))) gender = own.gender;
  return gender ? pronounForms[gender] : new Set();
};

// ---------------------------------------------------------------- knowledge and goals

/** Knowledge nobody would volunteer: a confession, a secret. */
const hardSecret = /\b(nobody knows|no one knows|nobody else knows|secret|secretly|killed|murder(ed|er)?|poison(ed)?|removed the evidence)\b/i;
/** Knowledge one admits only when asked about it. */
const softSecret = /\b(not public|did not tell|didn't tell|has not told|hasn't told|never told|confidential|another company|job offer|resign\w*|divorce|affair|owes)\b/i;
/** Goals to hide something: never voiced, and what they name is not volunteered. */
const concealment = /^(hide|conceal|cover up|never\b|avoid (the subject|mentioning|talking|discussing|any mention)|keep\b.*\b(private|secret|quiet|hidden|out of it|to (her|him|them)sel(f|ves)))/i;
/** Goals pursued without saying so: never voiced. */
const covert =
  /^(steer|judge|test|see (how|whether|if)|let\b|stop\b|handle|support\b|deliver|introduce|explain|give\b|answer\b|manipulat|deflect|pretend|impress|win over|protect [A-Z]|make (the|a|an|[A-Z]\w*) [\w' -]*\b(feel|take|look|believe|think|see)\b)|\b(recorded as|without (asking|saying|sounding|taking|letting)|outright|at least)\b/;
/** Goals about a role in the room, which would sound odd said in front of them. */
const roleReference = /\bthe (candidate|presenter|detective|trainee|newcomers?|visitors?|industry visitor|newest|interviewer|speaker|audience)\b/i;

interface Knowledge {
  /** In the first person, ready to say. */
  text: string;
  /** Withheld unless asked about (soft) or always (hard). */
  guard: 'none' | 'soft' | 'hard';
  words: Set<string>;
}

/** The verb after a new "you": "understands" to "understand", "is" to "are", "was" to "were". */
const agreeWithYou = (word: string): string => {
  const irregular: Record<string, string> = { is: 'are', was: 'were', has: 'have', does: 'do', "isn't": "aren't", "wasn't": "weren't", "hasn't": "haven't", "doesn't": "don't" };
  const lower = word.toLowerCase();
  if (irregular[lower]) return irregular[lower]!;
  return lower === 'am' ? 'are' : agreeWithI(word);
};

/**
 * Knowledge or a goal said to someone it names: "a bottle for Vivian" to Vivian is "a bottle for
 * you", "Vivian's car" is "your car", "make sure Sam understands" is "make sure you understand".
 */
const toAddressee = (text: string, names: string[]): string => {
  if (!names.length) return text;
  const n = `(?:${names.map(escapeRegExp).join('|')})`;
  return text
    .split(/(["“][^"”]*["”])/)
    .map((segment, i) =>
      i % 2 === 1
        ? segment
        : segment
            .replace(new RegExp(`\\b${n}['’]s\\b`, 'g'), 'your')
            .replace(new RegExp(`\\b(for|to|with|from|at|about|asked|tell|told|saw|passed|met|called|gave|showed|behind|beside) ${n}\\b`, 'g'), '$1 you')
            .replace(new RegExp(`(^|[.;]\\s+|\\b(?:that|and|but|when|because|sure|if)\\s+)${n} ([a-z][a-z'’]*)`, 'g'), (_, lead: string, verb: string) =>
              `${lead}${lead.trim() ? 'you' : 'You'} ${agreeWithYou(verb)}`,
            ),
    )
    .join('');
};

/** Whom the speaker talks to: the addressee, else the person they reply to. */
const listenerOf = (cue: Cue): string[] => {
  const id = cue.addressee?.id ?? (cue.lastMessage && cue.lastMessage.speaker !== cue.speaker.id ? cue.lastMessage.speaker : undefined);
  const listener = cue.participants.find((p) => p.id === id);
  return listener ? namesOf(listener.name, listener.shortName) : [];
};

const knowledgeOf = (cue: Cue): Knowledge[] => {
  const hidden = new Set(cue.goals.filter((g) => concealment.test(g.trim())).flatMap((g) => [...contentWords(g)]));
  const names = selfNames(cue);
  return cue.facts.map((fact) => {
    const words = contentWords(fact);
    // Knowledge about "the candidate" is not said in front of them.
    const guard = hardSecret.test(fact) ? 'hard' : softSecret.test(fact) || overlaps(words, hidden) || roleReference.test(fact) ? 'soft' : 'none';
    return { text: toAddressee(firstPerson(fact.trim(), speakerForms(cue, fact), names), listenerOf(cue)), guard, words };
  });
};

interface VoicedGoal {
  /** A sentence voicing the goal as an intention, for statements. */
  line?: string;
  /** An indirect question ("why the last PM left"), for "can I ask ...?". */
  ask?: string;
  /** A request to an addressee ("could I get your card before we go"), and whom it must go to, if anyone in particular. */
  request?: string;
  askee?: string;
}

const goalForms = new Set([...pronounForms.f, ...pronounForms.m, ...pronounForms.they]);

/**
 * A goal as the speaker would pursue it aloud. "get Ruth's card" becomes a request to Ruth;
 * "find out why the last PM left" a question ("can I ask why the last PM left?") or an intention
 * ("What I really want to find out is why the last PM left."); "keep the stand-up under fifteen
 * minutes" a proposal ("Let's keep the stand-up under fifteen minutes."). Covert and concealment
 * goals are not voiced.
 */
const voiceGoal = (goal: string, cue: Cue, rng: Rng): VoicedGoal => {
  const raw = goal.trim().replace(/[.!;]+$/, '');
  const imperative = raw.charAt(0).toLowerCase() + raw.slice(1);
  if (!imperative || concealment.test(imperative) || covert.test(imperative) || roleReference.test(imperative)) return {};
  const g = firstPerson(imperative, goalForms, selfNames(cue)).replace(/\s+(credibly|clearly|concisely|honestly|quickly|briefly|properly)$/, '');
  const others = cue.participants.filter((p) => p.id !== cue.speaker.id);
  const pick = (...lines: string[]) => rng.pick(lines);
  let m: RegExpMatchArray | null;

  if (/\b(card|cards|contact|contacts|email address|number)\b/.test(g) && /^(get|leave with|exchange|swap|collect)\b/.test(g)) {
    const askee = others.find((p) => new RegExp(`\\b${escapeRegExp(p.shortName)}['’]s\\b`).test(g))?.shortName;
    return {
      line: pick('Before we all scatter, I would love to swap cards with a few of you.', 'I should really swap contacts with someone before the next session.'),
      request: pick('could I get your card before we go', 'could we swap contacts before the next session'),
      ...(askee ? { askee } : {}),
    };
  }
  if ((m = g.match(/^get (?:someone|somebody|anyone|a volunteer) to (.+)$/))) {
    return { line: `I could really use someone to ${m[1]}.`, request: `could you ${m[1]} with me` };
  }
  if ((m = g.match(/^(find out|ask|learn|understand|know|check|work out|figure out|hear)\s+((?:exactly|precisely)\s+)?((?:whether|why|what|how|if|when|who|where|which)\b.*)$/))) {
    const asked = `${m[2] ?? ''}${m[3]}`;
    const verb = m[1]!;
    const line =
      verb === 'find out' || verb === 'work out' || verb === 'figure out'
        ? pick(`What I really want to find out is ${asked}.`, `I would really like to know ${asked}.`)
        : verb === 'ask'
          ? `I have been meaning to ask ${asked}.`
          : verb === 'understand'
            ? `What I would really like to understand is ${asked}.`
            : `I would love to learn ${asked}.`;
    return { line, ask: asked };
  }
  if (others.some((p) => mentions(g, p.shortName) && !new RegExp(`\\b${escapeRegExp(p.shortName)}['’]s\\b`).test(g)) && !/^(make sure|keep|agree)\b/.test(g)) return {};
  if ((m = g.match(/^find (?!out\b)(.+)$/))) return { line: `I am looking for ${m[1]}.` };
  if ((m = g.match(/^push back on (.+)$/))) return { line: `I would push back on ${m[1]}.` };
  if ((m = g.match(/^argue (?:that )?(.+)$/))) return { line: `I would argue that ${m[1]}.` };
  if ((m = g.match(/^propose (.+)$/))) return { line: `I would propose ${m[1]}.` };
  if ((m = g.match(/^(?:raise|point out|flag) (?:that )?(.+)$/))) return { line: `I think ${m[1]!.replace(/\s+without .*$/, '')}.` };
  if ((m = g.match(/^show (?:that )?(.+)$/))) return { line: sentence(m[1]!) };
  if ((m = g.match(/^mention (.+)$/))) return { line: `I should mention ${m[1]}.` };
  if ((m = g.match(/^make it (?:clear|explicit) that (.+)$/))) return { line: `I want to be explicit: ${m[1]}.` };
  if ((m = g.match(/^make sure (.+)$/))) return { line: `I want to make sure ${m[1]}.` };
  if ((m = g.match(/^keep (.+)$/))) return { line: pick(`Let's keep ${m[1]}.`, `I would like us to keep ${m[1]}.`) };
  if ((m = g.match(/^agree on (.+)$/))) return { line: `I would like us to agree on ${m[1]}.` };
  if ((m = g.match(/^get (.+) on the record$/))) return { line: `I think ${m[1]} should be on the record.` };
  if ((m = g.match(/^get (as .+)$/))) return { line: `Let's get ${m[1]}.` };
  if ((m = g.match(/^get (.+)$/))) {
    const thing = m[1]!;
    const participle = /^\S+ \S+ed\b/.test(thing) || /^\S+ed\b/.test(thing);
    return participle
      ? { line: `I really need ${thing}.` }
      : { line: pick(`What I need is ${thing}.`, `I really need ${thing}.`), request: `could you give me ${thing}` };
  }
  if ((m = g.match(/^leave with (.+)$/))) return { line: `I would like to leave with ${m[1]}.` };
  if ((m = g.match(/^avoid (.+)$/))) return { line: `I would rather avoid ${m[1]}.` };
  if ((m = g.match(/^hear (?:about )?(.+)$/))) return { line: `I would love to hear about ${m[1]}.` };
  if ((m = g.match(/^pitch (my|our) (\S+)/))) return { line: `${capitalise(m[1]!)} ${m[2]} could help with exactly this.` };
  return { line: pick(`I would really like to ${g}.`, `What I want out of this is to ${g}.`, `I am hoping to ${g}.`) };
};

const agendaVerbs =
  /^(agree|decide|debate|discuss|review|assign|plan|pick|choose|settle|confirm|go over|look at|walk through|talk about|figure out|work out|prioriti[sz]e|estimate|list|sum up|wrap up|finali[sz]e|vote|compare|check|define|draft|identify|map out|brainstorm)\b/i;

/** A snippet goal that reads as an agenda item ("Assign owners for the checklist"), lowered to follow "let's"; otherwise nothing. */
const agendaItem = (cue: Cue): string | undefined => {
  const goal = cue.snippet.goal.trim().replace(/[.!]+$/, '');
  if (!agendaVerbs.test(goal) || /[;:]/.test(goal) || wordCount(goal) > 16 || roleReference.test(goal)) return undefined;
  if (cue.participants.some((p) => mentions(goal, p.shortName))) return undefined;
  return goal.charAt(0).toLowerCase() + goal.slice(1);
};

const feelings =
  /^(anxious|nervous|worried|uneasy|tense|tired|frustrated|irritable|excited|hopeful|curious|blindsided|shaken|bitter|restless|relieved|upbeat|enthusiastic|impatient|shy|wary|sad|angry|annoyed|stressed|overwhelmed|uncertain|confused|frightened|scared|hurt|defensive|guarded|apprehensive|optimistic|pessimistic|skeptical|sceptical|exhausted|rattled|uncomfortable)$/i;

/** Feelings one admits to ("I will admit I am a bit tense about it"); the others are not confessed. */
const uneasy = /^(anxious|nervous|worried|uneasy|tense|tired|frustrated|irritable|blindsided|shaken|bitter|restless|impatient|shy|wary|sad|angry|annoyed|stressed|overwhelmed|uncertain|confused|frightened|scared|hurt|defensive|guarded|apprehensive|pessimistic|skeptical|sceptical|exhausted|rattled|uncomfortable)$/i;

/** The mood as one feeling word ("tense, rehearsed" gives "tense"), or nothing when it is not a feeling. */
const feelingOf = (mood: string): string | undefined => {
  const first = mood.split(/,|\bbut\b|\band\b/)[0]!.trim().toLowerCase();
  return feelings.test(first) ? first : undefined;
};

/** A one-sentence introduction from the role: "I'm Diego, a startup founder selling scheduling software." */
const introOf = (cue: Cue): string | undefined => {
  const role = cue.speaker.role?.split(',')[0]?.trim();
  if (!role || wordCount(role) > 10) return undefined;
  const described = /^(the|a|an|my)\s/i.test(role) ? role : `${/^[aeiou]/i.test(role) ? 'an' : 'a'} ${role}`;
  return `I'm ${cue.speaker.shortName}, ${described}.`;
};

// ---------------------------------------------------------------- choosing

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
  return missing ? null : tidy(text);
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

/** The first candidate that could be written. Each act's last candidate needs only slots every cue has, so text is never empty. */
const firstOf = (...candidates: (string | null | undefined)[]): string => candidates.find((c): c is string => !!c) ?? '';

/** Whether a second sentence would only repeat the first. */
const repeats = (text: string, extra: string): boolean => similarity(text, extra) > 0.3;

/**
 * Adds up to two extra sentences, to at most three in all: with a target, while the text stays
 * near it; without one, by chance, so lengths vary. `lead` puts them first (a question must stay last).
 */
const extend = (core: string, extras: string[], rng: Rng, targetWords: number | undefined, lead = false): string => {
  const parts = [core];
  let hedged = false;
  for (const extra of extras) {
    if (parts.length >= 3) break;
    const text = parts.join(' ');
    if (sentenceCount(text) + sentenceCount(extra) > 3 || repeats(text, extra)) continue;
    // One hedge is enough.
    const hedge = fillers.has(extra);
    if (hedge && (hedged || !rng.chance(0.5))) continue;
    hedged ||= hedge;
    const keep = targetWords === undefined ? rng.chance(0.45) : wordCount(text) + wordCount(extra) <= targetWords * 1.2;
    if (!keep) break;
    if (lead) parts.unshift(extra);
    else parts.push(extra);
  }
  return parts.join(' ');
};

// ---------------------------------------------------------------- acts

interface PreparedCue {
  cue: Cue;
  kind: Kind;
  slots: Slots;
  goal: VoicedGoal;
  knowledge: Knowledge[];
}

const prepare = (cue: Cue, rng: Rng): PreparedCue => {
  const kind = kindOf(cue);
  const last = cue.lastMessage && cue.lastMessage.speaker !== cue.speaker.id ? cue.lastMessage : null;
  const knowledge = knowledgeOf(cue);
  // Volunteered knowledge: one of the two most relevant, then another for a second sentence.
  const sayable = knowledge.filter((k) => k.guard === 'none');
  const [fact, other] = [...shuffled(sayable.slice(0, 2), rng), ...sayable.slice(2)].map((k) => k.text);
  const goals = cue.goals.map((g) => voiceGoal(g, cue, rng));
  const voiced = goals.filter((g) => g.line);
  const goal = voiced.length ? rng.pick(voiced) : {};
  const traits = cue.speaker.traits.join(' ').toLowerCase();
  const openers = openersByTrait.find(([pattern]) => pattern.test(traits))?.[1] ?? plainOpeners;
  const names = new Set(cue.participants.flatMap((p) => tokens(`${p.name} ${p.shortName}`)));
  const line = goal.line && toAddressee(goal.line, listenerOf(cue));
  const wantLine = line && !(cue.snippet.pattern === 'agree' && /push back|argue/.test(line)) ? line : undefined;
  const slots: Slots = {
    Name: cue.addressee?.shortName,
    Last: last?.shortName,
    Asker: cue.obligation?.fromShortName ?? last?.shortName,
    // A cut-in stays short.
    kw: keywordOf(cue.obligation?.text ?? last?.text ?? '', names, rng, cue.act === 'interrupt'),
    topic: topicRef(cue.topic),
    fact: fact ? clause(fact) : undefined,
    Fact: fact ? sentence(fact) : undefined,
    /** A second fact, so an added sentence does not repeat the first. */
    other: other ? clause(other) : undefined,
    Want: wantLine,
    want: wantLine ? clause(wantLine) : undefined,
    ask: goals.find((g) => g.ask)?.ask,
    agenda: agendaItem(cue),
    Intro: kind === 'social' ? introOf(cue) : undefined,
    mood: feelingOf(cue.speaker.mood),
    uneasy: uneasy.test(feelingOf(cue.speaker.mood) ?? '') ? feelingOf(cue.speaker.mood) : undefined,
    opener: rng.pick(openers),
    off: rng.pick(offTopics[kind]),
  };
  return { cue, kind, slots, goal: goals.find((g) => g.request) ?? goal, knowledge };
};

const statement = (turn: PreparedCue, rng: Rng, slots: Slots = turn.slots): string => {
  const { cue, kind } = turn;
  const pattern = slots.Last ? cue.snippet.pattern : 'neutral';
  const brief = cue.targetWords !== undefined && cue.targetWords <= 8;
  // Around the table, the first thing to say is who one is.
  if (!brief && kind === 'social' && slots.Intro && /introduc|greet/i.test(cue.snippet.goal) && rng.chance(0.6)) {
    return extend(slots.Intro, [slots.Want].filter((t): t is string => !!t), rng, cue.targetWords);
  }
  const investigator = /detective|inspector|investigat|police|sergeant|constable/i.test(cue.speaker.role ?? '');
  const own = investigator ? [...ownStatements.all, ...investigatorStatements] : poolFor(ownStatements, kind);
  // Say what one knows, what one wants, or what one thinks, in that rough proportion, so that a
  // persona with one fact does not repeat it every turn.
  const draw = rng.next();
  const category = slots.Fact && draw < 0.4 ? 'fact' : slots.Want && draw < 0.65 ? 'want' : 'plain';
  const carries = (t: string) => (/\{(fact|Fact|other)\}/.test(t) ? 'fact' : /\{(want|Want)\}/.test(t) ? 'want' : 'plain');
  const of = (templates: string[]) => templates.filter((t) => carries(t) === category);
  const core = brief
    ? firstOf(choose(briefStatements[pattern], slots, rng, cue.targetWords), choose(briefStatements.neutral, slots, rng, cue.targetWords), 'Fair enough.')
    : firstOf(
        pattern === 'neutral' ? null : choose(of(reactions[pattern]), slots, rng, cue.targetWords),
        choose(of(own), slots, rng, cue.targetWords),
        pattern === 'neutral' ? null : choose(reactions[pattern], slots, rng, cue.targetWords),
        choose(own, slots, rng, cue.targetWords),
        'I have been thinking about this.',
      );
  // Hedges follow opinions, not intentions or introductions.
  const extras = shuffled(poolFor(statementExtras, kind), rng)
    .filter((t) => !/convinced otherwise/.test(t) || pattern === 'disagree' || (pattern === 'neutral' && category === 'plain'))
    .filter((t) => !fillers.has(t) || category !== 'want')
    .map((t) => fill(t, slots))
    .filter((t): t is string => t !== null);
  return extend(core, extras, rng, cue.targetWords);
};

/** The last question in a text, and whether it asks yes or no ("Can the team ...?") rather than what, why or how. */
const yesNoQuestion = (text: string): boolean => {
  const question = text.split(/(?<=[.!?])\s+/).filter((s) => s.includes('?')).at(-1) ?? text;
  // "Can I ask what happened?" asks what happened.
  if (/\b(ask|know|wonder|wondering|tell (me|us)|explain)\s+(what|why|how|when|where|who|which)\b/i.test(question)) return false;
  const openers = question.split(/[,:;]\s*/).map((c) => c.trim().split(/\s+/)[0]?.toLowerCase() ?? '');
  const first = openers.find((w) => /^(what|why|how|when|where|who|whom|which|whose|is|are|was|were|do|does|did|can|could|would|will|have|has|had|should|may|might)$/.test(w));
  return !!first && !/^(what|why|how|when|where|who|whom|which|whose)$/.test(first);
};

type Source = 'fact' | 'want' | 'stance' | 'none';

/** One of `options`, drawn in proportion to its weight. */
const weighted = <T>(options: [T, number][], rng: Rng): T => {
  const live = options.filter(([, w]) => w > 0);
  let draw = rng.next() * live.reduce((sum, [, w]) => sum + w, 0);
  for (const [option, w] of live) if ((draw -= w) < 0) return option;
  return live.at(-1)![0];
};

const answerQuestion = (turn: PreparedCue, rng: Rng): string => {
  const { cue } = turn;
  const asked = cue.obligation?.text ?? '';
  const names = new Set(cue.participants.flatMap((p) => tokens(`${p.name} ${p.shortName}`)).map(stemOf));
  const askedWords = new Set([...contentWords(asked)].filter((w) => !names.has(w)));
  // Asked directly, a persona may admit what it would not volunteer; never a confession.
  // Asked about it means two words in common ("the cellar passage"), not one generic one ("release").
  const askedAbout = turn.knowledge.filter((k) => k.guard === 'soft' && [...k.words].filter((w) => askedWords.has(w)).length >= 2);
  const relevant = askedAbout.length ? rng.pick(askedAbout) : undefined;
  const slots: Slots = relevant ? { ...turn.slots, fact: clause(relevant.text), Fact: sentence(relevant.text) } : turn.slots;
  // What to answer with: knowledge (mostly, when it was asked about), a goal when it bears on the
  // question, else a stance on what was asked. Not always knowledge: said once, a fact repeated
  // word for word is what the engine's repetition check rejects.
  const wantRelated = !!slots.Want && overlaps(contentWords(slots.Want), askedWords);
  const weights: [Source, number][] = [
    ['fact', relevant ? 3 : slots.Fact ? 2 : 0],
    ['want', slots.Want ? (wantRelated ? 2 : 0.5) : 0],
    ['stance', slots.kw ? 1.5 : 0],
    ['none', slots.kw ? 0 : 0.8],
  ];
  const source = weighted(weights, rng);
  if (yesNoQuestion(asked)) {
    const lead = firstOf(choose(questionAnswers.yesNo, slots, rng), 'I think so.');
    const backing =
      source === 'fact' ? slots.Fact : source === 'want' ? slots.Want : source === 'stance' ? fill(rng.pick(questionAnswers.stance.filter((t) => !t.includes('{Asker}'))), slots) : rng.chance(0.6) ? rng.pick(questionAnswers.hedge) : null;
    return backing ? `${lead} ${backing}` : lead;
  }
  return firstOf(
    source === 'fact' ? choose(questionAnswers.factWh, slots, rng, cue.targetWords) : null,
    source === 'want' ? choose(questionAnswers.want, slots, rng, cue.targetWords) : null,
    source === 'stance' ? choose(questionAnswers.stance, slots, rng, cue.targetWords) : null,
    // Around a lunch table or in an interrogation, "I would rather check than guess" is out of place.
    choose(turn.kind === 'social' || turn.kind === 'investigative' ? questionAnswers.none[turn.kind]! : poolFor(questionAnswers.none, turn.kind), slots, rng, cue.targetWords),
  );
};

const answer = (turn: PreparedCue, rng: Rng): string => {
  const { cue, slots } = turn;
  const pair = cue.obligation?.pair ?? 'none';
  const accept = rng.chance(0.75);
  let text: string;
  if (pair === 'question') {
    text = answerQuestion(turn, rng);
  } else {
    const pool =
      pair === 'request'
        ? accept ? answers.acceptRequest : answers.declineRequest
        : pair === 'offer'
          ? accept ? answers.acceptOffer : answers.declineOffer
          : answers[pair];
    const core = firstOf(choose(pool, slots, rng, cue.targetWords), 'I agree, and I am happy to go with that.');
    // Taking the floor after an invitation means saying something of one's own, not reacting to the invitation.
    text = pair === 'invitation' ? `${core} ${statement({ ...turn, cue: { ...cue, targetWords: 12 } }, rng, { ...slots, Last: undefined })}` : core;
  }
  // A second pair part closes the pair; it must not open another (the engine reads '?' as a question).
  return tidy(text.replace(/\?/g, '.'));
};

const firstPairPart = (kind: keyof typeof firstPairParts, turn: PreparedCue, slots: Slots, rng: Rng): string => {
  const { cue } = turn;
  const { named, group } = firstPairParts[kind]!;
  let pool = slots.Name ? poolFor(named, turn.kind) : poolFor(group, turn.kind);
  // Pursue a goal: ask what one wants to know, ask for what one wants.
  if (slots.Name && (kind === 'question' || kind === 'request')) {
    const goalPool: string[] = [];
    if (slots.ask) goalPool.push(...goalQuestions);
    const { request, askee } = turn.goal;
    if (request && (!askee || askee === slots.Name)) goalPool.push(`{Name}, ${request}?`, `${capitalise(request)}, {Name}?`);
    if (goalPool.length && rng.chance(0.4)) pool = goalPool;
  }
  const core = firstOf(choose(pool, slots, rng, cue.targetWords), choose(pool, { ...slots, kw: 'that', topic: 'this', Last: 'everyone' }, rng));
  const asks = core.endsWith('?');
  // A lead-in sentence before a question keeps it last; other acts may run on.
  const extras = shuffled(['{Fact}', 'One thing on my mind: {fact}.', '{Want}'], rng)
    .map((t) => fill(t, slots))
    .filter((t): t is string => t !== null);
  return kind === 'question' || kind === 'request' || kind === 'encourage' || kind === 'offer'
    ? extend(core, asks ? extras : [], rng, cue.targetWords, true)
    : core;
};

const vibeOf = (vibe: string | undefined): keyof typeof interruptions => {
  if (/support|agree|posit|enthus|excit|warm/i.test(vibe ?? '')) return 'supportive';
  if (/critic|disagree|negat|skept|hostile|challeng/i.test(vibe ?? '')) return 'critical';
  return 'neutral';
};

const deviation = (turn: PreparedCue, rng: Rng): string => {
  const { cue, slots } = turn;
  const intent = cue.intent ?? 'extend';
  const mood = slots.mood ?? (intent === 'emotional' ? 'uneasy' : undefined);
  const pool = poolFor(deviations[intent], turn.kind);
  return firstOf(
    choose(pool, { ...slots, mood }, rng, cue.targetWords),
    choose(pool, { ...slots, kw: 'that', Last: 'everyone', fact: 'I think there is more to it', mood }, rng, cue.targetWords),
  );
};

/**
 * Whether a text would open an adjacency pair (a question, request, greeting ...) under the
 * engine's own detector, so obliging someone to answer (MMAgents Fig. 4).
 */
const opensPair = (text: string, cue: Cue): boolean => {
  const previous = cue.lastMessage && cue.lastMessage.speaker !== cue.speaker.id ? cue.lastMessage.speaker : null;
  const name = (id: string | null) => (id ? (cue.participants.find((p) => p.id === id)?.name ?? null) : null);
  return detectDesignation({ participants: cue.participants.map((p) => p.name), speaker: cue.speaker.name, previousSpeaker: name(previous), text }).pair !== 'none';
};

/**
 * A statement or an answer that stays one: a voiced goal ("I want X on the record") or a turn of
 * phrase can read as a request or a greeting and oblige someone to reply, so such a draft is
 * redrawn a few times. A returned greeting is a greeting by nature and is kept.
 */
const closed = (cue: Cue, draft: () => string): string => {
  let text = draft();
  if (cue.act === 'answer' && cue.obligation?.pair === 'greeting') return text;
  for (let attempt = 0; attempt < 4 && opensPair(text, cue); attempt++) text = draft();
  return text;
};

const utterance = (cue: Cue, rng: Rng): string => {
  const turn = prepare(cue, rng);
  const { slots } = turn;
  const act = cue.act;
  switch (act) {
    case 'statement':
      return closed(cue, () => statement(turn, rng));
    case 'answer':
      return closed(cue, () => answer(turn, rng));
    case 'question':
    case 'request':
    case 'offer':
    case 'greeting':
    case 'invitation':
    case 'moderate':
    case 'encourage':
      // Thank the last speaker only when it is not the person being invited.
      return firstPairPart(act, turn, { ...slots, Last: slots.Last !== slots.Name ? slots.Last : undefined }, rng);
    case 'interrupt':
      return firstOf(
        choose(interruptions[vibeOf(cue.vibe)], slots, rng, cue.targetWords),
        choose(interruptions[vibeOf(cue.vibe)], { ...slots, Last: 'everyone', kw: 'that' }, rng),
      );
    case 'deviation':
      return deviation(turn, rng);
    case 'summarize':
    case 'transition':
    case 'resolve-conflict':
    case 'chime-in': {
      const pool = poolFor(facilitatorActs[act], turn.kind);
      return firstOf(
        choose(pool, slots, rng, cue.targetWords),
        act === 'transition' ? rng.pick(plainTransitions) : null,
        choose(pool, { ...slots, Last: 'everyone', kw: 'that', topic: 'this', fact: 'I think there is more to it' }, rng),
      );
    }
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
    return { thought: 'Someone has to open; I could.', action: importance >= 5 ? 'speak' : 'listen', importance };
  }
  if (last.speaker === cue.speaker.id) {
    return { thought: 'I just spoke; let the others react first.', action: 'listen', importance: rng.int(0, 2) };
  }
  if (cue.obligation || mentions(last.text, cue.speaker.shortName)) {
    return { thought: `${last.shortName} spoke to me directly, so I should answer.`, action: 'speak', importance: rng.int(7, 9) };
  }
  const interests = new Set(tokens([...cue.facts, ...cue.goals, cue.snippet.goal].join(' ')).filter((w) => w.length >= 4 && !functionWords.has(w)));
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
      return deviation(prepare(cue, rng), rng);
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
