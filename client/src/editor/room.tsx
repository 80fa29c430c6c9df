/**
 * The room tab: the formation from above, as the room lays it out (scene/layout.ts: seats, boards
 * and tables), and a 3D preview with the real avatars. The scene format has no coordinates: a
 * formation places people in the participants' order and boards in the contents' order, so
 * dragging a person onto another seat swaps the two, and dragging a board onto another swaps
 * their contents. A click on a person opens them in the participants tab.
 *
 * ```tsx
 * <RoomView onOpen={(id) => showParticipant(id)} />
 * ```
 */
import { lazy, Suspense, useMemo, useRef, useState, type PointerEvent } from 'react';
import { formations } from '../../../shared/scene/schema';
import type { BoardPlace, Seat } from '../scene/layout';
import { swapBoards, swapSeats } from './actions';
import { under, useEditor } from './context';
import { ChoiceField } from './fields';
import { usePlan } from './plan';
import { initials } from '../ui/initials';

// three.js and the avatars load only when the preview is opened.
const Preview3D = lazy(() => import('./preview3d').then((m) => ({ default: m.Preview3D })));

export const RoomView = ({ onOpen }: { onOpen: (id: string) => void }) => {
  const [preview, setPreview] = useState(false);
  return (
    <div className="room-tab">
      <div className="row">
        <ChoiceField label="Formation" path={['formation']} options={formations} />
        <p className="note">Drag a person onto another seat, or a board onto another board, to swap them. Click a person to edit them.</p>
        <button className={preview ? 'on' : ''} aria-pressed={preview} onClick={() => setPreview(!preview)}>
          3D preview
        </button>
      </div>
      <div className={`room-views${preview ? ' with-preview' : ''}`}>
        <TopDown onOpen={onOpen} />
        {preview && (
          <Suspense fallback={<p className="note">Loading the 3D preview…</p>}>
            <Preview3D />
          </Suspense>
        )}
      </div>
    </div>
  );
};

type Drag = { kind: 'seat'; id: string; x: number; z: number } | { kind: 'board'; index: number; x: number; z: number };

