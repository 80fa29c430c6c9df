/**
 * A Meta Quest 3 emulated by IWER, only when asked for: `?xr=emulate` in the page's address (to
 * try the headset room without a headset), or a test through its handle. Never by default, on
 * localhost or anywhere: a desktop browser without a headset must not be offered Enter VR.
 * @react-three/xr's own injection stands back when `navigator.xr` exists, as it does in Chromium
 * even without a headset, so the runtime is installed here, forcibly, before the XR store is made.
 *
 * ```ts
 * if (emulationAsked(location.search)) await emulateHeadset(); // navigator.xr is now a Quest 3
 * emulatedHeadset()?.controllers.right?.updateButtonValue('trigger', 1);
 * ```
 */
import { metaQuest3, XRDevice } from 'iwer';

let installed: Promise<boolean> | null = null;
let device: XRDevice | null = null;

/** Whether the address asks for the emulated headset (`?xr=emulate`). */
export const emulationAsked = (search: string): boolean => new URLSearchParams(search).get('xr') === 'emulate';

/** The emulated headset, once installed (tests move its controllers and hands and press their buttons). */
export const emulatedHeadset = (): XRDevice | null => device;

/**
 * Installs the emulated headset, once; false when the browser has immersive VR of its own (a real
 * headset keeps its own runtime).
 */
export const emulateHeadset = (): Promise<boolean> =>
  (installed ??= (async () => {
    const supported = await navigator.xr?.isSessionSupported('immersive-vr').catch(() => false);
    if (supported) return false;
    device = new XRDevice(metaQuest3);
    device.installRuntime({ forceInstall: true });
    return true;
  })());
