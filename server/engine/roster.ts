/**
 * A scene's roster: who is in it, by id, name and party, looked up once per scene; and who may speak
 * for a party (DialogLab §4.1): a party in `representative` mode speaks only through its
 * representative, a party in `subset` mode only through its subset.
 */
import { shortNameOf, type LoadedScene, type Participant, type Party, type Snippet, type StructureForm } from '../../shared/scene/schema';
import type { RolePart } from './requests';

/** The participants of one scene and their parties, indexed for the engine's lookups. */
export interface Roster {
  scene: LoadedScene;
  order: string[];
  byId: ReadonlyMap<string, Participant>;
  partyOf: ReadonlyMap<string, Party>;
  /** Display names in scene order, as given to the designation detector. */
  names: string[];
  idByName: ReadonlyMap<string, string>;
  shortName: (id: string) => string;
  name: (id: string) => string;
}

const rosters = new WeakMap<LoadedScene, Roster>();

export const rosterOf = (scene: LoadedScene): Roster => {
  const cached = rosters.get(scene);
  if (cached) return cached;
  const byId = new Map(scene.participants.map((p) => [p.id, p]));
  const partyOf = new Map<string, Party>();
  for (const party of scene.parties) for (const member of party.members) if (!partyOf.has(member)) partyOf.set(member, party);
  const roster: Roster = {
    scene,
    order: scene.participants.map((p) => p.id),
    byId,
    partyOf,
    names: scene.participants.map((p) => p.name),
    idByName: new Map(scene.participants.map((p) => [p.name, p.id])),
    shortName: (id) => {
      const p = byId.get(id);
      return p ? shortNameOf(p) : id;
    },
    name: (id) => byId.get(id)?.name ?? id,
  };
  rosters.set(scene, roster);
  return roster;
};

/** The members of a party allowed to speak for it. */
export const speakersFor = (party: Party): string[] => {
  if (party.speakingMode === 'representative' && party.representative) return [party.representative];
  if (party.speakingMode === 'subset' && party.subset) return party.subset;
  return party.members;
};

/** Whether a participant's party lets them speak at all (representative / subset rules). */
export const partyAllows = (roster: Roster, id: string): boolean => {
  const party = roster.partyOf.get(id);
  return !party || speakersFor(party).includes(id);
};

/** The participant who speaks in `id`'s place: themself, or their party's representative. */
export const speakerFor = (roster: Roster, id: string): string => {
  if (partyAllows(roster, id)) return id;
  const party = roster.partyOf.get(id)!;
  return speakersFor(party)[0] ?? id;
};

export const snippetMembers = (roster: Roster, snippet: Snippet): string[] => snippet.participants ?? roster.order;

/** Who asks whom in a snippet: the snippet's `roles`, else the scene's `structure`; null when neither says. */
export interface SnippetRoles {
  form: StructureForm | null;
  askers: ReadonlySet<string>;
  answerers: ReadonlySet<string>;
  chair: string | null;
  followUps: boolean;
}

const roleCache = new WeakMap<Snippet, SnippetRoles | null>();

/** Participant ids a list of role references names: participants, parties' members, or everyone for "*". */
const resolve = (roster: Roster, refs: readonly string[]): Set<string> => {
  const ids = new Set<string>();
  for (const ref of refs) {
    if (ref === '*') roster.order.forEach((id) => ids.add(id));
    else if (roster.byId.has(ref)) ids.add(ref);
    else roster.scene.parties.find((p) => p.id === ref)?.members.forEach((id) => ids.add(id));
  }
  return ids;
};

export const rolesFor = (roster: Roster, snippet: Snippet): SnippetRoles | null => {
  if (roleCache.has(snippet)) return roleCache.get(snippet)!;
  const structure = roster.scene.structure;
  const refs = snippet.roles ?? structure;
  const roles: SnippetRoles | null = refs
    ? {
        form: structure?.form ?? null,
        askers: resolve(roster, refs.askers),
        answerers: resolve(roster, refs.answerers),
        chair: structure?.chair ?? null,
        followUps: structure?.followUps ?? true,
      }
    : null;
  roleCache.set(snippet, roles);
  return roles;
};

/** A participant's part in a snippet: the chair, an asker, an answerer, or a plain member (also when asking and answering both). */
export const partOf = (roster: Roster, snippet: Snippet, id: string): RolePart => {
  const roles = rolesFor(roster, snippet);
  if (!roles) return 'member';
  if (roles.chair === id) return 'chair';
  const asks = roles.askers.has(id);
  const answers = roles.answerers.has(id);
  return asks && !answers ? 'asker' : answers && !asks ? 'answerer' : 'member';
};
