/**
 * The voice benches' scene: one trainee and one persona taking turns for as long as a bench runs,
 * so what is measured is the pipeline (listening, generating, voicing), not the scene.
 *
 * ```ts
 * const conversation = openConversation(voiceBenchScene('bench-voice', 'Voice bench'), { ... });
 * ```
 */
import { parse } from 'yaml';
import { Scene, type LoadedScene } from '../shared/scene/schema';

/** Tara (human) and Ada (persona), round-robin, 400 turns. */
export const voiceBenchScene = (id: string, title: string): LoadedScene => ({
  id,
  ...Scene.parse(
    parse(`
title: ${title}
topic: the launch plan
formation: table
participants:
  - { id: tara, kind: human, name: Tara Quinn }
  - { id: ada, kind: ai, name: Ada Park, persona: { backstory: A product manager. } }
turnTaking: { policy: round-robin }
snippets: [{ id: a, initiator: ada, turns: 400 }]
`),
  ),
});
