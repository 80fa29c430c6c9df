/**
 * MMAgents think() (§3.2.1, Algorithm 1): every listener thinks on every turn, a designated one
 * included, and thinks with its recent thoughts and retrieved memories in view; and long-term
 * memory normalised by the generator when it is an LLM.
 */
import { describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../../server/engine/requests';
import { createSession } from '../../server/engine/session';
import { ai, cueText, makeScene, run } from './harness';

const scene = makeScene({
  participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), ai('cleo', 'Cleo Ruiz'), ai('dev', 'Dev Rao')],
  turnTaking: { policy: 'cssn-or-ss' },
  snippets: [{ id: 'a', initiator: 'ada', turns: 16 }],
});

/** Everyone but Ben asks Ben, by name: every other turn is designated. */
const askBen = (r: GenerateRequest) =>
  r.purpose === 'utterance' && r.cue.speaker.id !== 'ben' && !r.cue.obligation ? `Ben, what do you make of the ${r.cue.variant % 2 ? 'budget' : 'launch'} figures?` : cueText(r);

describe('think()', () => {
  it('refreshes the listeners’ thoughts on a designated turn without choosing the speaker', () => {
    const { events, requests } = run(scene, { seed: 2, respond: askBen });
    const designated = events.filter((e) => e.type === 'floor' && e.reason === 'designated');
    expect(designated.length).toBeGreaterThan(2);
    // One think round per bidding turn, and one more per designated turn.
    const bidding = events.filter((e) => e.type === 'floor' && ['self-selected', 'continues', 'random'].includes(e.reason));
    const thinks = requests.filter((r) => r.kind === 'think');
    expect(thinks.length).toBeGreaterThanOrEqual(bidding.length + designated.length - 1);
    expect(thinks.filter((r) => r.kind === 'think' && !r.participants.some((p) => p.participant === 'ben')).length).toBeGreaterThanOrEqual(designated.length - 1);
    // The designated speaker still answers: thoughts do not take the floor from Ben.
    for (const f of designated) expect(f.type === 'floor' && f.speaker).toBe('ben');
  });

  it('sees the thinker’s recent thoughts and what was said earlier', () => {
    const { requests } = run(scene, { seed: 2, respond: askBen });
    const prompts = requests.flatMap((r) => (r.kind === 'think' ? r.participants.map((p) => p.request.prompt) : []));
    expect(prompts.some((p) => p.includes('Your recent thoughts: consider the'))).toBe(true);
    expect(prompts.some((p) => /Earlier in the conversation:\n- /.test(p))).toBe(true);
  });
});

describe('long-term memory with an LLM (MMAgents Eq. 3)', () => {
  const said = 'Well, honestly, I locked the server room at nine and gave the key to Dev before I left.';
  const respond = (r: GenerateRequest) => {
    if (r.purpose === 'normalize') return r.prompt.includes('I locked the server room') ? '- Ada locked the server room at 9 pm.\n- Ada gave the server-room key to Dev before leaving.' : '- none';
    if (r.purpose === 'utterance' && r.cue.speaker.id === 'ada' && !r.cue.obligation) return said;
    return cueText(r);
  };

  it('asks the generator to normalise each utterance, and its bullet points replace the rules’ facts', () => {
    const state = createSession(scene, { seed: 4, normalizeKnowledge: true });
    const { state: after, requests, events } = run(scene, { state, respond });
    const asked = requests.filter((r) => r.kind === 'generate' && r.request.purpose === 'normalize');
    expect(asked.length).toBeGreaterThan(5);
    expect(asked[0]!.kind === 'generate' && asked[0]!.request.prompt).toMatch(/Extract the important facts/);
    expect(after.memory.facts).toContain('Ada Park: Ada locked the server room at 9 pm.');
    expect(after.memory.facts).toContain('Ada Park: Ada gave the server-room key to Dev before leaving.');
    // The rules' version of each normalised utterance is gone; "- none" keeps the rules' facts of the others.
    // A session's last utterance is asked for after the end, unanswered: its rules' facts stay.
    const lastIsAda = events.filter((e) => e.type === 'utterance').at(-1)?.speaker === 'ada';
    expect(after.memory.facts.filter((f) => f.includes('I locked the server room')).length).toBe(lastIsAda ? 1 : 0);
    expect(after.memory.facts.some((f) => !f.startsWith('Ada Park: Ada'))).toBe(true);
  });

  it('leaves memory to the rules without an LLM', () => {
    const { state: after, requests } = run(scene, { seed: 4, respond });
    expect(requests.some((r) => r.kind === 'generate' && r.request.purpose === 'normalize')).toBe(false);
    expect(after.memory.facts.some((f) => f.includes('I locked the server room at nine'))).toBe(true);
  });
});
