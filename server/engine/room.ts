/**
 * Who is in the room and who may speak: lookups built once per scene, and the speaking-mode rules
 * of parties (DialogLab §4.1): a party in `representative` mode speaks only through its
 * representative, a party in `subset` mode only through its subset.
 */
import { shortNameOf, type LoadedScene, type Participant, type Party, type Snippet } from '../scene/schema';

export interface Room {
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

const rooms = new WeakMap<LoadedScene, Room>();

export const roomOf = (scene: LoadedScene): Room => {
  const cached = rooms.get(scene);
  if (cached) return cached;
  const byId = new Map(scene.participants.map((p) => [p.id, p]));
  const partyOf = new Map<string, Party>();
  for (const party of scene.parties) for (const member of party.members) if (!partyOf.has(member)) partyOf.set(member, party);
  const room: Room = {
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
  rooms.set(scene, room);
  return room;
};

/** The members of a party allowed to speak for it. */
export const voicesOf = (party: Party): string[] => {
  if (party.speakingMode === 'representative' && party.representative) return [party.representative];
  if (party.speakingMode === 'subset' && party.subset) return party.subset;
  return party.members;
};

/** Whether a participant's party lets them speak at all (representative / subset rules). */
export const partyAllows = (room: Room, id: string): boolean => {
  const party = room.partyOf.get(id);
  return !party || voicesOf(party).includes(id);
};

/** The participant who speaks in `id`'s place: themself, or their party's representative. */
export const voiceFor = (room: Room, id: string): string => {
  if (partyAllows(room, id)) return id;
  const party = room.partyOf.get(id)!;
  return voicesOf(party)[0] ?? id;
};

export const snippetMembers = (room: Room, snippet: Snippet): string[] => snippet.participants ?? room.order;
