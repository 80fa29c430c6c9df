/**
 * The browser's own speech recognition (the Web Speech API's `SpeechRecognition`), for a server
 * without a transcriber. Opt-in: on the device where the browser can do it (`processLocally`, when
 * `SpeechRecognition.available` says the language is installed), otherwise by whatever service the
 * browser's vendor uses, which may receive the audio. Each final result is handed on as text, to be
 * sent like typed text.
 *
 * ```ts
 * if (hasRecognition()) {
 *   optInButton.onclick = async () => {
 *     const onDevice = await recognisesOnDevice('en-US');
 *     const recognition = startRecognition({ lang: 'en-US', onDevice, onFinal: (text) => session.say(text), onError: show });
 *     stopButton.onclick = () => recognition.stop();
 *   };
 * }
 * ```
 */

type Availability = 'available' | 'downloadable' | 'downloading' | 'unavailable';

/** The part of `SpeechRecognition` used here (TypeScript's DOM types do not have it yet). */
interface Recognizer {
  lang: string;
  continuous: boolean;
  interimResults: boolean;
  processLocally?: boolean;
  onresult: ((event: { resultIndex: number; results: ArrayLike<ArrayLike<{ transcript: string }> & { isFinal: boolean }> }) => void) | null;
  onerror: ((event: { error: string; message?: string }) => void) | null;
  onend: (() => void) | null;
  start(): void;
  stop(): void;
}

interface RecognizerClass {
  new (): Recognizer;
  available?(options: { langs: string[]; processLocally: boolean }): Promise<Availability>;
}

/** Where the constructor is looked for: the window, or a test's stand-in. */
export type RecognitionScope = { SpeechRecognition?: unknown; webkitSpeechRecognition?: unknown };

const recognizerClass = (scope: RecognitionScope): RecognizerClass | null => (scope.SpeechRecognition ?? scope.webkitSpeechRecognition ?? null) as RecognizerClass | null;

/** The browser has speech recognition. */
export const hasRecognition = (scope: RecognitionScope = globalThis as RecognitionScope): boolean => recognizerClass(scope) !== null;

/**
 * Whether the browser recognises `lang` on this device, so that no audio leaves it. Ask only once
 * the person opts in: in a browser without the on-device service (headless Chromium) asking takes
 * the page's renderer down.
 */
export const recognisesOnDevice = async (lang: string, scope: RecognitionScope = globalThis as RecognitionScope): Promise<boolean> => {
  const Recognition = recognizerClass(scope);
  if (typeof Recognition?.available !== 'function') return false;
  try {
    return (await Recognition.available({ langs: [lang], processLocally: true })) === 'available';
  } catch {
    // A permissions policy may forbid asking: then nothing is known to run on the device.
    return false;
  }
};

export interface BrowserRecognition {
  stop(): void;
}

export interface RecognitionOptions {
  lang: string;
  /** Require recognition on the device (only when `recognisesOnDevice` said it can). */
  onDevice: boolean;
  /** A final result: what the person said. */
  onFinal(text: string): void;
  /** Recognition stopped for good: a reason a person can act on. */
  onError(message: string): void;
}

/** Errors after which listening again cannot help. */
const fatal: Record<string, string> = {
  'not-allowed': 'The browser did not allow speech recognition (microphone permission).',
  'service-not-allowed': 'The browser did not allow speech recognition here.',
  'audio-capture': 'No microphone was found for speech recognition.',
  network: "The browser's speech recognition service could not be reached.",
  'language-not-supported': "The browser's speech recognition does not support this language.",
};

/**
 * Listens until stopped. Browsers end continuous recognition after a silence or a while; it is
 * started again, so the toggle stays what the person set.
 */
export const startRecognition = (options: RecognitionOptions, scope: RecognitionScope = globalThis as RecognitionScope): BrowserRecognition => {
  const Recognition = recognizerClass(scope);
  if (!Recognition) throw new Error('This browser has no speech recognition.');
  const recognizer = new Recognition();
  recognizer.lang = options.lang;
  recognizer.continuous = true;
  recognizer.interimResults = false;
  if (options.onDevice) recognizer.processLocally = true;
  let stopped = false;
  recognizer.onresult = (event) => {
    for (let i = event.resultIndex; i < event.results.length; i++) {
      const result = event.results[i]!;
      const text = result[0]?.transcript.trim();
      if (result.isFinal && text) options.onFinal(text);
    }
  };
  recognizer.onerror = (event) => {
    const reason = fatal[event.error];
    if (!reason) return; // no-speech, aborted: it ends and listens again
    stopped = true;
    options.onError(reason);
  };
  recognizer.onend = () => {
    if (!stopped) recognizer.start();
  };
  recognizer.start();
  return {
    stop() {
      stopped = true;
      recognizer.stop();
    },
  };
};
