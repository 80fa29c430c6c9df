/**
 * A conversation's checkpoint: the engine's state after one event of the log, with the requests
 * the shell was carrying out for it, as JSON. The rooms store the latest with the events it follows
 * (store/journal.ts), so a session whose server died resumes where it was (`openConversation(scene,
 * { resume })`) instead of ending. The state is plain data (records and arrays, no Map or Set); the
 * scene is left out (it is the scene file's, loaded again by id) and checked on the way back in.
 *
 * ```ts
 * const json = checkpointJson({ state, seq: state.seq, t: state.t, requests });
 * const resume = parseCheckpoint(json, scene); // throws CheckpointError: the session ends as before
 * openConversation(scene, { seed, generator, resume });
 * ```
 */
import type { EngineRequest, SessionState } from '../engine/session';
import type { LoadedScene } from '../../shared/scene/schema';

/** Where a conversation continues: the state after event `seq` (at `t`, session ms) and the requests in flight then. */
export interface Resume {
  state: SessionState;
  seq: number;
  t: number;
  requests: EngineRequest[];
}

/** The checkpoint's format; a change to SessionState that old checkpoints cannot meet bumps it. */
const FORMAT = 1;

/** A checkpoint that cannot be resumed from: written by another format, for another scene, or damaged. */
export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

export const checkpointJson = ({ state, seq, t, requests }: Resume): string => {
  const { scene, ...rest } = state;
  return JSON.stringify({ format: FORMAT, scene: scene.id, seq, t, state: rest, requests });
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The checkpoint `json` as a resume of `scene`; throws a CheckpointError saying why it cannot be. */
export const parseCheckpoint = (json: string, scene: LoadedScene): Resume => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new CheckpointError(`the checkpoint is not JSON (${(error as Error).message})`);
  }
  if (!isRecord(parsed)) throw new CheckpointError('the checkpoint is not an object');
  if (parsed.format !== FORMAT) throw new CheckpointError(`the checkpoint's format ${String(parsed.format)} is not this server's (${FORMAT})`);
  if (parsed.scene !== scene.id) throw new CheckpointError(`the checkpoint is of scene "${String(parsed.scene)}", not "${scene.id}"`);
  const { seq, t, state, requests } = parsed;
  if (!Number.isSafeInteger(seq) || typeof t !== 'number' || !isRecord(state) || !Array.isArray(requests)) throw new CheckpointError('the checkpoint lacks its seq, time, state or requests');
  if (state.seq !== seq || typeof state.phase !== 'string' || !Array.isArray(state.present) || !Number.isSafeInteger(state.snippet)) throw new CheckpointError('the checkpoint\'s state is damaged');
  // The scene file may have been edited since: its snippets and seats must still be where the state points.
  const ids = new Set(scene.participants.map((p) => p.id));
  if ((state.snippet as number) >= scene.snippets.length || !(state.present as unknown[]).every((p) => ids.has(p as string))) {
    throw new CheckpointError(`scene "${scene.id}" changed since the checkpoint: its snippets or participants are not the ones the session ran with`);
  }
  return { state: { ...(state as Omit<SessionState, 'scene'>), scene }, seq: seq as number, t, requests: requests as EngineRequest[] };
};
