/**
 * Bids for the floor: the scripted stand-ins for the LLM turn selector (MPOD §3.1) and for
 * think() (MMAgents §3.2.1), answered as the JSON their prompts ask for.
 */
import type { Cue } from '../../../engine/requests';
import type { Rng } from '../../../../shared/rng';
import { functionWords, mentions, tokens } from './words';

/** MPOD §3.1 turn selector: the addressee when it is a candidate, else a seeded pick. */
export const selectNext = (cue: Cue, rng: Rng): string => {
  const candidates = cue.candidates?.length ? cue.candidates : cue.participants.map((p) => p.shortName);
  const addressee = cue.addressee && cue.participants.find((p) => p.id === cue.addressee?.id);
  const names = [cue.addressee?.id, cue.addressee?.shortName, addressee?.name].filter(Boolean).map((n) => n!.toLowerCase());
  return candidates.find((c) => names.includes(c.toLowerCase())) ?? rng.pick(candidates);
};

/**
 * MMAgents §3.2.1 think(): bid to speak with an importance 0-9. Being named in the last message
 * makes a strong bid; the last message touching the speaker's goals, facts or talking points a likely one.
 */
export const think = (cue: Cue, rng: Rng): { thought: string; action: 'speak' | 'listen'; importance: number } => {
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
  const interests = new Set(tokens([...cue.facts, ...cue.goals, ...cue.bank.points, cue.snippet.goal].join(' ')).filter((w) => w.length >= 4 && !functionWords.has(w)));
  const shared = tokens(last.text).find((w) => interests.has(w));
  if (shared) {
    const importance = rng.int(5, 8);
    return { thought: `${last.shortName} brought up ${shared}, which I care about.`, action: rng.chance(0.85) ? 'speak' : 'listen', importance };
  }
  const importance = rng.int(0, 4);
  return { thought: 'Nothing here needs me yet; I will listen.', action: importance >= 4 && rng.chance(0.5) ? 'speak' : 'listen', importance };
};
