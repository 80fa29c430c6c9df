/**
 * Utterance events for metric tests: numbered in order (seq, t, id), an AI statement in snippet
 * `main` unless told otherwise; or drafts, which a test's log numbers.
 *
 * ```ts
 * const line = lineMaker();
 * const log = [line('ana', 'What is the budget?', { addressee: 'ben', pair: 'question', act: 'question' }), line('ben', 'Ten.')];
 * ```
 */
import type { EventDraft, UtteranceEvent } from '../../shared/events';

type UtteranceDraft = Extract<EventDraft, { type: 'utterance' }>;

/** An utterance not yet numbered (no seq, no t): an AI statement in snippet `main` unless told otherwise. */
export const utteranceDraft = (id: string, speaker: string, text: string, extra: Partial<UtteranceDraft> = {}): UtteranceDraft => ({
  type: 'utterance',
  id,
  speaker,
  text,
  addressee: null,
  pair: 'none',
  act: 'statement',
  snippet: 'main',
  source: 'ai',
  durationMs: 0,
  ...extra,
});

export const lineMaker = () => {
  let count = 0;
  return (speaker: string, text: string, extra: Partial<UtteranceEvent> = {}): UtteranceEvent => {
    count += 1;
    return { ...utteranceDraft(`u${count}`, speaker, text), seq: count, t: count * 1000, ...extra };
  };
};
