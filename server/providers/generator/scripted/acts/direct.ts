/**
 * The instructor's direction for a turn, acted on by the scripted generator as an LLM would act on
 * it: in the persona's own words, in the first person, said to the trainee ("you", never "they").
 *
 * ```ts
 * direct(turn, 'ask about their salary expectations'); // { kind: 'line', text: "Alex, what are your salary expectations?" }
 * direct(turn, 'tell them the budget is fixed'); // "Alex, the budget is fixed."
 * direct(turn, 'be more sceptical'); // { kind: 'manner', opener: "Frankly, I'm not convinced yet." }: the turn's own line follows
 * ```
 *
 * "say …" or a quoted line is said as given. Whom it is said to: the person the direction names,
 * else the trainee (the last human who spoke, else the scene's first human seat). A direction the
 * rules cannot read is never read out as an instruction: the turn goes on as planned (null).
 */
import type { Turn } from '../turn';
import { capitalise, clause, sentence } from '../words';

export type Directed = { kind: 'line'; text: string } | { kind: 'manner'; opener: string };

const quoted = /^(?:say|tell (?:them|everyone|the room))[:,]?\s+["“](.+?)["”]$|^say:\s+(.+)$|^["“](.+)["”]$/i;
const wh = '(what|why|how|when|where|who|which|whether|if)';

