/**
 * A Meta Quest 3 emulated by IWER on `localhost` when the browser has no immersive VR (a desktop
 * browser during development, headless Chromium in the tests). @react-three/xr's own injection
 * stands back when `navigator.xr` exists, as it does in Chromium even without a headset, so the
 * runtime is installed here, forcibly, before the XR store is made. Never on a real host name, so
 * a real headset always uses its own runtime.
 */
import { metaQuest3, XRDevice } from 'iwer';

let installed: Promise<boolean> | null = null;
let device: XRDevice | null = null;

/** The emulated headset, once installed (tests move its controllers and press their buttons). */
export const emulatedHeadset = (): XRDevice | null => device;

export const emulateHeadsetOnLocalhost = (): Promise<boolean> =>
  (installed ??= (async () => {
    if (location.hostname !== 'localhost') return false;
    const supported = await navigator.xr?.isSessionSupported('immersive-vr').catch(() => false);
    if (supported) return false;
    device = new XRDevice(metaQuest3);
    device.installRuntime({ forceInstall: true });
    return true;
  })());
