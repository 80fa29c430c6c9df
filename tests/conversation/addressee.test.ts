/**
 * The engine's plan is authoritative, and a human's words decide whom they address: a trainee who
 * asks a persona by name is answered by that persona, in every shipped scene, under every turn
 * policy and every party speaking mode (a panel that speaks through representatives included).
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openConversation } from '../../server/conversation/conversation';
import type { SessionEvent } from '../../shared/events';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { loadScene } from '../../server/scene/load';
import { shortNameOf, type LoadedScene } from '../../shared/scene/schema';

const sceneFiles = readdirSync('scenes').filter((f) => f.endsWith('.yaml')).sort();

/** The scene as shipped, then under each other policy, and with every party in each speaking mode. */
const variants = (scene: LoadedScene): [string, LoadedScene][] => {
  const out: [string, LoadedScene][] = [['as shipped', scene]];
  const { policy } = scene.turnTaking;
  for (const other of ['round-robin', 'random', 'llm-selector', 'cssn-or-ss'] as const) {
    if (other !== policy) out.push([other, { ...scene, turnTaking: { ...scene.turnTaking, policy: other, partyMode: undefined, moderator: undefined } }]);
  }
  if (scene.parties.length) {
    for (const speakingMode of ['representative', 'random', 'all'] as const) {
      const parties = scene.parties.map((p) => ({ ...p, speakingMode, representative: p.members[0] }));
      out.push([`party free, ${speakingMode}`, { ...scene, parties, turnTaking: { ...scene.turnTaking, policy: 'party', partyMode: 'free', moderator: undefined } }]);
    }
  }
  return out;
};

/** Opens the scene with its first human present, lets the room talk a little, then has the human ask `persona` by name. */
const askByName = async (scene: LoadedScene, persona: string): Promise<{ asked: SessionEvent; next: SessionEvent | undefined }> => {
  const trainee = scene.participants.find((p) => p.kind === 'human')!.id;
  const name = shortNameOf(scene.participants.find((p) => p.id === persona)!);
  const utterances: Extract<SessionEvent, { type: 'utterance' }>[] = [];
  let asked = false;
  let settle!: () => void;
  const answered = new Promise<void>((resolve) => (settle = resolve));
  const conversation = openConversation(scene, {
    seed: 7,
    generator: createScriptedGenerator(),
    present: [trainee],
    maxTurns: 200,
    onEvent: (event) => {
      if (event.type === 'end') settle();
      // The instructor lets a simulated human's proposal through, as the simulator does.
      if (event.type === 'approval-needed') queueMicrotask(() => conversation.send({ type: 'approval', proposal: event.proposal, decision: 'approve' }));
      if (event.type !== 'utterance') return;
      utterances.push(event);
      if (asked && utterances.at(-2)?.speaker === trainee) settle();
      // After a few turns (or at once when the floor waits for the trainee), the question.
      if (!asked && (utterances.length >= 3 || conversation.state.awaiting)) ask();
    },
  });
  const ask = () => {
    asked = true;
    queueMicrotask(() => conversation.send({ type: 'say', participant: trainee, text: `${name}, what do you make of all this so far?` }));
  };
  const wait = setInterval(() => !asked && conversation.state.awaiting && ask(), 5);
  await answered;
  clearInterval(wait);
  conversation.send({ type: 'end' });
  // The trainee is here: nobody stands in for them, whoever addresses them.
  expect(utterances.filter((u) => u.speaker === trainee && u.source !== 'human')).toEqual([]);
  const at = utterances.findIndex((u) => u.speaker === trainee && u.source === 'human');
  return { asked: utterances[at]!, next: utterances[at + 1] };
};

describe('a question from the trainee to a persona by name', () => {
  for (const file of sceneFiles) {
    it(`is answered by that persona in ${file}, under every policy and party speaking mode`, async () => {
      const scene = await loadScene(`scenes/${file}`);
      const personas = scene.participants.filter((p) => p.kind === 'ai').map((p) => p.id);
      for (const [variant, altered] of variants(scene)) {
        for (const persona of personas) {
          const { asked, next } = await askByName(altered, persona);
          expect(asked, `${variant}: ${persona}`).toMatchObject({ addressee: persona, pair: 'question' });
          expect(next, `${variant}: asked ${persona}`).toMatchObject({ speaker: persona, act: 'answer' });
        }
      }
    }, 60_000);
  }
});
