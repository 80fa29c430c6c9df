/**
 * The room around a formation: soft light, the merged static room (floor, walls, tables, chairs,
 * the boards' stands) and every shared content on its board. One draw call for the room and one
 * per board. No shadows.
 *
 * ```tsx
 * const seats = seatsFor(scene.formation, scene.participants);
 * const boards = boardsFor(scene.formation, scene.contents.map((c) => c.kind), seats);
 * <Environment formation={scene.formation} seats={seats} contents={scene.contents} boards={boards} slides={{ deck: 2 }} />
 * ```
 */
import { useEffect, useMemo } from 'react';
import type { Formation } from '../../../shared/scene/schema';
import { Board, type BoardContent } from './board';
import { roomGeometry } from './furniture';
import type { BoardPlace, Seat } from './layout';

export interface EnvironmentProps {
  formation: Formation;
  seats: readonly Seat[];
  /** What the boards show, each on the board of the same index. */
  contents: readonly (BoardContent & { id: string })[];
  boards: readonly BoardPlace[];
  /** The slide each slide deck shows (from 0), by content id; absent: the first. */
  slides: Readonly<Record<string, number>>;
  /** Seats drawn without their chair (roomGeometry). */
  chairless?: readonly string[];
}

export const Environment = ({ formation, seats, contents, boards, slides, chairless }: EnvironmentProps) => {
  const geometry = useMemo(() => roomGeometry({ formation, seats, boards, chairless }), [formation, seats, boards, chairless]);
  useEffect(() => () => geometry.dispose(), [geometry]);
  return (
    <>
      {/* Sky from above, the warm floor bounced from below, one sun-like key light. */}
      <hemisphereLight args={[0xfdfbf6, 0xcbbfae, 1.8]} />
      <directionalLight position={[2.5, 6, 4]} intensity={1.3} />
      <mesh geometry={geometry} matrixAutoUpdate={false}>
        <meshLambertMaterial vertexColors />
      </mesh>
      {contents.map((content, i) => {
        const place = boards[i];
        return place && <Board key={content.id} content={content} place={place} slide={slides[content.id] ?? 0} />;
      })}
    </>
  );
};