/** Words that stand for the trainee in a direction written about them. */
const theyWords: [RegExp, string][] = [
  [/\b(?:they|he|she) (?:are|is)\b/gi, 'you are'],
  [/\b(?:they|he|she) (?:were|was)\b/gi, 'you were'],
  [/\b(?:they|he|she) (?:have|has)\b/gi, 'you have'],
  [/\b(?:they|he|she) (?:do|does)\b/gi, 'you do'],
  [/\b(?:they're|he's|she's)\b/gi, "you're"],
  [/\b(?:they've)\b/gi, "you've"],
  [/\b(?:they'd|he'd|she'd)\b/gi, "you'd"],
  [/\b(?:they'll|he'll|she'll)\b/gi, "you'll"],
  [/\b(?:themselves|himself|herself|themself)\b/gi, 'yourself'],
  [/\b(?:theirs|hers)\b/gi, 'yours'],
  [/\b(?:their|his|her)\b/gi, 'your'],
  [/\b(?:them|him)\b/gi, 'you'],
  [/\b(?:he|she) (\w+)/gi, 'you $1\u0000'],
  [/\bthey\b/gi, 'you'],
];

/** "expects" → "expect", after "he"/"she" became "you". */
const base = (verb: string): string => {
  const lower = verb.toLowerCase();
  if (lower === 'does') return 'do';
  if (lower === 'goes') return 'go';
  if (/(ss|sh|ch|x|z)es$/.test(lower)) return verb.slice(0, -2);
  if (/[^aeiou]ies$/.test(lower)) return `${verb.slice(0, -3)}y`;
  if (/[^s]s$/.test(lower)) return verb.slice(0, -1);
  return verb;
};

/** The direction's words about the trainee (pronouns, "the candidate", their name) said to them. */
export const toYou = (text: string, names: readonly string[]): string => {
  let out = text;
  for (const name of names) {
    const n = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`\\b${n}'s\\b`, 'gi'), 'your').replace(new RegExp(`\\b${n}\\b`, 'gi'), 'you');
  }
  out = out.replace(/\bthe (?:candidate|trainee|applicant|participant|interviewee|learner)'s\b/gi, 'your').replace(/\bthe (?:candidate|trainee|applicant|participant|interviewee|learner)\b/gi, 'you');
  for (const [pattern, replacement] of theyWords) out = out.replace(pattern, replacement);
  // A verb that followed "he" or "she" agrees with "you".
  return out.replace(/you (\w+)\u0000/g, (_, verb: string) => `you ${/^(is|was|has|can|could|will|would|should|may|might|must|did)$/i.test(verb) ? ({ is: 'are', was: 'were', has: 'have' } as Record<string, string>)[verb.toLowerCase()] ?? verb : base(verb)}`);
};

const auxiliaries = /^you (are|were|have|can|could|will|would|should|might|may|must|did|had|do)\b\s*(.*)$/i;

const pastTenses = new Set('left went came said told took gave made got had did was were knew thought felt found kept lost met paid put ran saw sent sold spent stood taught understood won wrote chose built bought brought caught dealt drew drove fell forgot grew held hid hit hurt led lent let meant quit rode rose sat shot slept spoke stole struck swore threw woke wore'.split(' '));

/** "whether you can start in May" → "can you start in May"; "what you expect" → "what do you expect"; null when it is not about "you". */
const directQuestion = (word: string, rest: string): string | null => {
  const aux = auxiliaries.exec(rest);
  const yes = /^(whether|if)$/i.test(word);
  if (aux) return `${yes ? '' : `${word} `}${aux[1]} you ${aux[2]}`.trim();
  const plain = /^you (\w+)\s*(.*)$/i.exec(rest);
  // A past tense ("why you left") keeps the indirect form: its base form is not guessed.
  if (plain && (/ed$/i.test(plain[1]!) || pastTenses.has(plain[1]!.toLowerCase()))) return null;
  if (plain) return `${yes ? '' : `${word} `}do you ${plain[1]} ${plain[2]}`.trim();
  return null;
};

/** "your salary expectations" → "what are your salary expectations"; other topics are asked about. */
const askAbout = (name: string, topic: string, pick: number): string => {
  const mine = /^your\s+(.+)$/i.exec(topic);
  if (mine) {
    const head = mine[1]!.split(/\s+/).find((_, i, all) => i === all.length - 1 || /^(for|of|with|in|on|at|about|to|from|since|as|and|or)$/i.test(all[i + 1]!))!;
    const plural = /[^su]s$/i.test(head) && !/(ss|is|us)$/i.test(head);
    return `${name}, ${plural ? 'what are' : 'what is'} ${topic}?`;
  }
  const forms = [`${name}, I'd like to ask about ${topic}: where do you stand on that?`, `${name}, let me ask you about ${topic}. What can you tell me?`, `${name}, tell me about ${topic}: what's your thinking there?`];
  return forms[pick % forms.length]!;
};

const manners: [RegExp, string[]][] = [
  [/\b(hostile|tough|tougher|harsh|harsher|sceptical|skeptical|critical|impatient|demanding|pushy|aggressive|direct|blunt|firm|firmer|stern)\b/i, ["Frankly, I'm not convinced yet.", "I'll be blunt with you.", "Let me be direct."]],
  [/\b(friendly|friendlier|warm|warmer|kind|kinder|encouraging|supportive|positive|gentle|gentler|nicer|nice|softer|relaxed)\b/i, ['I appreciate you sharing that.', "That's good to hear, honestly.", 'Thanks, that helps.']],
  [/\b(brief|briefer|shorter|concise|quicker|faster)\b/i, ['Briefly:', 'In short:', 'Quickly:']],
];

/** What the direction asks of this turn, or null when the rules cannot read it. */
export const direct = (turn: Turn, direction: string): Directed | null => {
  const { cue, rng } = turn;
  const speaker = cue.speaker;
  // "Raj, ask…", "Raj should ask…", "have Raj ask…": the persona is the one being told.
  const self = [speaker.name, speaker.shortName].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const text = direction
    .trim()
    .replace(/[.!]+$/, '')
    .replace(new RegExp(`^(?:(?:have|get|make|let)\\s+(?:${self})\\s+(?:to\\s+)?|(?:${self})[,:]?\\s+(?:(?:should|must|needs? to|has to|could|can)\\s+)?)`, 'i'), '')
    .replace(/^(?:please|now|next|then|ok(?:ay)?)[,]?\s+/i, '')
    .trim();
  if (!text) return null;
  const said = quoted.exec(text);
  if (said) return { kind: 'line', text: sentence((said[1] ?? said[2] ?? said[3] ?? '').trim()) };

  const others = cue.participants.filter((p) => p.id !== speaker.id);
  // Told to ask oneself ("ask Ben…" on Ben's turn): the question goes to the room.
  const askSelf = new RegExp(`^(?:ask|question)\\s+(?:${self})\\s+(?:about|on|regarding)\\s+(.+)$`, 'i').exec(text);
  if (askSelf) return { kind: 'line', text: `I'd like to ask everyone about ${clause(askSelf[1]!, turn.proper)}: where do we stand on that?` };
  const named = others.find((p) => [p.name, p.shortName].some((n) => new RegExp(`\\b${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(text)));
  const trainee = named ?? others.find((p) => p.id === cue.human?.id) ?? others.find((p) => p.kind === 'human') ?? others.find((p) => p.id === cue.addressee?.id) ?? others[0];
  const name = trainee?.shortName ?? '';
  const to = (line: string) => (name ? `${name}, ${line}` : capitalise(line));
  const names = trainee ? [trainee.name, trainee.shortName] : [];
  const you = (words: string) => clause(toYou(words, names), turn.proper);
  // Whom the verb takes: a pronoun, "the candidate", or the person's name.
  const object = `(?:(?:them|him|her|the (?:candidate|trainee|applicant|participant|interviewee)|${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|') || 'you'})\\s+)?`;
  const pick = rng.int(0, 5);

  const askWh = new RegExp(`^(?:ask|find out|check)\\s+${object}${wh}\\s+(.+)$`, 'i').exec(text);
  if (askWh) {
    const rest = toYou(askWh[2]!, names);
    const asked = directQuestion(askWh[1]!.toLowerCase(), rest);
    return { kind: 'line', text: asked ? to(`${clause(asked, turn.proper)}?`) : to(`I'd like to know ${askWh[1]!.toLowerCase()} ${clause(rest, turn.proper)}. Can you tell me?`) };
  }
  const askTo = new RegExp(`^(?:ask|get|invite|encourage|tell)\\s+${object}to\\s+(.+)$`, 'i').exec(text);
  if (askTo) return { kind: 'line', text: to(`could you ${you(askTo[1]!)}?`) };
  const ask = new RegExp(`^(?:ask|question|quiz|grill|probe)\\s+${object}(?:about|on|regarding|for)\\s+(.+)$`, 'i').exec(text);
  if (ask) return { kind: 'line', text: askAbout(name, you(ask[1]!), pick) };
  const press = new RegExp(`^(?:push back|press|challenge|pressure|pin down|disagree)\\s+(?:(?:on|with|about)\\s+)?${object}(?:(?:on|about|over)\\s+)?(.+)$`, 'i').exec(text);
  if (press) return { kind: 'line', text: to(`I have to push back on ${you(press[1]!)}: I'm not convinced it holds. Can you back that up?`) };
  const raise = /^(?:bring up|mention|raise|talk about|focus on|point out|discuss)\s+(?:that\s+)?(.+)$/i.exec(text);
  if (raise) return { kind: 'line', text: to(`before we move on, I want to bring up ${you(raise[1]!)}. What's your view?`) };
  const tellAbout = new RegExp(`^(?:tell|inform|brief)\\s+${object}about\\s+(.+)$`, 'i').exec(text);
  if (tellAbout) return { kind: 'line', text: to(`let me tell you about ${you(tellAbout[1]!)}.`) };
  const tell = new RegExp(`^(?:tell|remind|inform|warn|let)\\s+${object}(?:know\\s+)?(?:that\\s+)?(.+)$`, 'i').exec(text);
  if (tell) return { kind: 'line', text: to(`${you(tell[1]!)}.`) };
  const thank = new RegExp(`^(?:thank|praise|compliment|congratulate)\\s+${object}(?:(?:for|on)\\s+(.+))?$`, 'i').exec(text);
  if (thank) return { kind: 'line', text: to(thank[1] ? `thank you for ${you(thank[1])}; I appreciate it.` : 'thank you; I appreciate it.') };
  const agree = /^agree (?:with\s+)?(.+)$/i.exec(text);
  if (agree) {
    const who = cue.participants.find((p) => agree[1]!.toLowerCase().includes(p.shortName.toLowerCase()));
    return { kind: 'line', text: who ? (who.id === trainee?.id ? to("I agree with you on this.") : `I agree with ${who.shortName} on this.`) : `I agree with ${you(agree[1]!)}.` };
  }
  if (/^(?:wrap(?:\s+it)?\s+up|close|end|conclude|finish|bring (?:it|this) to a close)\b/i.test(text)) {
    return { kind: 'line', text: to("we're nearly out of time, so let's start wrapping up. Is there anything you'd like to add?") };
  }
  const move = /^(?:move on|change (?:the )?(?:subject|topic)|switch|turn)(?:\s+to\s+(.+))?$/i.exec(text);
  if (move) return { kind: 'line', text: `Let's move on${move[1] ? ` to ${you(move[1])}` : ''}. ${to("what's your take?")}` };
  if (/^(?:be|get|sound|act|become|stay|seem|play it|come across)\b/i.test(text)) {
    const manner = manners.find(([pattern]) => pattern.test(text));
    return manner ? { kind: 'manner', opener: manner[1][pick % manner[1].length]! } : null;
  }
  // A question written out ("what would they change?"): asked of them.
  if (/\?$/.test(direction.trim())) return { kind: 'line', text: to(`${you(text.replace(/\?+$/, ''))}?`) };
  // A bare subject ("salary expectations"): asked about. Anything else is not read out.
  if (text.split(/\s+/).length <= 6 && !/^(?:ask|tell|say|make|have|get|let|do|don't|stop|start|keep|try|give|show|avoid|use|go|interrupt|ignore)\b/i.test(text)) {
    return { kind: 'line', text: askAbout(name, you(text), pick) };
  }
  return null;
};
