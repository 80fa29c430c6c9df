/**
 * Utterance events for metric tests: numbered in order (seq, t, id), an AI statement in snippet
 * `main` unless told otherwise.
 *
 * ```ts
 * const line = lineMaker();
 * const log = [line('ana', 'What is the budget?', { addressee: 'ben', pair: 'question', act: 'question' }), line('ben', 'Ten.')];
 * ```
 */
import type { UtteranceEvent } from '../../shared/events';

export const lineMaker = () => {
  let count = 0;
  return (speaker: string, text: string, extra: Partial<UtteranceEvent> = {}): UtteranceEvent => ({
    type: 'utterance',
    seq: ++count,
    t: count * 1000,
    id: `u${count}`,
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
};
