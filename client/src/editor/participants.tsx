/**
 * The participants tab: everyone in the scene down the side (their face, name and whether a
 * persona or a person sits there), and the inspector of the one chosen: who they are, their
 * avatar from the library, their voice, and either their persona (an AI participant) or the brief
 * and the stand-in that plays them while they are away (a human seat).
 *
 * ```tsx
 * <Participants selected="gwen" onSelect={setSelected} />
 * ```
 */
import { humanAgentModes, intents, reveals } from '../../../shared/scene/schema';
import { Portrait } from '../ui/portrait';
import { addParticipant, removeParticipant } from './actions';
import { under, useEditor } from './context';
import { ChoiceField, LinesField, NumberField, TextField, PickField, InspectorHead } from './fields';
import { setAt, type Path } from './model';
import { VoiceSample } from './voice-sample';

export const Participants = ({ selected, onSelect }: { selected: string | null; onSelect: (id: string | null) => void }) => {
  const { draft, edit, avatars, problems } = useEditor();
  const index = Math.max(0, draft.participants.findIndex((p) => p.id === selected));
  const participant = draft.participants[index];
  const add = (kind: 'ai' | 'human') => {
    const before = new Set(draft.participants.map((p) => p.id));
    edit(addParticipant(kind, avatars.map((a) => a.id)));
    // The new one is chosen: its id is the first not taken before.
    const base = kind === 'ai' ? 'persona' : 'human';
    let id = base;
    for (let n = 2; before.has(id); n++) id = `${base}-${n}`;
    onSelect(id);
  };
  return (
    <div className="split">
      <aside className="side-list" aria-label="Participants">
        <ul>
          {draft.participants.map((p, i) => (
            <li key={`${p.id}-${i}`}>
              <button className={`person${i === index ? ' chosen' : ''}${under(problems, `participants[${i}]`).length > 0 ? ' has-problems' : ''}`} onClick={() => onSelect(p.id)}>
                <Portrait avatar={p.avatar ?? null} name={p.name || p.id} />
                <span>
                  <b>{p.name || p.id}</b>
                  <small>{p.kind === 'ai' ? 'persona' : 'human seat'}{p.role ? ` · ${p.role}` : ''}</small>
                </span>
              </button>
            </li>
          ))}
        </ul>
        <div className="row">
          <button onClick={() => add('ai')}>Add a persona</button>
          <button onClick={() => add('human')}>Add a human seat</button>
        </div>
      </aside>
      {participant ? <Inspector key={index} index={index} onRemoved={() => onSelect(null)} /> : <p className="note">No participants yet.</p>}
    </div>
  );
};

const Inspector = ({ index, onRemoved }: { index: number; onRemoved: () => void }) => {
  const { draft, edit } = useEditor();
  const p = draft.participants[index]!;
  const at = (...rest: (string | number)[]): Path => ['participants', index, ...rest];
  return (
    <section className="inspector" aria-label={`${p.name || p.id}'s settings`}>
      <InspectorHead
        title={p.name || p.id}
        onRemove={() => {
          edit(removeParticipant(p.id));
          onRemoved();
        }}
      />
      <div className="grid">
        <TextField label="Id" path={at('id')} hint="how the scene refers to them" />
        <TextField label="Name" path={at('name')} />
        <TextField label="Short name" path={at('shortName')} optional hint="what others call them" />
        <TextField label="Role" path={at('role')} optional />
        <ChoiceField label="Kind" path={at('kind')} options={['ai', 'human']} labels={{ ai: 'AI persona', human: 'human seat' }} />
      </div>
      <AvatarLibrary index={index} />
      <h3>Voice</h3>
      <div className="grid">
        <TextField label="eSpeak voice" path={at('voice', 'espeak')} optional hint='e.g. "en-us+f3"' />
        <TextField label="ElevenLabs voice id" path={at('voice', 'elevenlabs')} optional />
        <NumberField label="Pitch (0-99)" path={at('voice', 'pitch')} optional min={0} max={99} />
        <NumberField label="Voice rate (words/min)" path={at('voice', 'rate')} optional min={80} max={450} />
      </div>
      <VoiceSample index={index} />
      {p.kind === 'ai' || p.persona ? <PersonaFields index={index} /> : null}
      {p.kind === 'human' ? (
        <>
          <h3>Brief (what the person in this seat is told)</h3>
          <TextField label="Background" path={at('brief', 'background')} optional long />
          <LinesField label="Goals" path={at('brief', 'goals')} />
          <h3>Stand-in (when nobody sits here)</h3>
          <div className="grid">
            <ChoiceField label="Mode" path={at('simulated', 'mode')} options={humanAgentModes} optional unset="reactive (default)" />
            <NumberField label="Derail probability" path={at('simulated', 'derailProbability')} optional step={0.05} min={0} max={1} />
          </div>
          <PickField label="Intents" path={at('simulated', 'intents')} options={intents} optional hint="the deviations the stand-in may bring (default: all)" />
          <LinesField label="Stand-in traits" path={at('simulated', 'traits')} rows={2} />
          {!p.persona && (
            <button onClick={() => edit(setAt(at('persona'), { backstory: '' }, 'Give the human seat a persona'))}>Give this seat a persona too</button>
          )}
        </>
      ) : null}
    </section>
  );
};

