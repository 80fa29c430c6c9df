/**
 * How a store answers: at once (the SQLite store, `now`) or with a promise (the Postgres store,
 * `later`), and `after`, which goes on with an answer either way: at once when it is there, so a
 * caller of the SQLite store stays synchronous (no promise, no extra turn of the event loop), or
 * once the promise resolves.
 *
 * ```ts
 * after(store.lastSeq(id), (last) => send(last)); // SQLite: sent before this line returns
 * ```
 */

/** When a store's answers come: `now` (SQLite, synchronous) or `later` (Postgres, promises). */
export type Timing = 'now' | 'later';

/** A store call's answer: the value itself (`now`), a promise of it (`later`), or either (`Timing`). */
export type Answer<T, When extends Timing> = When extends 'now' ? T : Promise<T>;

/**
 * `next(value)`: at once when the store answered at once, else once its promise resolves. A throw
 * stays a throw; a rejection, a rejection.
 */
export const after = <T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> =>
  value instanceof Promise ? value.then(next) : next(value);
