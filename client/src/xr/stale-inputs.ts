/**
 * Keeps the XR store's input sources to those the session has. @pmndrs/xr (6.6) adds a
 * controller's state once its button layout has loaded; a controller that disconnects before then
 * finds no state to remove, so its load is not cancelled and its state is added after it is gone.
 * When the controller comes back it gets the same id, and React draws two controllers under one key
 * ("Encountered two children with the same key"), the gone one's ray left in the room. That key
 * warning was logged in the XR emulator on a loaded machine, a controller turned off and on again;
 * this is the one way to it found in the library's code (not made to happen on demand here).
 * Whenever the store's states change, those of input sources the session no longer lists are dropped.
 *
 * ```ts
 * useEffect(() => dropStaleInputStates(store), [store]);
 * ```
 */

interface InputStates {
  session?: { inputSources: Iterable<unknown> } | null;
  inputSourceStates: readonly { inputSource: unknown }[];
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
    const kept = state.inputSourceStates.filter((s) => live.has(s.inputSource)) as S['inputSourceStates'];
    if (kept.length !== state.inputSourceStates.length) store.setState({ inputSourceStates: kept } as Partial<S>);
  });
