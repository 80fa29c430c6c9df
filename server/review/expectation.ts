/**
 * The share of the talk a scene expects of each participant, which the debrief compares a trainee's
 * share with. A participant's own `expectedShare` in the scene file says it outright; otherwise it
 * follows from who asks whom (the scene's `structure`, a snippet's `roles`), phase by phase:
 * in a phase with answerers and others (askers, a chair), the answerers take half of the talk
 * (answers run longer than questions) and the others the other half, each side split evenly among
 * those who may speak (a party in `representative` mode speaks through its representative); a
 * phase where everyone asks and answers, or that names no roles, is an even split. The phases are
 * weighted by their turn budgets.
 *
 * ```ts
 * expectedShares(scene).get('alex') // { share: 0.47, basis: 'answering the questions put to them …' }
 * ```
 */
import { partOf, partyAllows, rolesFor, rosterOf, snippetMembers } from '../engine/roster';
import type { LoadedScene } from '../../shared/scene/schema';

export interface Expectation {
  /** 0..1 of everyone's speaking time. */
  share: number;
  /** Why, in words for the trainee. */
  basis: string;
}

const ANSWERERS_SHARE = 0.5;

const cache = new WeakMap<LoadedScene, ReadonlyMap<string, Expectation>>();

export const expectedShares = (scene: LoadedScene): ReadonlyMap<string, Expectation> => {
  const cached = cache.get(scene);
  if (cached) return cached;
  const roster = rosterOf(scene);
  const weighted = new Map<string, number>(roster.order.map((id) => [id, 0]));
  /** Turns in which the participant was an answerer facing askers: what makes their share larger. */
  const answering = new Map<string, number>(roster.order.map((id) => [id, 0]));
  let total = 0;
  for (const snippet of scene.snippets) {
    const speakers = snippetMembers(roster, snippet).filter((id) => roster.byId.has(id) && partyAllows(roster, id));
    if (speakers.length === 0) continue;
    const turns = snippet.turns;
    total += turns;
    const answerers = rolesFor(roster, snippet) ? speakers.filter((id) => partOf(roster, snippet, id) === 'answerer') : [];
    const others = speakers.filter((id) => !answerers.includes(id));
    if (answerers.length > 0 && others.length > 0) {
      for (const id of answerers) {
        weighted.set(id, weighted.get(id)! + (turns * ANSWERERS_SHARE) / answerers.length);
        answering.set(id, answering.get(id)! + turns);
      }
      for (const id of others) weighted.set(id, weighted.get(id)! + (turns * (1 - ANSWERERS_SHARE)) / others.length);
    } else {
      for (const id of speakers) weighted.set(id, weighted.get(id)! + turns / speakers.length);
    }
  }
  const n = Math.max(1, roster.order.length);
  const roled = [...answering.values()].some((turns) => turns > 0);
  const even = `an even split among the ${n} participants (1 / ${n})`;
  const result = new Map<string, Expectation>();
  for (const participant of scene.participants) {
    const id = participant.id;
    if (participant.expectedShare !== undefined) {
      result.set(id, { share: participant.expectedShare, basis: `what the scene expects of ${roster.shortName(id)}` });
      continue;
    }
    if (total === 0) {
      result.set(id, { share: 1 / n, basis: even });
      continue;
    }
    const share = weighted.get(id)! / total;
    const answered = answering.get(id)! / total;
    const basis =
      share === 0
        ? `${roster.shortName(id)} speaks through their party, as the scene's roles have it`
        : answered >= 0.5
          ? `answering the questions put to ${roster.shortName(id)}, as the scene's roles have it (answers take about half the talk)`
          : roled
            ? `the scene's roles, phase by phase (answerers take about half the talk, the others share the rest)`
            : even;
    result.set(id, { share, basis });
  }
  cache.set(scene, result);
  return result;
};

/**
 * The seats the scene's roles make askers (or its chair) in every phase they take part in with
 * roles: a detective, an interviewer. A request put to one ("Kit, please find who did this") is no
 * question for them to answer (review/debrief.ts).
 */
export const askingSeats = (scene: LoadedScene): ReadonlySet<string> => {
  const roster = rosterOf(scene);
  const seats = new Set<string>();
  for (const id of roster.order) {
    const parts = scene.snippets.filter((s) => rolesFor(roster, s) && snippetMembers(roster, s).includes(id)).map((s) => partOf(roster, s, id));
    if (parts.length > 0 && parts.every((part) => part === 'asker' || part === 'chair')) seats.add(id);
  }
  return seats;
};
