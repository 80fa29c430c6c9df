import { describe, expect, it } from 'vitest';
import type { EventDraft, SessionEvent } from '../../shared/events';
import { aggregateMetrics, runMetrics } from './metrics';
import { formatTable } from './table';
import { utteranceDraft } from '../../tests/fakes/utterances';

const log = (...drafts: EventDraft[]): SessionEvent[] => drafts.map((d, i) => ({ ...d, seq: i + 1, t: i * 1000 }) as SessionEvent);
const say = (id: string, speaker: string, text: string, extra: Parameters<typeof utteranceDraft>[3] = {}): EventDraft =>
  utteranceDraft(id, speaker, text, { snippet: 's1', ...extra });

describe('formatTable', () => {
  it('prints a header and a row per entry with the means: rates in percent, counts per run, - where undefined; answers by content beside answered-next, rephrased beside near-duplicates', () => {
    const run = runMetrics(
      log(
        say('u1', 'a', 'Bea, what do you think of the plan?', { addressee: 'b', pair: 'question', act: 'question' }),
        say('u2', 'b', 'I like the plan for the launch a lot.', { act: 'answer' }),
        say('u3', 'a', 'I like the plan for the launch a lot.'),
        // b's own u2 in other words.
        say('u4', 'b', 'The plan for the launch suits me well.'),
        { type: 'floor', speaker: 'a', reason: 'llm-selector-fallback' },
      ),
    );
    const lines = formatTable([
      { name: 'one-scene', aggregate: aggregateMetrics([run]) },
      { name: 'all', aggregate: aggregateMetrics([run, run]) },
    ]).split('\n');
    expect(lines[0]!.split(/\s+/)).toEqual(['scene', 'runs', 'turns', 'answered-next', 'answered', 'partly', 'repeat', 'near-dup', 'rephrased', 'top-opening', 'leaks', 'role-adherence', 'breakdowns', 'selector-fallbacks']);
    // Two breakdowns: u3 repeats u2 verbatim, u4 says b's own u2 again in other words.
    expect(lines[1]!.split(/\s+/)).toEqual(['one-scene', '1', '4.0', '100.0%', '100.0%', '0.0%', '25.0%', '0.0%', '25.0%', '50.0%', '-', '-', '2.0', '1.0']);
    expect(lines[2]!.split(/\s+/)[1]).toBe('2');
    expect(lines[3]).toBe('');
    // Right-aligned numbers end in the same column as their header.
    expect(lines[1]!.indexOf('100.0%') + '100.0%'.length).toBe(lines[0]!.indexOf('answered-next') + 'answered-next'.length);
  });
});
