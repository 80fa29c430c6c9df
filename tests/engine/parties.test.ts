import { describe, expect, it } from 'vitest';
import { ai, cueText, human, makeScene, ofType, plain, run, utterances } from './harness';
import type { GenerateRequest } from '../../server/engine/requests';

const statementsOnly = plain;

const panel = [
  ai('host', 'Hana Host'),
  ai('p1', 'Priya Raman'),
  ai('p2', 'Paul Okafor'),
  ai('p3', 'Pia Lind'),
  ai('q1', 'Quentin Moss'),
  ai('q2', 'Rosa Diaz'),
  human('you', 'Yusuf Ali', 'human-control', { derailProbability: 0 }),
];

describe('party policy (DialogLab A.2)', () => {
  it('alternates parties in round-robin and rotates members of a subset', () => {
    const scene = makeScene({
      participants: panel,
      parties: [
        { id: 'panel', members: ['p1', 'p2', 'p3'], speakingMode: 'subset', subset: ['p1', 'p3'] },
        { id: 'floor', members: ['q1', 'q2'], speakingMode: 'all' },
      ],
      turnTaking: { policy: 'party', partyMode: 'round-robin' },
      snippets: [{ id: 'a', initiator: 'p1', turns: 9 }],
    });
    const { events, requests } = run(scene, { respond: statementsOnly });
    const speakers = utterances(events).map((u) => u.speaker);
    // The floor party speaks in "all" mode: its other member builds on each point before the panel's turn.
    // Then the session's host, its first initiator, closes it.
    expect(speakers).toEqual(['p1', 'q1', 'q2', 'p3', 'q1', 'q2', 'p1', 'q1', 'q2', 'p1']);
    // One entry per turn: a line drawn again (the screen) asks with the same plan.
    const moves = requests
      .flatMap((r) => (r.kind === 'generate' && r.request.purpose === 'utterance' ? [`${r.request.cue.speaker.id}:${r.request.cue.move ?? ''}`] : []))
      .filter((m, i, all) => m !== all[i - 1]);
    expect(moves).toEqual(['p1:', 'q1:', 'q2:build-on', 'p3:', 'q1:', 'q2:build-on', 'p1:', 'q1:', 'q2:build-on', 'p1:close']);
  });

  it('speaks for a representative party through its representative, but a member asked by name answers', () => {
    const scene = makeScene({
      participants: panel,
      parties: [
        { id: 'panel', members: ['p1', 'p2', 'p3'], speakingMode: 'representative', representative: 'p2' },
        { id: 'floor', members: ['q1', 'q2', 'host'], speakingMode: 'random' },
      ],
      turnTaking: { policy: 'cssn-or-ss' },
      snippets: [{ id: 'a', initiator: 'q1', turns: 30 }],
    });
    const respond = (r: GenerateRequest) =>
      r.purpose === 'utterance' && r.cue.act !== 'answer' ? `Priya, how did you choose sample ${r.cue.variant}?` : cueText(r);
    const { events } = run(scene, { respond, seed: 2 });
    const all = utterances(events);
    const speakers = new Set(all.map((u) => u.speaker));
    expect(speakers.has('p3')).toBe(false);
    expect(speakers.has('p2')).toBe(true);
    const asked = all.findIndex((u) => u.addressee === 'p1' && u.pair === 'question');
    expect(asked).toBeGreaterThanOrEqual(0);
    expect(all[asked + 1]).toMatchObject({ speaker: 'p1', act: 'answer', addressee: all[asked]!.speaker });
    // p1 speaks only in answer to what was put to them.
    all.forEach((u, i) => u.speaker === 'p1' && expect(all[i - 1]!.addressee).toBe('p1'));
  });

  it('draws a speaking mode each time a random-mode party has the floor', () => {
    const scene = makeScene({
      participants: panel,
      parties: [
        { id: 'panel', members: ['p1', 'p2', 'p3'], speakingMode: 'random' },
        { id: 'floor', members: ['q1'], speakingMode: 'all' },
      ],
      turnTaking: { policy: 'party', partyMode: 'free' },
      snippets: [{ id: 'a', initiator: 'q1', turns: 40 }],
    });
    const { events, requests } = run(scene, { respond: statementsOnly, seed: 4 });
    const speakers = utterances(events).map((u) => u.speaker);
    expect(new Set(speakers.filter((s) => s !== 'q1'))).toEqual(new Set(['p1', 'p2', 'p3']));
    // Runs of panel turns between q1's: one speaker (representative or subset) or a chorus ("all").
    const runs = speakers.join(' ').split('q1').map((run) => run.trim().split(' ').filter(Boolean)).filter((run) => run.length);
    expect(runs.some((run) => run.length === 1)).toBe(true);
    expect(runs.some((run) => run.length >= 2 && new Set(run).size === run.length)).toBe(true);
    const builds = requests.filter((r) => r.kind === 'generate' && r.request.cue.move === 'build-on');
    expect(builds.every((r) => r.kind === 'generate' && ['p1', 'p2', 'p3'].includes(r.request.cue.speaker.id))).toBe(true);
    // Free mode picks another party each time: q1 never speaks twice in a row.
    for (let i = 1; i < speakers.length; i++) expect(speakers[i] === 'q1' && speakers[i - 1] === 'q1').toBe(false);
  });
});

describe('moderated mode (DialogLab A.3.8)', () => {
  const scene = makeScene({
    participants: panel,
    parties: [
      { id: 'chair', members: ['host'] },
      { id: 'presenters', members: ['p1', 'p2'], speakingMode: 'representative', representative: 'p1' },
      { id: 'audience', members: ['q1', 'q2', 'p3', 'you'] },
    ],
    contents: [{ id: 'slides', kind: 'slides', title: 'Results', owner: 'presenters' }],
    turnTaking: { policy: 'party', partyMode: 'moderated', moderator: 'host' },
    snippets: [{ id: 'qa', initiator: 'host', turns: 16 }],
  });

  it('queues raised hands; the moderator approves one and invites them by name', () => {
    const { events } = run(scene, { seed: 3 });
    const raises = ofType(events, 'hand-raise').filter((h) => h.action === 'raise');
    const approvals = ofType(events, 'hand-raise').filter((h) => h.action === 'approve');
    expect(raises.length).toBeGreaterThan(0);
    expect(approvals.length).toBeGreaterThan(0);
    const invite = utterances(events).find((u) => u.act === 'moderate' && u.addressee === approvals[0]!.participant);
    expect(invite?.text).toContain(',');
    expect(invite?.pair).toBe('invitation');
  });

  it('lets only the moderator, an approved hand, or the one they asked speak', () => {
    const { events } = run(scene, { seed: 8 });
    let approved: string | null = null;
    let asker: { speaker: string; addressee: string | null } | null = null;
    for (const e of events) {
      if (e.type === 'hand-raise' && e.action === 'approve') approved = e.participant;
      if (e.type !== 'utterance') continue;
      const ok = e.speaker === 'host' || e.speaker === approved || (asker !== null && asker.addressee === e.speaker);
      expect(ok, `${e.speaker} spoke out of turn`).toBe(true);
      asker = e.speaker === approved ? { speaker: e.speaker, addressee: e.pair !== 'none' ? e.addressee : null } : null;
      if (e.speaker === approved) approved = null;
    }
  });
});
