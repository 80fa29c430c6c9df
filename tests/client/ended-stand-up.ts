/**
 * The review pages' browser suite: one server whose simulated stand-up (instant pace, text only,
 * stand-ins in every human seat) has run to its end before the first test, so the review and the
 * debrief tests read a finished session as its trainee and its instructor would.
 *
 * ```ts
 * const standUp = endedStandUpSuite();
 * const report = await standUp.reportOf(standUp.ran.id, standUp.ran.tokens.observer!);
 * ```
 */
import type { Page } from 'playwright-core';
import type { Report } from '../../shared/review/report';
import type { Created } from '../server/helpers';
import { browserSuite, endedStandUp, reportOf } from './pages';

export const endedStandUpSuite = () => {
  let ran: Created | undefined;
  const suite = browserSuite({
    // Text only: at instant pace a session then runs to its end in a second or two (no speech to synthesise).
    env: { SYNTHESIZER: 'none' },
    async setup(server) {
      ran = await endedStandUp(server);
    },
  });
  return {
    suite,
    /** The ended stand-up: its id and a token per seat and for the observer. */
    get ran(): Created {
      if (!ran) throw new Error('the stand-up has not run yet (read it inside a test)');
      return ran;
    },
    newPage: (): Promise<Page> => suite.open(),
    reportOf: (id: string, token: string): Promise<Report> => reportOf(suite.server, id, token),
  };
};

/** A human seat of a session (any token's name but the observer's). */
export const humanSeat = (created: Created): string => Object.keys(created.tokens).find((who) => who !== 'observer')!;
