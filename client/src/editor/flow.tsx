/**
 * The flow tab: the snippets as a node graph (@xyflow/react, React Flow, as DialogLab's authoring
 * stage uses) and the inspector of the chosen snippet. A node shows the snippet's title, who opens
 * it, its turn budget and how many problems it has; an edge is a transition (graph.ts): drawing one
 * from a node's right handle to another sets where the flow goes next, deleting it (select, then
 * Delete) ends the session there. Dashed edges follow the list order and are not written. A node
 * dragged stays where it is dropped: its place is saved with the snippet (`editor.position`).
 *
 * ```tsx
 * <Flow selected="opening" onSelect={setSnippet} />
 * ```
 */
import { Background, Controls, Handle, Position, ReactFlow, applyNodeChanges, type Edge, type Node, type NodeChange, type NodeProps, type ReactFlowInstance } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo, useRef, useState } from 'react';
import { patterns } from '../../../shared/scene/schema';
import { addSnippet, addTransition, cutTransition, deleteSnippet, moveSnippet } from './actions';
import { under, useEditor } from './context';
import { ChoiceField, LinesField, NumberField, PickField, TextField, InspectorHead } from './fields';
import { placeOf, transitionsOf, type NodePlace } from './graph';
import { setAt, type Path } from './model';

interface SnippetData extends Record<string, unknown> {
  title: string;
  initiator: string;
  turns: string;
  problems: number;
  start: boolean;
  ends: boolean;
}

type SnippetNode = Node<SnippetData, 'snippet'>;

const SnippetBox = ({ data, selected }: NodeProps<SnippetNode>) => (
  <div className={`snippet-node${selected ? ' selected' : ''}${data.problems > 0 ? ' has-problems' : ''}`}>
    <Handle type="target" position={Position.Left} />
    {data.start && <span className="start">start</span>}
    <b>{data.title}</b>
    <small>
      {data.initiator} opens · {data.turns}
    </small>
    {data.problems > 0 && <span className="problem-count">{data.problems === 1 ? '1 problem' : `${data.problems} problems`}</span>}
    {data.ends && <span className="ends">ends the session</span>}
    <Handle type="source" position={Position.Right} />
  </div>
);

const nodeTypes = { snippet: SnippetBox };

