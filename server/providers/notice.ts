/**
 * What a vendor call tells its caller besides its answer: that the fallback answered it, that it
 * stopped mid-way, that the vendor's circuit is open. A port's call takes an `onNotice`; the
 * conversation logs each notice as a `system` event of its own session.
 */
export interface Notice {
  code: string;
  message: string;
}

export type OnNotice = (notice: Notice) => void;
