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
 * A memo of a pure function of an object that lives long and is never changed (a scene's roster,
 * the participant list it gives every cue): the same object gives the same answer. Held weakly,
 * so it goes with the object. For objects a turn replaces, `rememberLast` keeps less.
 *
 * ```ts
 * const participantsOf = memoizeByIdentity((roster: Roster) => roster.scene.participants.map((p) => p.name));
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

/**
 * The last answer of a pure function whose arguments are replaced, never changed (a turn's
 * history, its sub-topics): asked again with the same arguments, as by every prompt of one turn,
 * it is not recomputed. Only the last answer is kept, so nothing outlives the turns that read it
 * (a memo of every history would keep each turn's answers for as long as its state lives).
 */
export const rememberLast = <A extends readonly unknown[], T>(fn: (...args: A) => T): ((...args: A) => T) => {
  let last: { args: A; value: T } | undefined;
  // Asked by every prompt of every turn: compared in a plain loop, without a callback per call.
  const same = (before: A, args: A): boolean => {
    for (let i = 0; i < before.length; i++) if (before[i] !== args[i]) return false;
    return true;
  };
  return (...args) => {
    if (last && same(last.args, args)) return last.value;
    const value = fn(...args);
    last = { args, value };
    return value;
  };
};
