/**
 * The suite's one wait: polls a condition every few milliseconds and fails, naming what it waited
 * for, once the time allowed has passed. Generous: the suite must pass on a loaded machine (two
 * copies of it on two cores); a wait returns as soon as its condition holds.
 *
 * ```ts
 * await until(() => events.some((e) => e.type === 'end'), 'the end');
 * ```
 */

/** How long a wait may take before it fails. */
export const WAIT_MS = 15_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds; fails with `what` (and `detail()`, if given) after `timeoutMs`. */
export const until = async (check: () => boolean | Promise<boolean>, what: string, timeoutMs = WAIT_MS, detail?: () => string): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? `\n${detail()}` : ''}`);
    await sleep(5);
  }
};
