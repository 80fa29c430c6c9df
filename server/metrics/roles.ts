/**
 * Role adherence: whether the people a scene's `structure` (or a snippet's `roles`) names as
 * askers put their questions to the answerers, as in an interview the panel asks the candidate.
 * A question here is a designated one: `pair` question with an addressee.
 *
 * ```ts
 * roleAdherenceOf(utterances, scene); // { adherence: 0.9, questionsByPart: { 'asker->answerer': 9, 'asker->asker': 1 } }
 * ```
 */
import type { UtteranceEvent } from '../../shared/events';
import { partOf, rolesFor, rosterOf } from '../engine/roster';
import type { LoadedScene } from '../../shared/scene/schema';

export interface RoleAdherence {
  /** Of the askers' questions, the share addressed to an answerer; `null` without roles or such questions. */
  adherence: number | null;
  /**
   * Who asks whom, by part in the snippet (chair, asker, answerer, member): every designated
   * question in a snippet with roles, keyed `asker->answerer` and so on.
   */
  questionsByPart: Record<string, number>;
}

export const roleAdherenceOf = (utterances: readonly UtteranceEvent[], scene: LoadedScene): RoleAdherence => {
  const roster = rosterOf(scene);
  const snippets = new Map(scene.snippets.map((s) => [s.id, s]));
  const questionsByPart: Record<string, number> = {};
  let asked = 0;
  let adhered = 0;
  for (const u of utterances) {
    if (u.pair !== 'question' || u.addressee === null) continue;
    const snippet = snippets.get(u.snippet);
    const roles = snippet && rolesFor(roster, snippet);
    if (!snippet || !roles) continue;
    const key = `${partOf(roster, snippet, u.speaker)}->${partOf(roster, snippet, u.addressee)}`;
    questionsByPart[key] = (questionsByPart[key] ?? 0) + 1;
    if (!roles.askers.has(u.speaker)) continue;
    asked += 1;
    if (roles.answerers.has(u.addressee)) adhered += 1;
  }
  return { adherence: asked > 0 ? adhered / asked : null, questionsByPart };
};
