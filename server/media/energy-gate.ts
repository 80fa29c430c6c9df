/**
 * An energy gate in front of a VAD: while a microphone hears only its room's steady noise, the
 * neural VAD is not asked. A participant listening to the personas is quiet most of a session,
 * and each frame the gate answers itself saves a Silero call.
 *
 * ```ts
 * const vad = withEnergyGate(await createSileroVad()); // or: await createGatedSileroVad(), as rooms do
 * await vad.frame(samples); // 0 while the room is quiet, else Silero's probability
 * ```
 *
 * The rules, frame by frame (energy = mean square of the frame):
 * - The noise floor follows the quietest frames: it drops to a quieter frame at once and rises
 *   slowly ({@link floorRise} of the gap a frame, about 1.5 s to follow a fan that starts), and
 *   only on frames the VAD called silence, so speech never lifts it.
 * - The gate opens on the first frame louder than `openRatio` × the floor. The VAD is then reset
 *   and primed with the `primeFrames` frames before it (its recurrent state as after silence,
 *   and the consonant the energy missed heard), then asked about this frame.
 * - It closes after `closeFrames` frames in a row that are both near the floor and called silence
 *   (p < `silentBelow`): shorter pauses inside an utterance keep the VAD running.
 * While closed it answers 0: silence, as the VAD would have (p ≈ 0.01 on room noise).
 *
 * Silero's recurrent state follows the room's noise over seconds, not frames: reset and primed
 * with 256 ms at an opening, it heard the end of a sentence over a -40 dBFS fan 64 ms later than
 * when it had heard all the fan. So an opening goes on from the state the VAD had when the gate
 * closed, and primes with a second of audio: on eSpeak speech after 8-10 s of noise or silence,
 * every start and end is then found within a frame of where Silero alone finds it
 * (media/energy-gate.test.ts).
 */
import { createSileroVad, vadFrameSamples, type SileroVadOptions, type Vad } from './vad';

export interface EnergyGateOptions {
  /** Energy above the floor, as a ratio, that opens the gate: 2 is 3 dB. */
  openRatio?: number;
  /** Frames before an opening fed to the VAD first (32: about a second). */
  primeFrames?: number;
  /** Quiet, silent frames in a row that close the gate (16: 512 ms). */
  closeFrames?: number;
  /** A probability below this is silence for the gate. */
  silentBelow?: number;
}

const defaults: Required<EnergyGateOptions> = { openRatio: 2, primeFrames: 32, closeFrames: 16, silentBelow: 0.1 };

/** The fraction of the gap by which the floor rises towards a louder silent frame. */
const floorRise = 0.02;
/** -70 dBFS: below it a frame is silence however quiet the floor (digital silence has no floor to be above). */
const leastFloor = 1e-7;

export const withEnergyGate = (vad: Vad, options: EnergyGateOptions = {}): Vad => {
  const { openRatio, primeFrames, closeFrames, silentBelow } = { ...defaults, ...options };
  /** The last `primeFrames` frames, oldest at `next` once the ring is full. */
  const ring = Array.from({ length: primeFrames }, () => new Float32Array(vadFrameSamples));
  let held = 0;
  let next = 0;
  let floor: number | null = null;
  let open = true;
  let quietRun = 0;

  const remember = (samples: Float32Array) => {
    ring[next]!.set(samples);
    next = (next + 1) % primeFrames;
    held = Math.min(held + 1, primeFrames);
  };

  const forget = () => {
    held = 0;
    next = 0;
    floor = null;
    open = true;
    quietRun = 0;
  };

  return {
    async frame(samples) {
      if (samples.length !== vadFrameSamples) return vad.frame(samples); // the VAD says what is wrong with it
      let energy = 0;
      for (let i = 0; i < samples.length; i++) energy += samples[i]! * samples[i]!;
      energy /= samples.length;
      floor ??= energy;
      if (energy < floor) floor = energy;
      const quiet = energy <= Math.max(floor, leastFloor) * openRatio;

      let p: number;
      if (open) {
        p = await vad.frame(samples);
      } else if (quiet) {
        p = 0;
      } else {
        // Opening: the VAD hears the frames it missed before this one, going on from the state it
        // had when the gate closed (a fresh state heard the end of the utterance differently).
        for (let k = 0; k < held; k++) await vad.frame(ring[(next - held + k + primeFrames) % primeFrames]!);
        open = true;
        quietRun = 0;
        p = await vad.frame(samples);
      }
      remember(samples);

      const silent = p < silentBelow;
      if (silent && energy > floor) floor += (energy - floor) * floorRise;
      if (open) {
        quietRun = quiet && silent ? quietRun + 1 : 0;
        if (quietRun >= closeFrames) open = false;
      }
      return p;
    },
    reset() {
      vad.reset();
      forget();
    },
    close: () => vad.close(),
  };
};

/** A microphone's VAD as rooms use it: Silero behind the gate. */
export const createGatedSileroVad = async (options: SileroVadOptions = {}): Promise<Vad> => withEnergyGate(await createSileroVad(options));
