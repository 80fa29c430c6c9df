/**
 * One line per local model on its way or failed, under the sessions page's title: what the server's
 * /api/health says of it (downloading, 41% of 1.1 GB; whisper.cpp compiling for this CPU, or why it
 * could not be) and what stands in meanwhile. Nothing while every model is ready, or none is used.
 *
 * ```tsx
 * <ModelsNotice />
 * ```
 */
import { useEffect, useState } from 'react';
import { buildLine, modelBusy, modelKinds, modelLine, type ModelKind, type ModelsHealth } from '../../../shared/models';
import { api } from '../net/api';

/** Polled often while a model downloads, rarely otherwise (a server restarted with GENERATOR=local shows up). */
const BUSY_MS = 2000;
const IDLE_MS = 15_000;

const meanwhile: Record<ModelKind, string> = {
  llm: 'personas speak from the script until it is ready',
  asr: 'participants type until it is ready',
};

export const ModelsNotice = () => {
  const [models, setModels] = useState<ModelsHealth>({});
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout>;
    let stopped = false;
    const poll = async () => {
      let next: ModelsHealth = {};
      try {
        next = (await api.health()).models ?? {};
      } catch {
        // The page says what the session calls fail with; a missed poll just waits for the next.
      }
      if (stopped) return;
      setModels(next);
      const busy = Object.values(next).some(modelBusy) || next.asr?.build?.state === 'building';
      timer = setTimeout(() => void poll(), busy ? BUSY_MS : IDLE_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  const shown = modelKinds.flatMap((kind) => {
    const status = models[kind];
    return status && (modelBusy(status) || status.state === 'failed') ? [[kind, status] as const] : [];
  });
  // The build is news while it runs or once it failed; a ready one goes unsaid, like a ready model.
  const build = models.asr?.build;
  const building = build && build.state !== 'ready' ? build : null;
  if (shown.length === 0 && !building) return null;
  return (
    <>
      {shown.map(([kind, status]) => (
        <p key={kind} className="models" role="status" data-model={kind} data-state={status.state}>
          {modelLine(kind, status)}; {meanwhile[kind]}.
        </p>
      ))}
      {building && (
        <p className="models" role="status" data-model="asr-build" data-state={building.state}>
          {buildLine(building)}{building.state === 'building' ? `; ${meanwhile.asr}` : ''}.
        </p>
      )}
    </>
  );
};
