/**
 * Voice: how a persona sounds, read from the scene. Traits choose the discourse markers a line
 * may open with ("Frankly," for the direct, "To be precise," for the analytical); a quoted trait
 * ('asks follow-ups that start with "and then what"') becomes that persona's own follow-up or
 * marker; the mood gives the feeling they may admit to.
 */
import { memoize } from '../../../engine/memo';
import type { Cue } from '../../../engine/requests';

const markersByTrait: [RegExp, string[]][] = [
  [/analyt|data|method|detail|precise|rigor|evidence|metric|numbers|clinical|structured/, ['To be precise,', 'Going by the numbers,', 'Strictly speaking,', 'On the evidence,']],
  [/blunt|direct|frank|terse|laconic|sardonic|dry|firm/, ['Look,', 'Frankly,', 'Plainly,', 'Bluntly,']],
  [/warm|friend|kind|empath|support|reassur|welcom|gentle/, ['You know,', 'Honestly,', 'Oh,', 'I have to say,']],
  [/caut|skept|scept|careful|risk|wary|socratic/, ['Hmm.', 'Well,', 'I wonder.', 'Careful, though.']],
  [/optim|enthus|energ|cheer|excit|joke|upbeat|vivid/, ['Oh,', 'You know what,', 'Ha,', 'Right,']],
  [/formal|procedur|neutral|polite|diplomat|notes everything/, ['Very well.', 'Now,', 'Indeed,', 'Right.']],
  [/nervous|apolog|hedge|shy|over-explains/, ['Sorry,', 'Um,', 'I mean,', 'So, um,']],
  [/sarcas|defensive/, ['Oh, sure.', 'Funny,', 'Well, well.']],
  [/talks fast|ramble|long-winded|talkative/, ['Right, right,', 'Okay, so,', 'So, yes,']],
];

const plainMarkers = ['So,', 'Well,', 'Right,', 'Okay,', 'Now,', 'Actually,', 'Honestly,'];

export interface Voice {
  /** Discourse markers a line may open with, the persona's own first. */
  readonly markers: readonly string[];
  /** The persona's own follow-up questions, from quoted traits: "and then what", "what happens when it fails". */
  readonly followUps: readonly string[];
  /** A feeling from the mood, when the mood is one ("tense, rehearsed" gives "tense"). */
  readonly feeling?: string;
  /** Whether the persona would admit to that feeling. */
  readonly uneasy: boolean;
}

const feelings =
  /^(anxious|nervous|worried|uneasy|tense|tired|frustrated|irritable|excited|hopeful|curious|blindsided|shaken|bitter|restless|relieved|upbeat|enthusiastic|impatient|shy|wary|sad|angry|annoyed|stressed|overwhelmed|uncertain|confused|frightened|scared|hurt|defensive|guarded|apprehensive|optimistic|pessimistic|skeptical|sceptical|exhausted|rattled|uncomfortable|grieving|calm|serious|focused)$/i;

const admitted = /^(anxious|nervous|worried|uneasy|tense|tired|frustrated|irritable|blindsided|shaken|bitter|restless|impatient|shy|wary|sad|angry|annoyed|stressed|overwhelmed|uncertain|confused|frightened|scared|hurt|apprehensive|pessimistic|skeptical|sceptical|exhausted|rattled|uncomfortable|grieving)$/i;

export const voiceOf = (cue: Cue): Voice => voiceFrom([cue.speaker.mood, ...cue.speaker.traits].join('\u0000'));

// A persona's voice is the same on every turn: read once per mood and traits.
const voiceFrom = memoize((key: string): Voice => {
  const [mood, ...personaTraits] = key.split('\u0000') as [string, ...string[]];
  const traits = personaTraits.join(' ').toLowerCase();
  const own = markersByTrait.filter(([pattern]) => pattern.test(traits)).flatMap(([, markers]) => markers);
  const quoted = personaTraits.flatMap((t) => [...t.matchAll(/["“]([^"”]{3,40})["”]/g)].map((m) => m[1]!.trim()));
  const followUps = quoted.filter((q) => /^(and|what|why|how|who|where|when|which|so)\b/i.test(q));
  const spokenMarkers = quoted.filter((q) => !followUps.includes(q) && q.split(/\s+/).length <= 4).map((q) => `${q.charAt(0).toUpperCase()}${q.slice(1)},`);
  const first = mood.split(/,|\bbut\b|\band\b/)[0]!.trim().toLowerCase();
  const feeling = feelings.test(first) ? first : undefined;
  return {
    markers: [...new Set([...spokenMarkers, ...own, ...plainMarkers])],
    followUps,
    ...(feeling ? { feeling } : {}),
    uneasy: !!feeling && admitted.test(feeling),
  };
});
