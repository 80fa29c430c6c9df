/**
 * The room around a formation: soft light, the merged static room (floor, walls, tables, chairs,
 * the board's stand) and the shared content on its board. Two draw calls in all: the room, and the
 * board when there is content. No shadows.
 *
 * ```tsx
 * const seats = seatsFor(scene.formation, scene.participants);
 * <Environment formation={scene.formation} seats={seats} content={scene.contents[0]} />
 * ```
 */
import { useEffect, useMemo } from 'react';
import type { Formation } from '../../../server/scene/schema';
import { Board, type BoardContent } from './board';
import { boardSize, roomGeometry } from './furniture';
import { focusFor, type Seat } from './layout';

export interface EnvironmentProps {
  formation: Formation;
  seats: readonly Seat[];
  /** What the board shows; no board without it. */
  content?: BoardContent | null;
}

export const Environment = ({ formation, seats, content }: EnvironmentProps) => {
  const focus = focusFor(formation);
  const kind = content?.kind;
  const geometry = useMemo(
    () => roomGeometry({ formation, seats, board: kind ? boardSize(kind, focus) : null }),
    [formation, seats, kind, focus],
  );
  useEffect(() => () => geometry.dispose(), [geometry]);
  return (
    <>
      {/* Sky from above, the warm floor bounced from below, one sun-like key light. */}
      <hemisphereLight args={[0xfdfbf6, 0xcbbfae, 1.8]} />
      <directionalLight position={[2.5, 6, 4]} intensity={1.3} />
      <mesh geometry={geometry} matrixAutoUpdate={false}>
        <meshLambertMaterial vertexColors />
      </mesh>
      {content && <Board content={content} focus={focus} />}
    </>
  );
};
