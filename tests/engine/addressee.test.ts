/**
 * The engine's plan decides whom a persona addresses: a bare "you" in its text does not redirect
 * the question to the previous speaker; only a name does, and then the named person answers. The
 * scene's roles decide whom askers ask, and the last turn asks nothing.
 */
import { describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../../server/engine/requests';
import { ai, cueText, human, makeScene, run, utterances } from './harness';

const trio = [human('alex', 'Alex Moreno'), ai('hana', 'Hannah Okafor'), ai('raj', 'Raj Malhotra'), ai('sofia', 'Sofia Lindqvist')];

/** Questions without a name in them ("What do you think…?"): the addressee must come from the plan. */
// Each opens and asks differently, as the screen wants of a session's lines (no reused opening, nothing said twice).
const openers = ['So', 'Honestly', 'Quick one', 'Now then', 'Out of interest', 'Tell me', 'Before we move on', 'One more'];
const topics = ['budget', 'hiring freeze', 'launch date', 'pricing page', 'support rota', 'office move', 'roadmap', 'data migration'];
const bare = (r: GenerateRequest) =>
  r.purpose === 'utterance' && r.cue.act === 'question'
    ? `${openers[r.cue.variant % openers.length]}, what do you think about the ${topics[Math.floor(r.cue.variant / 8) % topics.length]}, take ${r.cue.variant}?`
    : cueText(r);

describe('the planned addressee', () => {
  it('goes into the request and the utterance event, whatever a bare "you" would suggest', () => {
    const scene = makeScene({ participants: trio, turnTaking: { policy: 'random' }, snippets: [{ id: 'a', initiator: 'hana', turns: 30 }] });
    const { requests, events } = run(scene, { respond: bare, seed: 4 });
    const asked = requests.flatMap((r) => (r.kind === 'generate' && r.request.purpose === 'utterance' && r.request.cue.act === 'question' ? [r.request.cue] : []));
    expect(asked.length).toBeGreaterThan(2);
    const questions = utterances(events).filter((u) => u.pair === 'question' && u.source === 'ai');
    expect(questions.length).toBeGreaterThan(2);
    const all = utterances(events);
    for (const q of questions) {
      const cue = asked.find((c) => q.text.includes(`take ${c.variant}`))!;
      expect(q.addressee).toBe(cue.addressee!.id);
      const next = all[all.indexOf(q) + 1];
      if (next) expect(next.speaker).toBe(q.addressee);
    }
  });

  it('gives way to a name in the text: the named person answers', () => {
    const scene = makeScene({ participants: trio, turnTaking: { policy: 'round-robin' }, snippets: [{ id: 'a', initiator: 'hana', turns: 12 }] });
    // Whoever the plan says, the question names Sofia (unless Sofia asks, then Raj).
    const naming = (r: GenerateRequest) =>
      r.purpose === 'utterance' && r.cue.act === 'question'
        ? `${r.cue.speaker.id === 'sofia' ? 'Raj' : 'Sofia'}, how would you cut scope, take ${r.cue.variant}?`
        : cueText(r);
    const all = utterances(run(scene, { respond: naming, seed: 2 }).events);
    const named = all.filter((u) => u.pair === 'question' && u.source === 'ai');
    expect(named.length).toBeGreaterThan(0);
    for (const q of named) {
      expect(q.addressee).toBe(q.speaker === 'sofia' ? 'raj' : 'sofia');
      expect(all[all.indexOf(q) + 1]?.speaker ?? q.addressee).toBe(q.addressee);
    }
  });

  it('follows the scene roles: askers ask the answerers, and follow up on their answers', () => {
    const scene = makeScene({
      participants: trio,
      parties: [{ id: 'panel', members: ['hana', 'raj', 'sofia'] }],
      structure: { form: 'interview', askers: ['panel'], answerers: ['alex'] },
      turnTaking: { policy: 'random' },
      snippets: [{ id: 'a', initiator: 'hana', turns: 40 }],
    });
    const { events, requests } = run(scene, { seed: 3 });
    const questions = utterances(events).filter((u) => u.pair === 'question' && u.source === 'ai');
    expect(questions.length).toBeGreaterThan(5);
    expect(questions.filter((q) => q.addressee === 'alex').length / questions.length).toBeGreaterThanOrEqual(0.9);
    const cues = requests.flatMap((r) => (r.kind === 'generate' && r.request.purpose === 'utterance' ? [r.request.cue] : []));
    expect(cues.some((c) => c.move === 'follow-up' && c.role.part === 'asker' && c.addressee?.id === 'alex')).toBe(true);
    expect(cues.filter((c) => c.speaker.id === 'alex').every((c) => c.role.part === 'answerer')).toBe(true);
  });

  it('asks nothing on the last turn: the session closes instead of leaving a question open', () => {
    const scene = makeScene({ participants: trio, turnTaking: { policy: 'random' }, snippets: [{ id: 'a', initiator: 'hana', turns: 9 }] });
    const closes = [1, 2, 3, 4, 5, 6].map((seed) => {
      const { events, requests } = run(scene, { seed });
      const all = utterances(events);
      expect(all.at(-1)!.pair).toBe('none');
      const last = requests.filter((r) => r.kind === 'generate' && r.request.purpose === 'utterance').at(-1);
      // The last turn answers what was asked, or closes.
      const cue = last?.kind === 'generate' ? last.request.cue : null;
      expect(cue?.move === 'close' || cue?.act === 'answer').toBe(true);
      return cue?.move === 'close';
    });
    expect(closes.some(Boolean)).toBe(true);
  });
});

describe('private knowledge in the cue', () => {
  it('is given as facts only where its reveal rule allows it, and as secrets otherwise', () => {
    const scene = makeScene({
      participants: [
        human('kit', 'Kit Lane'),
        ai('vivian', 'Vivian Hale', { persona: { backstory: 'The widow.', privateKnowledge: ['She saw a lamp in the barrel room at 9:40.', { text: 'She sees a divorce lawyer on Tuesday.', reveal: 'never' }], reveal: 'when-asked' } }),
        ai('agnes', 'Agnes Pike', { persona: { backstory: 'The housekeeper.', privateKnowledge: [{ text: 'She washed the decanter at 10:15.', reveal: 'freely' }] } }),
      ],
      structure: { form: 'investigation', askers: ['kit'], answerers: ['vivian', 'agnes'] },
      turnTaking: { policy: 'random' },
      snippets: [{ id: 'a', initiator: 'agnes', turns: 30 }],
    });
    const { requests } = run(scene, { seed: 5, inputs: [{ type: 'start' }] });
    const cues = requests.flatMap((r) => (r.kind === 'generate' && r.request.purpose === 'utterance' ? [r.request.cue] : []));
    const vivian = cues.filter((c) => c.speaker.id === 'vivian');
    expect(vivian.length).toBeGreaterThan(0);
    for (const cue of vivian) {
      const asked = cue.obligation?.pair === 'question' || cue.obligation?.pair === 'request';
      expect(cue.facts.includes('She saw a lamp in the barrel room at 9:40.')).toBe(asked);
      expect(cue.facts).not.toContain('She sees a divorce lawyer on Tuesday.');
      expect(cue.secrets).toContain('She sees a divorce lawyer on Tuesday.');
      expect(cue.facts.join(' ') + cue.secrets.join(' ')).not.toContain('decanter');
    }
    expect(cues.filter((c) => c.speaker.id === 'agnes').every((c) => c.facts.includes('She washed the decanter at 10:15.'))).toBe(true);
  });
});
