/**
 * Facilitating: handing the floor over (moderate, invite, encourage a quiet participant), summing
 * up, moving to the next part, calming a conflict and chiming in (DialogLab A.3.8, MUCA §3.2.3).
 * A hand-over names the addressee; a summary is one sentence made of what was just said.
 */
import type { Act } from '../../../../../shared/events';
import { ranked } from '../material';
import { fill, line, marker, shuffled, withMarker } from '../compose';
import { firstNovel, type Expect } from '../novel';
import type { Turn } from '../turn';
import { clause, contentWords } from '../words';
import { statementDrafts } from './statement';

const acknowledgements = ['Thank you, {last}.', 'Thanks, {last}, that is helpful.', 'Good point, {last}.', 'Noted, {last}.', 'Thank you.', 'Thanks for that, {last}.', 'Thank you, {last}; {x} is worth holding on to.'];
const handovers = ['{name}, please go ahead.', '{name}, over to you.', "Let's hear from {name} next; go ahead, {name}.", '{name}, the floor is yours.', '{name}, you had your hand up; go ahead.', 'Go ahead, {name}.', '{name}, over to you, briefly please.'];
const invitations = [
  '{name}, please go ahead.',
  'Your turn, {name}.',
  '{name}, we would love to hear your thoughts.',
  '{name}, the floor is yours.',
  '{name}, what would you add on {x}?',
  '{name}, over to you on {x}.',
  "Let's hear from {name}.",
  "{name}, go ahead whenever you're ready.",
  '{name}, anything to add?',
  '{name}, how do you see {x}?',
];
/** Whoever is there to be asked hands the floor back to the one asking: for the next question, not for their view. */
const askBack = [
  'What else would you like to know, {name}?',
  'Anything else you want to ask, {name}?',
  'Is there anything else, {name}?',
  'Ask me whatever you need, {name}.',
  'What else can I tell you, {name}?',
  'Go on, {name}, ask away.',
];
const encouragements = [
  '{name}, we have not heard from you yet; what is your take on {x}?',
  'I would love to hear your view, {name}: how do you see {x}?',
  '{name}, you have been quiet; anything you would add?',
  '{name}, does this match your experience?',
  '{name}, how does {x} look from where you sit?',
  'What do you make of {x}, {name}?',
  "{name}, what's your view on this?",
  '{name}, how does this sit with you?',
  "I'd like to bring {name} in here: what do you think?",
  "{name}, is there anything we're missing?",
  '{name}, what would you want us to take away from this?',
];
const summaries = ['So, to sum up: {x}, {y}, and {z} still open.', 'Where we are: {x} on one side, {y} on the other.', 'In short, {x} is the open question.', 'To recap, we have {x} and {y} on the table.', 'So far we have covered {x} and {y}.', 'Let me pull that together: {x} matters, and so does {y}.'];
/** Summaries when nothing just said has a phrase to name. */
const plainSummaries = [
  'Let me pause us there: we have heard a few views, and we are not done yet.',
  'Quick recap: several views on the table, and no decision yet.',
  'To pull it together: good points on both sides, and one open question.',
  'Where we are now: broadly aligned, with the details still to settle.',
  'So far, more agreement than it sounds, and one real difference.',
];
const agendaMoves = ["Good, I think that covers it. Next, let's {agenda}.", "In the interest of time, let's {agenda}.", "Thank you all. Now let's {agenda}.", "Thanks, that covers {x}. Now let's {agenda}."];
const plainMoves = ["Good, I think that covers it; let's move on.", "In the interest of time, let's keep moving.", "Thank you all. Let's turn to the next part.", "Let's park {x} there and move on."];
const reconciliations = [
  'I hear two reasonable positions here, so let us find what we agree on first.',
  '{last}, I understand your concern about {x}; I think we all want this to work, we differ on how.',
  'Let us take a step back: the disagreement on {x} is about means, not goals.',
  'Both sides have a point, so let us list what each needs before deciding.',
];
const chimes = ['Just to chime in on {x}: {m}', 'If I may add one thing: {m}', 'Quick thought on {x}: {m}', 'One small addition: {m}'];
const plainChimes = [
  'Just to chime in: I would take a closer look at {x}.',
  'Quick thought on {x}: it matters more than it sounds.',
  'I was going to say the same thing, actually.',
  "Small thing on {x}: I'd love to hear more about it.",
  'If I may, {x} rings true for me.',
];

/** Summaries from the session's accumulative summary (MUCA): what is covered, what is still open. */
const coveredSummaries = ['To sum up where we are: {a}; {b}.', 'So far we have covered two things: {a}, and {b}.', 'Let me pull it together: {a}; and {b}.', 'Where we are: {a}; {b}.'];
const openEndings = ['Still open: {c}.', 'What we have not settled: {c}.', 'And {c} is still open.'];
const topicMoves = ["Good, let's move on: {next}.", "In the interest of time, let's turn to this: {next}.", "Thanks, all. Next up: {next}.", "Let's park that and move to the next point: {next}."];
const stalledMoves = [
  "We have been going round on {current} for a while; let's note where we stand and come back to it.",
  "I think we have heard every side of {current}. Let's agree to take it offline and keep moving.",
  "We're stuck on {current}, so here is a proposal: each side writes down what they need, and we decide after the meeting.",
];

