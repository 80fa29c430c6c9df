/**
 * A stand-in for the browser's WebSocket in the connection tests: it records each socket the
 * client opens; the test accepts or drops them as a server would.
 *
 * ```ts
 * fakeSocketsFor({ protocol: 'http:', host: 'localhost' }); // in a describe block
 * connect(...);
 * FakeSocket.opened[0]!.drop(4408, 'too slow: rejoin with ?after=');
 * ```
 */
import { afterEach, beforeEach, vi } from 'vitest';

export class FakeSocket {
  static OPEN = 1;
  static opened: FakeSocket[] = [];
  readyState = 0;
  binaryType = 'blob';
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.opened.push(this);
  }
  send() {}
  close() {}
  /** The server accepts the connection. */
  accept() {
    this.readyState = 1;
    this.onopen?.();
  }
  /** The server closes the connection. */
  drop(code: number, reason = '') {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
}

/** In each test of the describe block it is called in: the fake for WebSocket, fake timers, and the page at `location`. */
export const fakeSocketsFor = (location: { protocol: string; host: string }) => {
  beforeEach(() => {
    FakeSocket.opened = [];
    vi.useFakeTimers();
    vi.stubGlobal('WebSocket', FakeSocket);
    vi.stubGlobal('location', location);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });
};
