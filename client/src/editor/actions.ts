/**
 * The editor's structural edits, each a named `Edit` (model.ts): adding and removing participants,
 * contents, parties and snippets, swapping seats and boards, drawing and cutting transitions, moving a
 * snippet's node. A new
 * item gets a fresh id and only the fields the schema requires, left for the author to fill (the
 * live check says which are still empty). Removing a participant takes them out of parties and
 * snippet casts too; other references stay, and the check names them.
 *
 * ```ts
 * history = commit(history, addParticipant('ai', avatars));
 * history = commit(history, swapSeats('jordan', 'gwen'));
 * ```
 */
import type { ContentKind, ParticipantKind } from '../../../shared/scene/schema';
import { connect, disconnect, removeSnippet } from './graph';
import type { Draft, Edit } from './model';

/** `base`, or `base-2`, `base-3`… : the first that no item of `taken` has. */
export const freshId = (base: string, taken: readonly { id: string }[]): string => {
  const ids = new Set(taken.map((t) => t.id));
  if (!ids.has(base)) return base;
  let n = 2;
  while (ids.has(`${base}-${n}`)) n++;
  return `${base}-${n}`;
};

const swap = <T>(items: readonly T[], i: number, j: number): T[] => {
  const copy = [...items];
  [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  return copy;
};

export const addParticipant = (kind: ParticipantKind, avatars: readonly string[]): Edit => ({
  name: kind === 'ai' ? 'Add a persona' : 'Add a human seat',
  perform: (draft) => {
    const id = freshId(kind === 'ai' ? 'persona' : 'human', draft.participants);
    const worn = new Set(draft.participants.map((p) => p.avatar));
    const avatar = avatars.find((a) => !worn.has(a)) ?? avatars[0];
    const participant: Draft['participants'][number] =
      kind === 'ai'
        ? { id, kind, name: kind === 'ai' ? 'New persona' : 'New participant', ...(avatar ? { avatar } : {}), persona: { backstory: '' } }
        : { id, kind, name: 'New participant', ...(avatar ? { avatar } : {}), simulated: { mode: 'reactive' } };
    return { ...draft, participants: [...draft.participants, participant] };
  },
});

export const removeParticipant = (id: string): Edit => ({
  name: `Remove ${id}`,
  perform: (draft) => ({
    ...draft,
    participants: draft.participants.filter((p) => p.id !== id),
    ...(draft.parties ? { parties: draft.parties.map((party) => ({ ...party, members: party.members.filter((m) => m !== id) })) } : {}),
    snippets: draft.snippets.map((s) => (s.participants ? { ...s, participants: s.participants.filter((m) => m !== id) } : s)),
  }),
});

/**
 * Seats follow the participants' order (client/src/scene/layout.ts places them per formation), so
 * moving someone to another seat swaps the two in the list.
 */
export const swapSeats = (a: string, b: string): Edit => ({
  name: `Swap the seats of ${a} and ${b}`,
  perform: (draft) => {
    const i = draft.participants.findIndex((p) => p.id === a);
    const j = draft.participants.findIndex((p) => p.id === b);
    return i < 0 || j < 0 || i === j ? draft : { ...draft, participants: swap(draft.participants, i, j) };
  },
});

export const addContent = (kind: ContentKind): Edit => ({
  name: `Add a ${kind}`,
  perform: (draft) => {
    const contents = draft.contents ?? [];
    return { ...draft, contents: [...contents, { id: freshId(kind, contents), kind, title: `New ${kind}` }] };
  },
});

export const removeContent = (index: number): Edit => ({
  name: 'Remove a content',
  perform: (draft) => ({ ...draft, contents: (draft.contents ?? []).filter((_, i) => i !== index) }),
});

/** Boards take the contents' order (the first at the formation's focus), so moving a content to another board swaps the two. */
export const swapBoards = (i: number, j: number): Edit => ({
  name: 'Move a content to another board',
  perform: (draft) => (i === j ? draft : { ...draft, contents: swap(draft.contents ?? [], i, j) }),
});

export const addParty = (): Edit => ({
  name: 'Add a party',
  perform: (draft) => {
    const parties = draft.parties ?? [];
    return { ...draft, parties: [...parties, { id: freshId('party', parties), members: [] }] };
  },
});

export const removeParty = (index: number): Edit => ({
  name: 'Remove a party',
  perform: (draft) => ({ ...draft, parties: (draft.parties ?? []).filter((_, i) => i !== index) }),
});

export const addSnippet = (): Edit => ({
  name: 'Add a snippet',
  perform: (draft) => {
    const initiator = draft.participants.find((p) => p.kind === 'ai')?.id ?? draft.participants[0]?.id ?? '';
    return { ...draft, snippets: [...draft.snippets, { id: freshId('snippet', draft.snippets), initiator, turns: 6 }] };
  },
});

export const deleteSnippet = (id: string): Edit => ({
  name: `Remove the snippet ${id}`,
  perform: (draft) => ({ ...draft, snippets: removeSnippet(draft.snippets, id) }),
});

export const addTransition = (source: string, target: string): Edit => ({
  name: `Go from ${source} to ${target}`,
  perform: (draft) => ({ ...draft, snippets: connect(draft.snippets, source, target) }),
});

export const cutTransition = (source: string): Edit => ({
  name: `End after ${source}`,
  perform: (draft) => ({ ...draft, snippets: disconnect(draft.snippets, source) }),
});

/** The snippet's node, dropped at `position` in the flow: kept with the scene (`editor.position`), whole pixels. */
export const moveSnippet = (id: string, position: { x: number; y: number }): Edit => ({
  name: `Move the snippet ${id}`,
  perform: (draft) => ({
    ...draft,
    snippets: draft.snippets.map((s) => (s.id === id ? { ...s, editor: { ...s.editor, position: { x: Math.round(position.x), y: Math.round(position.y) } } } : s)),
  }),
});