/** A sub-topic's label as a clause to say: no trailing ellipsis or full stop, first letter lowered. */
const spoken = (text: string | null | undefined, turn: Turn): string | undefined => (text ? clause(text.replace(/…$/, ''), turn.proper) : undefined);

type Facilitation = Extract<Act, 'moderate' | 'invitation' | 'encourage' | 'summarize' | 'transition' | 'resolve-conflict' | 'chime-in'>;

export const facilitate = (turn: Turn, act: Facilitation): string => {
  const { rng, last, human } = turn;
  const name = turn.name;
  const lastName = last && last.id !== turn.cue.addressee?.id ? last.shortName : undefined;
  const phrases = [...new Set([...(last?.phrases ?? []), ...(human?.phrases ?? []), ...(turn.asked?.phrases ?? [])])];
  const x = phrases[0];
  const slots = { name, last: lastName, x, y: phrases[1], z: phrases[2], agenda: turn.agenda };
  const expect: Expect = act === 'summarize' || act === 'transition' || act === 'resolve-conflict' || act === 'chime-in' ? 'close' : !name ? 'any' : act === 'encourage' ? 'ask' : 'hand';
  function* drafts(): Generator<string | null | undefined> {
    switch (act) {
      case 'moderate':
        for (const ack of shuffled(acknowledgements, rng).slice(0, 4)) for (const hand of shuffled(handovers, rng).slice(0, 3)) yield line(fill(ack, slots), fill(hand, slots));
        for (const hand of shuffled(handovers, rng)) yield withMarker(fill(hand, slots) ?? '', marker(turn, 0.5), turn.proper);
        return;
      case 'invitation':
        if (turn.cue.role.part === 'answerer') {
          yield* shuffled(askBack, rng).map((frame) => fill(frame, slots));
          return;
        }
        for (const frame of shuffled(invitations, rng)) {
          const text = fill(frame, slots);
          yield text && withMarker(text, /^(Let's|I'd)/.test(text) ? undefined : marker(turn, 0.3), turn.proper);
        }
        return;
      case 'encourage':
        for (const frame of shuffled(encouragements, rng)) yield withMarker(fill(frame, slots) ?? '', marker(turn, 0.2));
        return;
      case 'summarize': {
        // The whole session's summary first: the sub-topics talked through, and the one still open.
        const { summary, list } = turn.cue.topics;
        const covered = summary.map((s) => spoken(s.topic, turn)).filter((t): t is string => !!t);
        const open = list.find((t) => t.status === 'discussing' && !summary.slice(0, 2).some((s) => s.topic === t.text));
        if (covered.length >= 2) {
          for (const frame of shuffled(coveredSummaries, rng)) {
            const said = fill(frame, { a: covered[0], b: covered[1] });
            yield said && open ? line(said, fill(rng.pick(openEndings), { c: spoken(open.text, turn) }) ?? '') : said;
          }
        }
        for (const frame of shuffled(summaries, rng)) yield fill(frame, slots);
        if (turn.topic) yield `In short, ${turn.topic} is still open.`;
        yield* shuffled(plainSummaries, rng);
        return;
      }
      case 'transition': {
        // The agenda's next sub-topic, when the engine moves the group to one; else the next part.
        const next = spoken(turn.cue.topics.next, turn);
        if (next) for (const frame of shuffled(topicMoves, rng)) yield fill(frame, { next });
        for (const frame of shuffled(turn.agenda ? agendaMoves : plainMoves, rng)) yield fill(frame, slots);
        return;
      }
      case 'resolve-conflict': {
        // MUCA: no sub-topic has been settled for a while; say where things stand and what comes next.
        const current = spoken(turn.cue.topics.current, turn);
        const next = spoken(turn.cue.topics.next, turn);
        if (current) for (const frame of shuffled(stalledMoves, rng)) yield next ? line(fill(frame, { current }) ?? '', `Next: ${next}.`) : fill(frame, { current });
        for (const frame of shuffled(reconciliations, rng)) yield fill(frame, slots);
        return;
      }
      case 'chime-in': {
        const about = new Set([...(last?.words ?? []), ...contentWords(x ?? '')]);
        for (const m of ranked(turn.gathered.material, rng, { about }).slice(0, 4)) {
          for (const frame of shuffled(chimes, rng).slice(0, 2)) yield fill(frame, { ...slots, m: `${m.clause}.` });
        }
        for (const frame of shuffled(plainChimes, rng).slice(0, 3)) yield fill(frame, slots);
        // Nothing of one's own left to add: react to what was said, as a statement would.
        yield* statementDrafts(turn);
      }
    }
  }
  return firstNovel(turn, drafts(), expect);
};