const AvatarLibrary = ({ index }: { index: number }) => {
  const { draft, edit, avatars } = useEditor();
  const p = draft.participants[index]!;
  return (
    <fieldset className="avatar-library">
      <legend>Avatar</legend>
      {avatars.map((a) => (
        <button
          key={a.id}
          className={`avatar-choice${p.avatar === a.id ? ' chosen' : ''}`}
          aria-pressed={p.avatar === a.id}
          title={`${a.id}: ${a.name}${a.mood ? `, ${a.mood}` : ''}`}
          onClick={() => edit(setAt(['participants', index, 'avatar'], a.id, `Give ${p.id} ${a.id}`))}
        >
          <Portrait avatar={a.id} name={a.name} />
          <small>{a.id.replace('avatar-', '#')}</small>
        </button>
      ))}
    </fieldset>
  );
};

const PersonaFields = ({ index }: { index: number }) => {
  const { draft, edit } = useEditor();
  const at = (...rest: (string | number)[]): Path => ['participants', index, 'persona', ...rest];
  const knowledge = draft.participants[index]!.persona?.privateKnowledge ?? [];
  const setKnowledge = (items: typeof knowledge, name: string) => edit(setAt(at('privateKnowledge'), items.length > 0 ? items : undefined, name));
  return (
    <>
      <h3>Persona</h3>
      <TextField label="Backstory" path={at('backstory')} long />
      <div className="grid">
        <LinesField label="Goals" path={at('goals')} />
        <LinesField label="Traits" path={at('traits')} />
        <TextField label="Mood" path={at('mood')} optional hint="default: neutral" />
        <NumberField label="Speaking rate (words/min)" path={at('speakingRate')} optional min={80} max={300} hint="default 150" />
        <LinesField label="Questions" path={at('questions')} hint="questions they may ask, one per line" />
        <LinesField label="Talking points" path={at('points')} hint="things they want to say, one per line" />
      </div>
      <h4>Private knowledge</h4>
      <ChoiceField label="Reveal (for items without their own rule)" path={at('reveal')} options={reveals} optional unset="never (default)" />
      <ol className="knowledge">
        {knowledge.map((item, k) => (
          <li key={k}>
            {typeof item === 'string' ? (
              <>
                <TextField label={`Fact ${k + 1}`} path={at('privateKnowledge', k)} />
                <button onClick={() => setKnowledge(knowledge.map((it, j) => (j === k ? { text: item, reveal: 'when-asked' } : it)), 'Give a fact its own rule')}>
                  Own reveal rule
                </button>
              </>
            ) : (
              <>
                <TextField label={`Fact ${k + 1}`} path={at('privateKnowledge', k, 'text')} />
                <ChoiceField label="Reveal" path={at('privateKnowledge', k, 'reveal')} options={reveals} />
              </>
            )}
            <button className="danger" aria-label={`Remove fact ${k + 1}`} onClick={() => setKnowledge(knowledge.filter((_, j) => j !== k), 'Remove a fact')}>
              ✕
            </button>
          </li>
        ))}
      </ol>
      <button onClick={() => setKnowledge([...knowledge, { text: '', reveal: 'never' }], 'Add a fact')}>Add a fact</button>
      <ChoiceField label="When a person talks over them" path={at('bargeIn')} options={['polite', 'persistent']} optional unset="polite (default)" labels={{ polite: 'polite: stops at once', persistent: 'persistent: finishes the clause' }} />
    </>
  );
};
