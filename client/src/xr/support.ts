/**
 * Whether this browser can enter VR, and whether the trainee was in VR when the page reloaded.
 * Enter VR is offered only where `navigator.xr` reports immersive-vr support (a headset's browser,
 * a desktop browser with a headset plugged in: `devicechange` tells when that changes), or where
 * the emulated headset was asked for with `?xr=emulate` (emulator.ts).
 *
 * ```tsx
 * const supported = useImmersiveVr();
 * const returning = wasInVr(sessionId); // true after a reload in the headset: offer "Back to VR"
 * ```
 */
import { useEffect, useState } from 'react';
import { emulateHeadset, emulationAsked } from '../room/emulator';

export const useImmersiveVr = (): boolean => {
  const [supported, setSupported] = useState(false);
  useEffect(() => {
    let live = true;
    const check = () =>
      void Promise.resolve(navigator.xr?.isSessionSupported('immersive-vr') ?? false).then(
        (ok) => live && setSupported(ok),
        () => live && setSupported(false),
      );
    // The emulated runtime replaces navigator.xr: listen to the one that will answer.
    void (emulationAsked(location.search) ? emulateHeadset() : Promise.resolve(false)).then(() => {
      if (!live) return;
      check();
      navigator.xr?.addEventListener('devicechange', check);
    });
    return () => {
      live = false;
      navigator.xr?.removeEventListener('devicechange', check);
    };
  }, []);
  return supported;
};

const key = (session: string) => `in-vr:${session}`;
let unloading = false;
addEventListener('pagehide', () => (unloading = true));

/** Remembers that the trainee is in VR in this session, until they leave it (not when the page unloads under them). */
export const rememberInVr = (session: string, inVr: boolean): void => {
  try {
    if (inVr) sessionStorage.setItem(key(session), '1');
    else if (!unloading) sessionStorage.removeItem(key(session));
  } catch {
    // Storage refused (a private window's quota): the page then just offers Enter VR.
  }
};

export const wasInVr = (session: string): boolean => {
  try {
    return sessionStorage.getItem(key(session)) === '1';
  } catch {
    return false;
  }
};
