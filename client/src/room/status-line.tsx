/**
 * The HUD's one status line (state/status.ts decides what it says). `data-status` names the state
 * for styling and for tests.
 */
import { useEffect, useState } from 'react';
import type { RoomView } from '../state/room';
import { roomStatus, statusText, TRANSCRIPTION_FAILED_MS, type RoomStatus } from '../state/status';

/** The room's status now, rendered again when a failed transcription's few seconds are up. */
export const useRoomStatus = (view: RoomView): RoomStatus => {
  const [, setNow] = useState(0);
  const failedAt = view.transcriptionFailed?.at;
  useEffect(() => {
    if (failedAt === undefined) return;
    const left = failedAt + TRANSCRIPTION_FAILED_MS - performance.now();
    if (left <= 0) return;
    const timer = setTimeout(() => setNow(performance.now()), left + 20);
    return () => clearTimeout(timer);
  }, [failedAt]);
  return roomStatus(view, performance.now());
};

export const StatusLine = ({ view, status }: { view: RoomView; status: RoomStatus }) => (
  <p className={`status ${status.kind}`} role="status" data-status={status.kind}>
    {statusText(view, status)}
  </p>
);
