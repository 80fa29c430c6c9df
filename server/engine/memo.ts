/**
 * A bounded memo of a pure function of a string: scenes say the same texts turn after turn
 * (knowledge, names, the line just generated and then accepted), and regular expressions built
 * from a name are compiled once. The oldest entry goes when the memo is full, so memory stays flat
 * however long the server runs, and the functions memoised stay pure.
 *
 * ```ts
 * const wordsOf = memoize((text) => text.split(' '));
 * wordsOf('a b'); // computed once, then reused
 * ```
 */
export const memoize = <T>(fn: (key: string) => T, limit = 4096): ((key: string) => T) => {
  const memo = new Map<string, T>();
  return (key) => {
    const known = memo.get(key);
    if (known !== undefined || memo.has(key)) return known as T;
    const value = fn(key);
    if (memo.size >= limit) memo.delete(memo.keys().next().value!);
    memo.set(key, value);
    return value;
  };
};

/**
 * A memo of a pure function of an object that is never changed, only replaced (the session
 * state's arrays and records): the same object gives the same answer. Held weakly, so it goes
 * with the object.
 *
 * ```ts
 * const openings = memoizeByIdentity((spoken: readonly SpokenLine[]) => spoken.map((u) => u.opening));
 * ```
 */
export const memoizeByIdentity = <K extends object, T>(fn: (key: K) => T): ((key: K) => T) => {
  const memo = new WeakMap<K, T>();
  return (key) => {
    if (memo.has(key)) return memo.get(key) as T;
    const value = fn(key);
    memo.set(key, value);
    return value;
  };
};
