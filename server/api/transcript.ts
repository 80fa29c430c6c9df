/**
 * A readable transcript of a session log: one line per utterance with its addressee, and short
 * notes for interruptions, hand raises, snippets and impromptu phases. Each reader gets what the
 * events' audiences let them see (a participant: nothing instructor-only, no other seat's notices),
 * and every text is printed clean (protocol/text.ts), old logs included.
 */
import type { Role } from '../auth/claims';
import { visibleTo, type SessionEvent } from '../engine/events';
import { printable } from '../protocol/text';
import type { LoadedScene } from '../scene/schema';

const clock = (ms: number): string => {
  const s = Math.floor(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
};

export const transcriptOf = (events: readonly SessionEvent[], scene: LoadedScene | undefined, reader: { role: Role; participant: string | null }): string => {
  const viewer = { instructor: reader.role !== 'participant', seat: reader.participant };
  const start = events.find((e) => e.type === 'session-start');
  const names = new Map((start?.type === 'session-start' ? start.participants : []).map((p) => [p.id, p.name]));
  const name = (id: string | null) => printable(id ? (names.get(id) ?? id) : 'everyone');
  const lines: string[] = [];
  if (start?.type === 'session-start') lines.push(`${printable(start.title)}${scene ? ` (${printable(scene.topic)})` : ''}`, '');
  for (const e of events) {
    if (!visibleTo(viewer, e)) continue;
    const at = `[${clock(e.t)}]`;
    switch (e.type) {
      case 'snippet-start':
        lines.push('', `— ${printable(e.title)} —`);
        break;
      case 'utterance':
        lines.push(`${at} ${name(e.speaker)}${e.addressee ? ` → ${name(e.addressee)}` : ''}: ${printable(e.text)}`);
        break;
      case 'interruption':
        lines.push(`${at}   (${name(e.by)} cuts in)`);
        break;
      case 'hand-raise':
        if (e.action !== 'lower') lines.push(`${at}   (${name(e.participant)} ${e.action === 'raise' ? 'raises a hand' : 'is called on'})`);
        break;
      case 'impromptu-start':
        lines.push(`${at}   (${name(e.participant)} steers the conversation: ${e.intent})`);
        break;
      case 'system':
        lines.push(`${at}   [${printable(e.message)}]`);
        break;
      case 'end':
        lines.push('', `— end (${e.reason}), ${e.turns} turns —`);
        break;
      default:
        break;
    }
  }
  return `${lines.join('\n')}\n`;
};
