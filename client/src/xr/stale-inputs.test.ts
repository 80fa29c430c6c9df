import { describe, expect, it } from 'vitest';
import { dropStaleInputStates } from './stale-inputs';

type State = { session: { inputSources: object[] } | null; inputSourceStates: { id: string; inputSource: object }[] };

/** A store as zustand's: setState merges and tells each listener. */
const storeOf = (initial: State) => {
  let state = initial;
  const listeners = new Set<(s: State) => void>();
  return {
    getState: () => state,
    setState(partial: Partial<State>) {
      state = { ...state, ...partial };
      for (const l of listeners) l(state);
    },
    subscribe(listener: (s: State) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
};

describe("the XR store's input sources", () => {
  it('drops the state of a controller the session no longer has, added after it left, so its return is drawn once', () => {
    const [left, gone, back] = [{ hand: 'left' }, { hand: 'right' }, { hand: 'right' }];
    const session = { inputSources: [left] };
    const store = storeOf({ session, inputSourceStates: [{ id: '0', inputSource: left }] });
    const stop = dropStaleInputStates(store);
    // The right controller's layout arrives after it disconnected: its state is added anyway.
    store.setState({ inputSourceStates: [...store.getState().inputSourceStates, { id: '1', inputSource: gone }] });
    expect(store.getState().inputSourceStates.map((s) => s.id)).toEqual(['0']);
    // It comes back (a new input source, the same id): one state for it.
    session.inputSources.push(back);
    store.setState({ inputSourceStates: [...store.getState().inputSourceStates, { id: '1', inputSource: back }] });
    expect(store.getState().inputSourceStates).toEqual([
      { id: '0', inputSource: left },
      { id: '1', inputSource: back },
    ]);
    stop();
  });

  it('keeps one state of a controller given back as the same input source (the emulator does), the newest', () => {
    const [left, right] = [{ hand: 'left' }, { hand: 'right' }];
    const session = { inputSources: [left, right] };
    const store = storeOf({ session, inputSourceStates: [{ id: '0', inputSource: left }] });
    const stop = dropStaleInputStates(store);
    // Its layout was still loading when it went and came back: two states, one id, one input source.
    const late = { id: '1', inputSource: right };
    const newest = { id: '1', inputSource: right };
    store.setState({ inputSourceStates: [...store.getState().inputSourceStates, late] });
    store.setState({ inputSourceStates: [...store.getState().inputSourceStates, newest] });
    expect(store.getState().inputSourceStates).toHaveLength(2);
    expect(store.getState().inputSourceStates[1]).toBe(newest);
    stop();
  });

  it('leaves the states alone outside a session', () => {
    const source = {};
    const store = storeOf({ session: null, inputSourceStates: [] });
    const stop = dropStaleInputStates(store);
    store.setState({ inputSourceStates: [{ id: '0', inputSource: source }] });
    expect(store.getState().inputSourceStates).toHaveLength(1);
    stop();
  });
});
