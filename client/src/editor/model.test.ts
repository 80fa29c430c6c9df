/**
 * The editor's model: every edit is one step of undo and redo, typing in one field is one step,
 * an undone edit is no unsaved change, and an opened scene keeps only what its author wrote.
 */
import { describe, expect, it } from 'vitest';
import { addParticipant, addSnippet, addTransition, removeParticipant, swapBoards, swapSeats } from './actions';
import { commit, isDirty, open, redo, sameScene, saved, setAt, undo, withAt, type Draft } from './model';

const scene: Draft = {
  title: 'Salary talk',
  topic: 'A raise',
  formation: 'table',
  participants: [
    { id: 'sam', kind: 'human', name: 'Sam Reyes' },
    { id: 'lee', kind: 'ai', name: 'Lee Park', persona: { backstory: 'A manager.' } },
  ],
  parties: [{ id: 'managers', members: ['lee'] }],
  contents: [
    { id: 'poster', kind: 'poster', title: 'Pay bands' },
    { id: 'deck', kind: 'slides', title: 'Results' },
  ],
  snippets: [{ id: 'opening', initiator: 'lee', turns: 6 }],
};

describe('the history of a draft', () => {
  it('undoes and redoes each edit in turn, and forgets the redo when a new edit is made', () => {
    let h = open(scene);
    h = commit(h, setAt(['title'], 'Raise talk'));
    h = commit(h, addSnippet());
    expect(h.present.snippets).toHaveLength(2);
    h = undo(h);
    expect(h.present.snippets).toHaveLength(1);
    expect(h.present.title).toBe('Raise talk');
    h = undo(h);
    expect(h.present).toBe(scene);
    expect(undo(h)).toBe(h);
    h = redo(redo(h));
    expect(h.present.title).toBe('Raise talk');
    expect(h.present.snippets).toHaveLength(2);
    h = undo(h);
    h = commit(h, setAt(['topic'], 'Pay'));
    expect(h.future).toEqual([]);
    expect(redo(h)).toBe(h);
  });

  it('makes typing in one field one step, and a step per field', () => {
    let h = open(scene);
    for (const title of ['R', 'Ra', 'Rai']) h = commit(h, setAt(['title'], title), 'title');
    h = commit(h, setAt(['topic'], 'P'), 'topic');
    h = commit(h, setAt(['topic'], 'Pa'), 'topic');
    expect(h.past).toHaveLength(2);
    h = undo(h);
    expect([h.present.title, h.present.topic]).toEqual(['Rai', 'A raise']);
    h = undo(h);
    expect(h.present.title).toBe('Salary talk');
  });

  it('names the step undo would take back', () => {
    const h = commit(open(scene), addParticipant('ai', ['avatar-01']));
    expect(h.names).toEqual(['Add a persona']);
    expect(redo(undo(h)).names).toEqual(['Add a persona']);
    expect(undo(h).undone).toEqual(['Add a persona']);
  });

  it('has unsaved changes until saved, and none once the edits are undone', () => {
    let h = commit(open(scene), setAt(['title'], 'Raise talk'));
    expect(isDirty(h)).toBe(true);
    expect(isDirty(undo(h))).toBe(false);
    h = saved(h);
    expect(isDirty(h)).toBe(false);
    expect(isDirty(undo(h))).toBe(true);
  });

  it('changes nothing, and records no step, for an edit that sets what is already there', () => {
    const h = open(scene);
    expect(commit(h, setAt(['title'], 'Salary talk'))).toBe(h);
  });
});

describe('edits of the draft', () => {
  it('copies only what is on the path, and removes a field that is emptied', () => {
    const next = withAt(scene, ['participants', 1, 'persona', 'mood'], 'tense');
    expect(next.participants[1]!.persona!.mood).toBe('tense');
    expect(next.participants[0]).toBe(scene.participants[0]);
    expect(next.snippets).toBe(scene.snippets);
    expect(scene.participants[1]!.persona).toEqual({ backstory: 'A manager.' });
    const emptied = withAt(next, ['participants', 1, 'persona', 'mood'], undefined);
    expect(Object.keys(emptied.participants[1]!.persona!)).toEqual(['backstory']);
    expect(withAt(scene, ['closing', 'speaker'], 'lee').closing).toEqual({ speaker: 'lee' });
  });

  it('swaps seats by swapping places in the participants, and boards by the contents', () => {
    const seats = swapSeats('sam', 'lee').perform(scene);
    expect(seats.participants.map((p) => p.id)).toEqual(['lee', 'sam']);
    expect(swapBoards(0, 1).perform(scene).contents!.map((c) => c.id)).toEqual(['deck', 'poster']);
    expect(swapSeats('sam', 'nobody').perform(scene)).toBe(scene);
  });

  it('gives new participants fresh ids and unworn avatars, and takes a removed one out of parties and casts', () => {
    const once = addParticipant('ai', ['avatar-01', 'avatar-02']).perform({ ...scene, participants: [{ ...scene.participants[0]!, avatar: 'avatar-01' }, scene.participants[1]!] });
    const twice = addParticipant('ai', ['avatar-01', 'avatar-02']).perform(once);
    expect(twice.participants.slice(2).map((p) => [p.id, p.avatar])).toEqual([
      ['persona', 'avatar-02'],
      ['persona-2', 'avatar-01'],
    ]);
    const human = addParticipant('human', []).perform(scene).participants[2]!;
    expect(human).toMatchObject({ id: 'human', kind: 'human', simulated: { mode: 'reactive' } });
    const cast = { ...scene, snippets: [{ ...scene.snippets[0]!, participants: ['sam', 'lee'] }] };
    const removed = removeParticipant('lee').perform(cast);
    expect(removed.participants.map((p) => p.id)).toEqual(['sam']);
    expect(removed.parties![0]!.members).toEqual([]);
    expect(removed.snippets[0]!.participants).toEqual(['sam']);
  });

  it('undoes a transition drawn in the graph', () => {
    let h = commit(open(scene), addSnippet());
    h = commit(h, addTransition('snippet', 'opening'));
    expect(h.present.snippets[1]!.next).toBe('opening');
    expect(undo(h).present.snippets[1]!.next).toBeUndefined();
  });

  it('compares scenes as data, in any key order, without the keys left undefined', () => {
    expect(sameScene({ a: 1, b: [{ c: 2, d: undefined }] }, { b: [{ c: 2 }], a: 1 })).toBe(true);
    expect(sameScene({ a: 1 }, { a: 2 })).toBe(false);
  });
});
