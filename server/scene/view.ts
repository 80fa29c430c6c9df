/**
 * What a client is shown of a scene: the room's snapshot (rooms/rooms.ts) and the 3D replay's data
 * (review/replay.ts) give the same view. Contents are filtered by who may read them: the public
 * ones, and a party's own for its members (instructors read everything).
 */
import { shortNameOf, type LoadedScene } from './schema';

export const sceneViewOf = (scene: LoadedScene, mayRead: (owner: string) => boolean) => ({
  id: scene.id,
  title: scene.title,
  topic: scene.topic,
  formation: scene.formation,
  contents: scene.contents.filter((c) => c.owner === 'public' || mayRead(c.owner)).map(({ id, kind, title, summary, sections, owner }) => ({ id, kind, title, summary, sections, owner })),
  moderated: scene.turnTaking.partyMode === 'moderated',
  context: scene.context,
});

/** Every seat of the scene as a client lists it, present or not. */
export const seatsOf = (scene: LoadedScene, present: (id: string) => boolean) =>
  scene.participants.map((p) => ({ id: p.id, name: p.name, shortName: shortNameOf(p), kind: p.kind, role: p.role ?? null, present: present(p.id), avatar: p.avatar ?? null }));
