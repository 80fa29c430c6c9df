/**
 * The instructor's direction for a turn, followed by the scripted generator as an LLM would
 * follow it: "say …" or a quoted line is said as given; "ask Alex about the salary" asks Alex;
 * "bring up / mention / push back on the budget" raises it; "agree with Ben" agrees. Any other
 * direction leaves the turn as planned: the direction itself is never read out as an instruction
 * ("Ask Alex…", "Marco should admit…" are not said to the room).
 *
 * ```ts
 * directed(turn, 'ask Alex about the salary'); // "Alex, I'd like to ask about the salary: where do you stand?"
 * ```
 */
import type { Turn } from './turn';
import { capitalise, clause, question, sentence } from './words';

const quoted = /^(?:say|tell (?:them|everyone|the room))[:,]?\s+["“]?(.+?)["”]?$|^["“](.+)["”]$/i;
const asking = /^(?:ask|question|press|challenge)\s+(\S+(?:\s+\S+)?)\s+(?:about|on|whether|why|how|what|when|where|if)\s+(.+)$/i;
const raising = /^(?:bring up|mention|raise|talk about|focus on|push back on|challenge|question|disagree (?:with|about))\s+(.+)$/i;
const agreeing = /^agree (?:with\s+)?(.+)$/i;

/** The line a direction asks for, or null when the direction names nobody and nothing to say. */
export const directed = (turn: Turn, direction: string): string | null => {
  const text = direction.trim().replace(/[.!]+$/, '');
  if (!text) return null;
  const said = quoted.exec(text);
  if (said) return sentence((said[1] ?? said[2] ?? '').trim());
  const ask = asking.exec(text);
  if (ask) {
    const who = turn.cue.participants.find((p) => [p.name, p.shortName].some((n) => n.toLowerCase() === ask[1]!.toLowerCase()));
    const topic = clause(ask[2]!, turn.proper);
    // Told to ask oneself: the question goes to the room.
    if (who?.id === turn.cue.speaker.id) return `I'd like to ask everyone about ${topic}: ${question('where do we stand on that')}`;
    const name = who ? who.shortName : capitalise(ask[1]!);
    return `${name}, I'd like to ask about ${topic}: ${question('where do you stand on that')}`;
  }
  const raise = raising.exec(text);
  if (raise) {
    const topic = clause(raise[1]!, turn.proper);
    return /^(push back|challenge|question|disagree)/i.test(text) ? `I have to push back on ${topic}; I'm not convinced it holds.` : `Before we move on, I want to bring up ${topic}.`;
  }
  const agree = agreeing.exec(text);
  if (agree) {
    const who = turn.cue.participants.find((p) => agree[1]!.toLowerCase().includes(p.shortName.toLowerCase()));
    return who ? `I agree with ${who.shortName} on this.` : `I agree with ${clause(agree[1]!, turn.proper)}.`;
  }
  // A direction the rules cannot read is not read out (the room must never hear an instruction).
  return null;
};
