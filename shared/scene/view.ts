/**
 * What a client is shown of a scene: the room's snapshot (rooms/rooms.ts) and the 3D replay's data
 * (client/src/replay/replay.ts) give the same view. Contents are filtered by who may read them: the public
 * ones, and a party's own for its members (instructors read everything). A content's uploaded `file`
 * goes along, so the boards can show its image: GET /api/uploads lets a session's token read
 * exactly the files its scene's contents name.
 *
 * ```ts
 * sceneViewOf(scene, (owner) => owner === 'team').contents; // [{ id: 'poster', kind: 'poster', …, file: 'my-scene/3q…Xw.png' }]
 * ```
 */
import { shortNameOf, type LoadedScene, type Participant } from './schema';

export const sceneViewOf = (scene: LoadedScene, mayRead: (owner: string) => boolean) => ({
  id: scene.id,
  title: scene.title,
  topic: scene.topic,
  formation: scene.formation,
  form: scene.structure?.form ?? null,
  contents: scene.contents.filter((c) => c.owner === 'public' || mayRead(c.owner)).map(({ id, kind, title, summary, sections, owner, file }) => ({ id, kind, title, summary, sections, owner, ...(file ? { file } : {}) })),
  moderated: scene.turnTaking.partyMode === 'moderated',
  context: scene.context,
  duration: scene.duration ?? null,
});

/** Every seat of the scene as a client lists it, present or not. */
export const seatsOf = (scene: LoadedScene, present: (id: string) => boolean) =>
  scene.participants.map((p) => ({ id: p.id, name: p.name, shortName: shortNameOf(p), kind: p.kind, role: p.role ?? null, present: present(p.id), avatar: p.avatar ?? null }));

/**
 * What the person in a human seat is told before joining (the brief), in the second person: the
 * seat's own `brief`, else its persona's goals with "they" read as "you" (a persona describes the
 * seat for its simulation, in the third person) and its backstory as written.
 */
export const briefOf = (seat: Participant): { goals: string[]; backstory: string | null } =>
  seat.brief
    ? { goals: seat.brief.goals, backstory: seat.brief.background || null }
    : { goals: (seat.persona?.goals ?? []).map(secondPerson), backstory: seat.persona?.backstory ?? null };

const pronouns: [RegExp, string][] = [
  [/\bthey are\b/gi, 'you are'],
  [/\bthey were\b/gi, 'you were'],
  [/\bthey're\b/gi, "you're"],
  [/\bthey've\b/gi, "you've"],
  [/\bthey'd\b/gi, "you'd"],
  [/\bthey'll\b/gi, "you'll"],
  [/\bthemselves\b/gi, 'yourself'],
  [/\bthemself\b/gi, 'yourself'],
  [/\btheirs\b/gi, 'yours'],
  [/\btheir\b/gi, 'your'],
  [/\bthem\b/gi, 'you'],
  [/\bthey\b/gi, 'you'],
];

/** A goal written about the seat ("show they can push back") as said to its person ("show you can push back"). */
export const secondPerson = (goal: string): string => pronouns.reduce((text, [pattern, you]) => text.replace(pattern, (m) => (m[0] === m[0]!.toUpperCase() ? you[0]!.toUpperCase() + you.slice(1) : you)), goal);