const TopDown = ({ onOpen }: { onOpen: (id: string) => void }) => {
  const { draft, edit, problems } = useEditor();
  const { seats, boards, tables } = usePlan();
  const svg = useRef<SVGSVGElement>(null);
  const [drag, setDrag] = useState<Drag | null>(null);
  const moved = useRef(false);
  const box = useMemo(() => bounds(seats, boards), [seats, boards]);

  /** The room point under the pointer. */
  const pointAt = (e: PointerEvent): { x: number; z: number } => {
    const matrix = svg.current!.getScreenCTM()!.inverse();
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(matrix);
    return { x: p.x, z: p.y };
  };
  const nearest = <T,>(items: readonly T[], at: (t: T) => { x: number; z: number }, p: { x: number; z: number }, within: number): T | undefined =>
    items.map((t) => ({ t, d: Math.hypot(at(t).x - p.x, at(t).z - p.z) })).filter((c) => c.d < within).sort((a, b) => a.d - b.d)[0]?.t;

  const start = (e: PointerEvent, d: Drag) => {
    (e.target as Element).setPointerCapture(e.pointerId);
    moved.current = false;
    setDrag(d);
  };
  const move = (e: PointerEvent) => {
    if (!drag) return;
    moved.current = true;
    setDrag({ ...drag, ...pointAt(e) });
  };
  const drop = (e: PointerEvent) => {
    if (!drag) return;
    const p = pointAt(e);
    if (drag.kind === 'seat') {
      const target = nearest(seats, (s) => ({ x: s.position[0], z: s.position[2] }), p, 0.45);
      if (!moved.current) onOpen(drag.id);
      else if (target && target.id !== drag.id) edit(swapSeats(drag.id, target.id));
    } else {
      const target = nearest(boards.map((b, i) => ({ b, i })), ({ b }) => ({ x: b.position[0], z: b.position[2] }), p, 0.8);
      if (target && target.i !== drag.index) edit(swapBoards(drag.index, target.i));
    }
    setDrag(null);
  };

  const names = new Map(draft.participants.map((p) => [p.id, p]));
  const contents = draft.contents ?? [];
  return (
    <svg ref={svg} className="top-down" viewBox={`${box.x} ${box.z} ${box.w} ${box.h}`} role="img" aria-label="The room from above" onPointerMove={move} onPointerUp={drop}>
      <rect x={box.x} y={box.z} width={box.w} height={box.h} className="floor" />
      {tables.map((t, i) => (
        <rect key={i} className="table" x={-t.size[0] / 2} y={-t.size[1] / 2} width={t.size[0]} height={t.size[1]} transform={`translate(${t.position[0]} ${t.position[2]}) rotate(${(-t.yaw * 180) / Math.PI})`} />
      ))}
      {boards.map((b, i) => {
        const content = contents[i];
        const dragged = drag?.kind === 'board' && drag.index === i;
        const at = dragged ? { x: drag.x, z: drag.z } : { x: b.position[0], z: b.position[2] };
        return (
          <g key={i} className={`board${dragged ? ' dragging' : ''}`} data-content={content?.id} transform={`translate(${at.x} ${at.z}) rotate(${(-b.yaw * 180) / Math.PI})`} onPointerDown={(e) => start(e, { kind: 'board', index: i, ...at })}>
            <rect x={-b.size[0] / 2} y={-0.08} width={b.size[0]} height={0.16} />
            <text y={0.42} textAnchor="middle">
              {content ? `${content.kind}: ${content.title}` : ''}
            </text>
          </g>
        );
      })}
      {seats.map((seat) => {
        const p = names.get(seat.id);
        const dragged = drag?.kind === 'seat' && drag.id === seat.id;
        const at = dragged ? { x: drag.x, z: drag.z } : { x: seat.position[0], z: seat.position[2] };
        const index = draft.participants.findIndex((q) => q.id === seat.id);
        const invalid = under(problems, `participants[${index}]`).length > 0;
        return (
          <g key={seat.id} className={`seat ${p?.kind ?? ''}${dragged ? ' dragging' : ''}${invalid ? ' has-problems' : ''}`} data-seat={seat.id} transform={`translate(${at.x} ${at.z})`} onPointerDown={(e) => start(e, { kind: 'seat', id: seat.id, ...at })}>
            <title>{`${p?.name ?? seat.id}${p?.role ? `, ${p.role}` : ''} (${p?.kind === 'human' ? 'human seat' : 'persona'}${seat.seated ? ', seated' : ', standing'})`}</title>
            {/* The nose shows which way they face: yaw 0 faces +Z, down the plan. */}
            <line x1={0} y1={0} x2={Math.sin(seat.yaw) * 0.36} y2={Math.cos(seat.yaw) * 0.36} className="facing" />
            <circle r={0.24} />
            <text className="initials" dy="0.08">
              {initials(p?.name ?? seat.id)}
            </text>
            <text className="name" y={0.46}>
              {p?.name ?? seat.id}
            </text>
          </g>
        );
      })}
    </svg>
  );
};

/** The plan's extent with a margin for names and boards' labels, in metres. */
const bounds = (seats: readonly Seat[], boards: readonly BoardPlace[]) => {
  const xs = [...seats.map((s) => s.position[0]), ...boards.flatMap((b) => [b.position[0] - b.size[0] / 2, b.position[0] + b.size[0] / 2]), -2, 2];
  const zs = [...seats.map((s) => s.position[2]), ...boards.map((b) => b.position[2]), -2.6, 2];
  const margin = 0.9;
  const x = Math.min(...xs) - margin;
  const z = Math.min(...zs) - margin;
  return { x, z, w: Math.max(...xs) + margin - x, h: Math.max(...zs) + margin - z };
};
