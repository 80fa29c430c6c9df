/**
 * The parties and contents tab: the parties (who is in each, who speaks for it), how the floor
 * passes between them and who asks whom (the scene's `structure` and `turnTaking`), and the
 * content library: slide decks, posters and documents, each visible to everyone or to one party
 * (`owner`), with its file (content-file.tsx: an image, a PDF, or a text read into its sections).
 *
 * ```tsx
 * <PartiesAndContents />
 * ```
 */
import { contentKinds, partyModes, policies, speakingModes, structureForms } from '../../../shared/scene/schema';
import { addContent, addParty, removeContent, removeParty } from './actions';
import { ContentFile } from './content-file';
import { useEditor } from './context';
import { CheckField, ChoiceField, LinesField, NumberField, PickField, TextField } from './fields';
import { setAt } from './model';

export const PartiesAndContents = () => (
  <div className="columns">
    <Parties />
    <Contents />
  </div>
);

const Parties = () => {
  const { draft, edit } = useEditor();
  const people = draft.participants.map((p) => p.id);
  const parties = draft.parties ?? [];
  const names: Record<string, string> = { '*': 'everyone', ...Object.fromEntries(draft.participants.map((p) => [p.id, p.name || p.id])) };
  const refs = ['*', ...people, ...parties.map((p) => p.id)];
  return (
    <section className="card" aria-label="Parties">
      <h2>Parties</h2>
      {parties.length === 0 && <p className="note">No parties: everyone speaks for themselves.</p>}
      {parties.map((party, i) => (
        <div key={i} className="item">
          <div className="grid">
            <TextField label="Id" path={['parties', i, 'id']} />
            <TextField label="Name" path={['parties', i, 'name']} optional />
            <TextField label="Role" path={['parties', i, 'role']} optional />
            <ChoiceField label="Who speaks for it" path={['parties', i, 'speakingMode']} options={speakingModes} optional unset="all (default)" />
          </div>
          <PickField label="Members" path={['parties', i, 'members']} options={people} labels={names} />
          {party.speakingMode === 'representative' && <ChoiceField label="Representative" path={['parties', i, 'representative']} options={party.members} labels={names} optional />}
          {party.speakingMode === 'subset' && <PickField label="Subset" path={['parties', i, 'subset']} options={party.members} labels={names} optional />}
          <button className="danger" onClick={() => edit(removeParty(i))}>
            Remove the party
          </button>
        </div>
      ))}
      <button onClick={() => edit(addParty())}>Add a party</button>
      <h2>Who asks whom</h2>
      <div className="grid">
        <ChoiceField label="Turn policy" path={['turnTaking', 'policy']} options={policies} optional unset="cssn-or-ss (default)" />
        <ChoiceField label="Party mode" path={['turnTaking', 'partyMode']} options={partyModes} optional hint="how the floor passes between parties (party policy)" />
        <ChoiceField label="Moderator" path={['turnTaking', 'moderator']} options={people} labels={names} optional />
        <NumberField label="Most turns per session" path={['turnTaking', 'maxTurns']} optional min={1} hint="default 60" />
      </div>
      {draft.structure ? (
        <>
          <div className="grid">
            <ChoiceField label="Structure" path={['structure', 'form']} options={structureForms} />
            <ChoiceField label="Chair" path={['structure', 'chair']} options={people} labels={names} optional />
            <CheckField label="Askers may follow up" path={['structure', 'followUps']} fallback />
          </div>
          <PickField label="Askers" path={['structure', 'askers']} options={refs} labels={names} />
          <PickField label="Answerers" path={['structure', 'answerers']} options={refs} labels={names} />
          <button onClick={() => edit(setAt(['structure'], undefined, 'Remove the structure'))}>No structure</button>
        </>
      ) : (
        <button onClick={() => edit(setAt(['structure'], { form: 'discussion', askers: ['*'], answerers: ['*'] }, 'Add a structure'))}>Say who asks whom</button>
      )}
    </section>
  );
};

const Contents = () => {
  const { draft, edit } = useEditor();
  const contents = draft.contents ?? [];
  const owners = ['public', ...(draft.parties ?? []).map((p) => p.id)];
  return (
    <section className="card" aria-label="Contents">
      <h2>Content library</h2>
      {contents.length === 0 && <p className="note">No contents: the room's board stays blank.</p>}
      {contents.map((content, i) => (
        <div key={i} className="item">
          <div className="grid">
            <TextField label="Id" path={['contents', i, 'id']} />
            <ChoiceField label="Kind" path={['contents', i, 'kind']} options={contentKinds} />
            <TextField label="Title" path={['contents', i, 'title']} />
            <ChoiceField label="Visible to" path={['contents', i, 'owner']} options={owners.filter((o) => o !== 'public')} optional unset="everyone" hint="everyone, or one party" />
          </div>
          <TextField label="Summary" path={['contents', i, 'summary']} optional long />
          <LinesField label={content.kind === 'slides' ? 'Slides' : 'Sections'} path={['contents', i, 'sections']} hint={content.kind === 'slides' ? 'one slide per line' : 'one section per line'} />
          <ContentFile index={i} />
          <div className="row">
            <button className="danger" onClick={() => edit(removeContent(i))}>
              Remove
            </button>
          </div>
        </div>
      ))}
      <div className="row">
        {contentKinds.map((kind) => (
          <button key={kind} onClick={() => edit(addContent(kind))}>
            Add {kind === 'slides' ? 'slides' : `a ${kind}`}
          </button>
        ))}
      </div>
      <p className="note">A board shows a content's image when it has one, else its title, summary and sections.</p>
    </section>
  );
};
