import { describe, expect, it } from 'vitest';
import { longestSharedRun, openingOf, quotableRuns, screenLine, spokenLine, tokenOverlap } from '../../server/engine/novelty';
import type { GenerateRequest } from '../../server/engine/requests';
import { ai, makeScene, run, utterances } from './harness';

describe('what makes a line new', () => {
  it('measures openings, word overlap and quoted runs', () => {
    expect(openingOf('Alex, what did you make of it?')).toBe('alex what did you');
    expect(tokenOverlap('I agree with Raj.', 'I agree with Raj on that.')).toBe(1);
    expect(tokenOverlap('The cron job is old.', 'We ship in March.')).toBe(0);
    expect(longestSharedRun('She saw a lamp in the barrel room', 'I saw a lamp in the barrel room window')).toBe(7);
  });

  it('screens a line for each kind of repetition, and a beginning only for what a beginning can fail', () => {
    const context = {
      spoken: [spokenLine('ada', 'I think we should ship the roadmap in March, as planned.', true), spokenLine('ben', 'Honestly, the budget worries me more than the date.', true)],
      protectedRuns: quotableRuns(['She saw a lamp moving in the barrel-room window at about nine forty that night.']),
    };
    expect(screenLine(context, 'ben', 'I think we should ship the roadmap in March, as planned!')).toMatchObject({ ok: false, reason: 'verbatim' });
    expect(screenLine(context, 'ada', 'In March, as planned, we should ship the roadmap I think.')).toMatchObject({ ok: false, reason: 'near-duplicate' });
    // Openings are measured, not screened: people open alike ("Honestly, …"); a ban only moved stock phrases mid-line.
    expect(screenLine(context, 'cy', 'Honestly, the budget worries nobody here.').ok).toBe(true);
    expect(screenLine(context, 'cy', 'Well, I saw a lamp moving in the barrel-room window at about nine.')).toMatchObject({ ok: false, reason: 'quotes-knowledge' });
    expect(screenLine(context, 'cy', 'Well, I saw a light down in the cellar around then.').ok).toBe(true);
    // A first clause is judged by what a beginning can fail: a quotation, or the start of one's own line said again.
    expect(screenLine(context, 'cy', 'I think we should ship', true).ok).toBe(true);
    expect(screenLine(context, 'ada', 'I think we should ship the roadmap', true)).toMatchObject({ ok: false, reason: 'verbatim' });
    expect(screenLine(context, 'ben', 'I think we should ship the roadmap', true).ok).toBe(true);
    expect(screenLine(context, 'cy', 'Well, I saw a lamp moving in the barrel-room window', true)).toMatchObject({ ok: false, reason: 'quotes-knowledge' });
  });

  it('has the engine draw a repeated line again, and never keep a stopped beginning', () => {
    const scene = makeScene({ participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Ode')], turnTaking: { policy: 'round-robin' }, snippets: [{ id: 'a', initiator: 'ada', turns: 6 }] });
    // Every first draft is the same line; a resample (drawn hotter) is new.
    const respond = (r: GenerateRequest) => (r.purpose === 'utterance' && r.temperature <= 0.8 ? 'We should ship the roadmap in March as planned.' : `Fresh thought number ${r.cue.variant}.`);
    const { events } = run(scene, { respond });
    const said = utterances(events).map((u) => u.text);
    expect(said.filter((t) => t === 'We should ship the roadmap in March as planned.').length).toBeLessThanOrEqual(1);
    expect(utterances(events).some((u) => (u.resamples ?? 0) > 0)).toBe(true);
  });
});
