/**
 * Goals: a persona's goals are imperatives ("get Ruth's card", "find out why the last PM left").
 * They are voiced as intentions ("What I really want to find out is why the last PM left.") or
 * turned into the act they call for (asking for the card), never read out; covert goals ("steer
 * suspicion toward Rupert") and concealment goals ("hide that he argued with Henry") are never
 * voiced at all.
 */
import { memoize } from '../../../engine/memo';
import type { Cue } from '../../../engine/requests';
import { firstPerson, pronounForms, selfNames, toAddressee, listenerOf } from './person';
import { capitalise, escapeRegExp, mentions, sentence, wordCount } from './words';
import type { Rng } from '../../../../shared/rng';

/** Goals to hide something: never voiced, and what they name is not volunteered. */
export const concealment = /^(hide|conceal|cover up|never\b|avoid (the subject|mentioning|talking|discussing|any mention)|keep\b.*\b(private|secret|quiet|hidden|out of it|to (her|him|them)sel(f|ves)))/i;
/** Goals pursued without saying so: never voiced. */
const covert =
  /^(steer|judge|test|see (how|whether|if)|let\b|stop\b|handle|support\b|deliver|introduce|explain|give\b|answer\b|manipulat|deflect|pretend|impress|win over|protect [A-Z]|make (the|a|an|[A-Z]\w*) [\w' -]*\b(feel|take|look|believe|think|see)\b)|\b(recorded as|without (asking|saying|sounding|taking|letting)|outright|at least)\b/;
/** Roles in the room, which would sound odd said in front of them. */
export const roleReference = /\bthe (candidate|presenter|detective|trainee|newcomers?|visitors?|industry visitor|newest( team member)?|interviewer|speaker|audience|employee)\b/i;

export interface VoicedGoal {
  /** A sentence voicing the goal as an intention, for statements. */
  line?: string;
  /** An indirect question ("why the last PM left", "whether you can prioritise ..."), to ask. */
  ask?: string;
  /** A request to an addressee ("could I get your card before we go"), and whom it must go to, if anyone in particular. */
  request?: string;
  askee?: string;
}

/** Pronouns a goal may use for its persona; of "they" only the subject ("show they can"), as "them" is usually something else ("flag them earlier"). */
const goalForms = new Set([...pronounForms.f, ...pronounForms.m, 'they', "they're", "they'd", "they'll", "they've", 'themselves']);

/** "the candidate can" said to the candidate (whose role is `role`, lower case): "you can". */
const toRole = (text: string, role: string): string =>
  text.replace(roleReference, (whole, noun: string) => (role && role.includes(noun.toLowerCase().replace(/s$/, '')) ? 'you' : whole))
    .replace(/\byou (understands|reacts|stays|knows|has|is|does|wants|thinks)\b/g, (_, verb: string) => `you ${verb === 'has' ? 'have' : verb === 'is' ? 'are' : verb === 'does' ? 'do' : verb.slice(0, -1)}`);

/** A line that may be said in several ways: a string is said as it is, a list is picked from by the turn's chance. */
type Choice = string | readonly string[];

/** A goal voiced, its alternatives still open. */
interface GoalVoicing {
  line?: Choice;
  ask?: string;
  request?: Choice;
  askee?: string;
}

/** A goal voiced for this turn: its chance picks among the alternatives. */
const voiceGoal = (voicing: GoalVoicing, rng: Rng): VoicedGoal => {
  const choose = (choice: Choice | undefined) => (choice === undefined || typeof choice === 'string' ? choice : rng.pick(choice));
  // The line is chosen before the request: the turn's chance is drawn in that order.
  const line = choose(voicing.line);
  const request = choose(voicing.request);
  return {
    ...(line !== undefined ? { line } : {}),
    ...(voicing.ask !== undefined ? { ask: voicing.ask } : {}),
    ...(request !== undefined ? { request } : {}),
    ...(voicing.askee !== undefined ? { askee: voicing.askee } : {}),
  };
};

// A persona's goals are voiced on every turn they speak: each is read once per speaker, addressee's
// role and room (the others' short names).
const voicingsFor = memoize((context: string): ((goal: string) => GoalVoicing) => {
  const [role, self, joinedOthers] = context.split('\u0001') as [string, string, string];
  const names = self.split('\u0000');
  const others = joinedOthers ? joinedOthers.split('\u0000') : [];
  return memoize((goal) => voicingOf(goal, role, names, others), 256);
}, 256);

/**
 * A goal as the speaker would pursue it aloud. "get Ruth's card" becomes a request to Ruth;
 * "find out why the last PM left" a question or an intention; "keep the stand-up under fifteen
 * minutes" a proposal. Covert and concealment goals are not voiced.
 */
const voicingOf = (goal: string, role: string, self: readonly string[], others: readonly string[]): GoalVoicing => {
  const raw = goal.trim().replace(/[.!;]+$/, '');
  const imperative = toRole(raw.charAt(0).toLowerCase() + raw.slice(1), role);
  if (!imperative || concealment.test(imperative) || covert.test(imperative) || roleReference.test(imperative)) return {};
  const g = firstPerson(imperative, goalForms, self).replace(/\s+(credibly|clearly|concisely|honestly|quickly|briefly|properly)$/, '');
  const pick = (...lines: string[]): Choice => lines;
  let m: RegExpMatchArray | null;

  if (/\b(card|cards|contact|contacts|email address|number)\b/.test(g) && /^(get|leave with|exchange|swap|collect)\b/.test(g)) {
    const askee = others.find((shortName) => new RegExp(`\\b${escapeRegExp(shortName)}['’]s\\b`).test(g));
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
  if ((m = g.match(/^ask (?:one |a |an |some |two )?(.+?) questions?(?: .*)?$/))) return {};
  if (others.some((shortName) => mentions(g, shortName) && !new RegExp(`\\b${escapeRegExp(shortName)}['’]s\\b`).test(g)) && !/^(make sure|keep|agree)\b/.test(g)) return {};
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
    return participle ? { line: `I really need ${thing}.` } : { line: pick(`What I need is ${thing}.`, `I really need ${thing}.`), request: `could you give me ${thing}` };
  }
  if ((m = g.match(/^leave with (.+)$/))) return { line: `I would like to leave with ${m[1]}.` };
  if ((m = g.match(/^avoid (.+)$/))) return { line: `I would rather avoid ${m[1]}.` };
  if ((m = g.match(/^hear (?:about )?(.+)$/))) return { line: `I would love to hear about ${m[1]}.` };
  if ((m = g.match(/^pitch (my|our) (\S+)/))) return { line: `${capitalise(m[1]!)} ${m[2]} could help with exactly this.` };
  return { line: pick(`I would really like to ${g}.`, `What I want out of this is to ${g}.`, `I am hoping to ${g}.`) };
};

/** The voiced goals of the speaker, said to whoever they talk to. */
export const voicedGoals = (cue: Cue, rng: Rng): VoicedGoal[] => {
  const role = cue.participants.find((p) => p.id === cue.addressee?.id)?.role?.toLowerCase() ?? '';
  const others = cue.participants.filter((p) => p.id !== cue.speaker.id).map((p) => p.shortName);
  const voicings = voicingsFor([role, selfNames(cue).join('\u0000'), others.join('\u0000')].join('\u0001'));
  const listener = listenerOf(cue);
  return cue.goals.map((g) => voiceGoal(voicings(g), rng)).map((v) => (v.line ? { ...v, line: toAddressee(v.line, listener) } : v));
};

const agendaVerbs =
  /^(agree|decide|debate|discuss|review|assign|plan|pick|choose|settle|confirm|go over|look at|walk through|talk about|figure out|work out|prioriti[sz]e|estimate|list|sum up|wrap up|finali[sz]e|vote|compare|check|define|draft|identify|map out|brainstorm)\b/i;

/** A snippet goal that reads as an agenda item ("Assign owners for the checklist"), lowered to follow "let's"; otherwise nothing. */
export const agendaItem = (cue: Cue): string | undefined => {
  const goal = cue.snippet.goal.trim().replace(/[.!]+$/, '');
  if (!agendaVerbs.test(goal) || /[;:]/.test(goal) || wordCount(goal) > 16 || roleReference.test(goal)) return undefined;
  if (cue.participants.some((p) => mentions(goal, p.shortName))) return undefined;
  return goal.charAt(0).toLowerCase() + goal.slice(1);
};