export const Flow = ({ selected, onSelect }: { selected: string | null; onSelect: (id: string | null) => void }) => {
  const { draft, edit, problems } = useEditor();
  // Where each node sits is kept with its snippet (`editor.position`) once it is dropped; while it
  // is dragged, and its measured size (which React Flow needs back before it shows a node), are here.
  const [places, setPlaces] = useState<Record<string, { position?: NodePlace; measured?: SnippetNode['measured'] }>>({});
  const names = new Map(draft.participants.map((p) => [p.id, p.name || p.id]));
  const transitions = useMemo(() => transitionsOf(draft.snippets), [draft.snippets]);
  const nodes: SnippetNode[] = draft.snippets.map((s, i) => ({
    id: s.id,
    type: 'snippet',
    position: places[s.id]?.position ?? s.editor?.position ?? placeOf(i),
    ...(places[s.id]?.measured ? { measured: places[s.id]!.measured } : {}),
    selected: s.id === selected,
    data: {
      title: s.title || s.id,
      initiator: names.get(s.initiator) ?? (s.initiator || 'nobody'),
      turns: `${typeof s.turns === 'number' ? s.turns : '?'} turns`,
      problems: under(problems, `snippets[${i}]`).length,
      start: i === 0,
      ends: !transitions.some((t) => t.source === s.id),
    },
  }));
  const edges: Edge[] = transitions.map((t) => ({
    id: t.id,
    source: t.source,
    target: t.target,
    className: t.implicit ? 'implicit' : 'explicit',
    ...(t.implicit ? { label: 'next in order' } : {}),
  }));
  const index = draft.snippets.findIndex((s) => s.id === selected);
  // A snippet added or removed: the whole flow is framed again, so the new one is in view.
  const flow = useRef<ReactFlowInstance<SnippetNode> | null>(null);
  useEffect(() => {
    const frame = requestAnimationFrame(() => void flow.current?.fitView({ maxZoom: 1.1, duration: 200 }));
    return () => cancelAnimationFrame(frame);
  }, [draft.snippets.length]);

  return (
    <div className="flow-tab">
      <div className="flow-graph" data-testid="flow">
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          fitView
          fitViewOptions={{ maxZoom: 1.1 }}
          onInit={(instance) => void (flow.current = instance)}
          onNodesChange={(changes: NodeChange<SnippetNode>[]) => {
            const placed = applyNodeChanges(changes.filter((c) => c.type === 'position' || c.type === 'dimensions'), nodes);
            const dragging = new Set(changes.flatMap((c) => (c.type === 'position' && c.dragging ? [c.id] : [])));
            setPlaces(Object.fromEntries(placed.map((n) => [n.id, { ...(dragging.has(n.id) ? { position: n.position } : {}), ...(n.measured ? { measured: n.measured } : {}) }])));
          }}
          // Dropped: one edit, so undo puts the node back where it was, and the save keeps it.
          onNodeDragStop={(_, node) => {
            edit(moveSnippet(node.id, node.position));
            setPlaces((all) => ({ ...all, [node.id]: { ...(all[node.id]?.measured ? { measured: all[node.id]!.measured } : {}) } }));
          }}
          onNodeClick={(_, node) => onSelect(node.id)}
          onNodesDelete={(deleted) => deleted.forEach((n) => edit(deleteSnippet(n.id)))}
          onEdgesDelete={(deleted) => deleted.forEach((e) => edit(cutTransition(e.source)))}
          onConnect={(c) => c.source && c.target && c.source !== c.target && edit(addTransition(c.source, c.target))}
          deleteKeyCode={['Delete', 'Backspace']}
          proOptions={{ hideAttribution: true }}
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
        <button
          className="add-snippet"
          onClick={() => {
            const before = new Set(draft.snippets.map((s) => s.id));
            edit(addSnippet());
            let id = 'snippet';
            for (let n = 2; before.has(id); n++) id = `snippet-${n}`;
            onSelect(id);
          }}
        >
          Add a snippet
        </button>
      </div>
      {index >= 0 ? <SnippetInspector key={index} index={index} onRemoved={() => onSelect(null)} /> : <p className="note inspector">Choose a snippet to edit it; drag from a snippet's right edge to another to set what follows it.</p>}
    </div>
  );
};

const SnippetInspector = ({ index, onRemoved }: { index: number; onRemoved: () => void }) => {
  const { draft, edit } = useEditor();
  const snippet = draft.snippets[index]!;
  const at = (...rest: (string | number)[]): Path => ['snippets', index, ...rest];
  const people = draft.participants.map((p) => p.id);
  const labels = Object.fromEntries(draft.participants.map((p) => [p.id, p.name || p.id]));
  const refs = ['*', ...people, ...(draft.parties ?? []).map((p) => p.id)];
  const list = <K extends 'lines' | 'interruptions' | 'backchannels'>(key: K) => (snippet[key] ?? []) as unknown[];
  const setList = (key: 'lines' | 'interruptions' | 'backchannels', items: unknown[], name: string) => edit(setAt(at(key), items.length > 0 ? items : undefined, name));
  const next = snippet.next === undefined ? '(order)' : snippet.next === null ? '(end)' : snippet.next;
  return (
    <section className="inspector" aria-label={`Snippet ${snippet.id}`}>
      <InspectorHead
        title={snippet.title || snippet.id}
        onRemove={() => {
          edit(deleteSnippet(snippet.id));
          onRemoved();
        }}
      />
      <div className="grid">
        <TextField label="Id" path={at('id')} />
        <TextField label="Title" path={at('title')} optional />
        <ChoiceField label="Initiator" path={at('initiator')} options={people} labels={labels} hint="who opens it" />
        <ChoiceField label="Tone" path={at('pattern')} options={patterns} optional unset="neutral (default)" />
      </div>
      <TextField label="Goal" path={at('goal')} optional long hint="what this phase of the conversation is for" />
      <LinesField label="Sub-topics" path={at('subtopics')} hint="the agenda, in order, one per line" rows={2} />
      <PickField label="Who takes part" path={at('participants')} options={people} labels={labels} optional hint="nobody ticked: everyone" />
      <h3>How it ends</h3>
      <div className="grid">
        <NumberField label="Turn budget" path={at('turns')} min={1} hint="it ends after this many turns" />
        <div className="field" data-path={`snippets[${index}].next`}>
          <label htmlFor={`next-${index}`}>Then</label>
          <select
            id={`next-${index}`}
            value={next}
            onChange={(e) => {
              const v = e.target.value;
              edit(setAt(at('next'), v === '(order)' ? undefined : v === '(end)' ? null : v, `Set what follows ${snippet.id}`));
            }}
          >
            <option value="(order)">the next in the list</option>
            <option value="(end)">end the session</option>
            {draft.snippets.filter((s) => s.id !== snippet.id).map((s) => (
              <option key={s.id} value={s.id}>
                go to {s.title || s.id}
              </option>
            ))}
          </select>
        </div>
      </div>
      <h3>Scripted lines</h3>
      {list('lines').map((_, j) => (
        <div key={j} className="grid line">
          <ChoiceField label="Speaker" path={at('lines', j, 'speaker')} options={people} labels={labels} />
          <ChoiceField label="To" path={at('lines', j, 'to')} options={people} labels={labels} optional />
          <TextField label="Line" path={at('lines', j, 'text')} />
          <button className="danger" aria-label={`Remove line ${j + 1}`} onClick={() => setList('lines', list('lines').filter((_, k) => k !== j), 'Remove a line')}>
            ✕
          </button>
        </div>
      ))}
      <button onClick={() => setList('lines', [...list('lines'), { speaker: snippet.initiator, text: '' }], 'Add a line')}>Add a scripted line</button>
      <h3>Interruptions</h3>
      {list('interruptions').map((_, j) => (
        <div key={j} className="grid line">
          <ChoiceField label="Who cuts in" path={at('interruptions', j, 'from')} options={people} labels={labels} />
          <ChoiceField label="On whom" path={at('interruptions', j, 'to')} options={people} labels={labels} />
          <NumberField label="Probability" path={at('interruptions', j, 'probability')} step={0.05} min={0} max={1} />
          <TextField label="Vibe" path={at('interruptions', j, 'vibe')} optional />
          <button className="danger" aria-label={`Remove interruption ${j + 1}`} onClick={() => setList('interruptions', list('interruptions').filter((_, k) => k !== j), 'Remove an interruption')}>
            ✕
          </button>
        </div>
      ))}
      <button onClick={() => setList('interruptions', [...list('interruptions'), { from: people[0] ?? '', to: people[1] ?? '', probability: 0.1 }], 'Add an interruption')}>Add an interruption</button>
      <h3>Backchannels</h3>
      {list('backchannels').map((_, j) => (
        <div key={j} className="grid line">
          <ChoiceField label="Listener" path={at('backchannels', j, 'from')} options={people} labels={labels} optional unset="every listener (default)" />
          <NumberField label="Probability" path={at('backchannels', j, 'probability')} step={0.05} min={0} max={1} />
          <ChoiceField label="Kind" path={at('backchannels', j, 'kind')} options={['verbal', 'nod']} optional unset="either (default)" />
          <LinesField label="Cues" path={at('backchannels', j, 'cues')} rows={2} />
          <LinesField label="Triggers" path={at('backchannels', j, 'triggers')} rows={2} hint="words that invite it; none: any" />
          <button className="danger" aria-label={`Remove backchannel ${j + 1}`} onClick={() => setList('backchannels', list('backchannels').filter((_, k) => k !== j), 'Remove a backchannel')}>
            ✕
          </button>
        </div>
      ))}
      <button onClick={() => setList('backchannels', [...list('backchannels'), { probability: 0.2 }], 'Add a backchannel')}>Add a backchannel</button>
      <h3>Who asks whom here</h3>
      {snippet.roles ? (
        <>
          <PickField label="Askers" path={at('roles', 'askers')} options={refs} labels={{ '*': 'everyone', ...labels }} />
          <PickField label="Answerers" path={at('roles', 'answerers')} options={refs} labels={{ '*': 'everyone', ...labels }} />
          <button onClick={() => edit(setAt(at('roles'), undefined, 'Use the scene structure'))}>Use the scene's structure</button>
        </>
      ) : (
        <button onClick={() => edit(setAt(at('roles'), { askers: ['*'], answerers: ['*'] }, 'Give the snippet its own roles'))}>Set roles for this snippet</button>
      )}
    </section>
  );
};
