/**
 * The ElevenLabs SDK, imported on first use: importing it takes about 1.3 s of CPU, which every
 * server start paid (and every refused start, before it could name a bad variable) though only a
 * server configured for ElevenLabs ever calls it.
 */
type Sdk = typeof import('@elevenlabs/elevenlabs-js');

let sdk: Promise<Sdk> | undefined;

export const elevenLabsSdk = (): Promise<Sdk> => (sdk ??= import('@elevenlabs/elevenlabs-js'));

/**
 * A client of the SDK, loading from now on (as the server starts): `client` for the calls, and
 * `ready`, a port's promise that settles once it is loaded (time limits start after it).
 */
export const elevenLabsClient = (options: { apiKey: string; baseUrl?: string }) => {
  const client = elevenLabsSdk().then(({ ElevenLabsClient }) => new ElevenLabsClient({ ...options, maxRetries: 0 }));
  return { client, ready: client.then(() => undefined, () => undefined) };
};
