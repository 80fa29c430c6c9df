/**
 * The room around a formation: its setting (setting/setting.ts: the furniture of an interview room,
 * a lecture hall, a poster hall, a lunch table, a retro…) merged into one lit geometry and one
 * glowing one (windows, ceiling lights), every shared content on its board, and lighting that
 * models faces from any side: a soft fill from sky and floor and two keys crossing the room from
 * opposite corners, neither strong enough to wash a face out. No shadows. Two draw calls for the
 * room and one per board.
 *
 * ```tsx
 * const seats = seatsFor(scene.formation, scene.participants);
 * const boards = boardsFor(scene.formation, scene.contents.map((c) => c.kind), seats);
 * <Environment formation={scene.formation} form="interview" seats={seats} contents={scene.contents} boards={boards} slides={{ deck: 2 }} />
 * ```
 */
import { memo, useEffect, useMemo } from 'react';
import type { Formation, StructureForm } from '../../../shared/scene/schema';
import { Board, type BoardContent } from './board';
import { furnish } from './furniture';
import type { BoardPlace, Seat } from './layout';
import { settingFor } from './setting/setting';

export interface EnvironmentProps {
  formation: Formation;
  /** The meeting's form (the scene's structure.form): a circle becomes a lunch table, a retro… */
  form?: StructureForm | null;
  seats: readonly Seat[];
  /** What the boards show, each on the board of the same index. */
  contents: readonly (BoardContent & { id: string })[];
  boards: readonly BoardPlace[];
  /** The slide each slide deck shows (from 0), by content id; absent: the first. */
  slides: Readonly<Record<string, number>>;
  /** Seats drawn without their chair (furnish). */
  chairless?: readonly string[];
}

// Memoised: the room re-renders with every change of its view; the environment changes with the scene and the slides.
export const Environment = memo(function Environment({ formation, form, seats, contents, boards, slides, chairless }: EnvironmentProps) {
  const kinds = contents.map((c) => c.kind).join(' ');
  const setting = useMemo(() => settingFor({ formation, form, seats, boards, kinds: kinds.split(' ') }), [formation, form, seats, boards, kinds]);
  const { solid, glow } = useMemo(() => furnish(setting, { chairless }), [setting, chairless]);
  useEffect(
    () => () => {
      solid.dispose();
      glow.dispose();
    },
    [solid, glow],
  );
  const { minX, maxX, minZ, maxZ } = setting.bounds;
  return (
    <>
      <hemisphereLight args={[0xfbf8f1, 0x9a8f80, 1.35]} />
      {/* Two keys across the room, from the window's side in front and the door's side behind. */}
      <directionalLight position={[maxX + 1, 4.5, maxZ + 2]} intensity={1.05} />
      <directionalLight position={[minX - 1, 4, minZ - 2]} intensity={0.6} />
      <mesh geometry={solid} matrixAutoUpdate={false}>
        <meshLambertMaterial vertexColors />
      </mesh>
      <mesh geometry={glow} matrixAutoUpdate={false}>
        <meshBasicMaterial vertexColors toneMapped={false} />
      </mesh>
      {contents.map((content, i) => {
        const place = boards[i];
        return place && <Board key={content.id} content={content} place={place} slide={slides[content.id] ?? 0} />;
      })}
    </>
  );
});
