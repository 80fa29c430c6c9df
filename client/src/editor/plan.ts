/**
 * The room's plan for the draft as it is: every seat, board and table as the room lays them out
 * (scene/layout.ts), shared by the top-down view and the 3D preview.
 *
 * ```ts
 * const { formation, seats, boards, tables } = usePlan();
 * ```
 */
import { useMemo } from 'react';
import { formations, type ContentKind, type Formation } from '../../../shared/scene/schema';
import { boardsFor, seatsFor, tableFor } from '../scene/layout';
import { useEditor } from './context';

export const usePlan = () => {
  const { draft } = useEditor();
  // An unknown formation (the check says so) is drawn as a table rather than not at all.
  const formation: Formation = formations.includes(draft.formation) ? draft.formation : 'table';
  const kinds = (draft.contents ?? []).map((c) => c.kind as ContentKind);
  return useMemo(() => {
    const seats = seatsFor(formation, draft.participants.map((p) => ({ id: p.id, kind: p.kind })));
    return { formation, seats, boards: boardsFor(formation, kinds, seats), tables: tableFor(formation, seats) };
  }, [formation, draft.participants, kinds.join()]); // eslint-disable-line react-hooks/exhaustive-deps
};
