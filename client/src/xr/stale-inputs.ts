/**
 * Keeps the XR store's input sources to those the session has. @pmndrs/xr (6.6) adds a
 * controller's state once its button layout has loaded; a controller that disconnects before then
 * finds no state to remove, so its load is not cancelled and its state is added after it is gone.
 * When the controller comes back it gets the same id, and React draws two controllers under one key
 * ("Encountered two children with the same key"), the gone one's ray left in the room. The XR
 * emulator (IWER) gives the controller back as the same input source object, so the late state is
 * of an input source the session has again: a state is kept only if its input source is the
 * session's and no later state has its id (the newest is the one the library tracks). The key
 * warning was logged in the XR emulator on a loaded machine, a controller turned off and on again.
 *
 * ```ts
 * useEffect(() => dropStaleInputStates(store), [store]);
 * ```
 */

interface InputStates {
  session?: { inputSources: Iterable<unknown> } | null;
  inputSourceStates: readonly { id: string; inputSource: unknown }[];
}

interface StoreOf<S> {
  getState(): S;
  setState(partial: Partial<S>): void;
  subscribe(listener: (state: S) => void): () => void;
}

/** Subscribes to `store`: returns the unsubscribe. */
export const dropStaleInputStates = <S extends InputStates>(store: StoreOf<S>): (() => void) =>
  store.subscribe((state) => {
    if (!state.session) return;
    const live = new Set(state.session.inputSources);
    const states = state.inputSourceStates;
    const kept = states.filter((s, i) => live.has(s.inputSource) && !states.some((later, j) => j > i && later.id === s.id)) as S['inputSourceStates'];
    if (kept.length !== state.inputSourceStates.length) store.setState({ inputSourceStates: kept } as Partial<S>);
  });
