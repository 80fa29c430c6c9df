/**
 * The ElevenLabs SDK, imported on first use: importing it takes about 1.3 s of CPU, which every
 * server start paid (and every refused start, before it could name a bad variable) though only a
 * server configured for ElevenLabs ever calls it.
 */
type Sdk = typeof import('@elevenlabs/elevenlabs-js');

let sdk: Promise<Sdk> | undefined;

export const elevenLabsSdk = (): Promise<Sdk> => (sdk ??= import('@elevenlabs/elevenlabs-js'));
