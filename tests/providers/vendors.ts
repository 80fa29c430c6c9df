/**
 * What the contract suites need to know of each vendor, whichever port it serves: its fake, the
 * server's environment pointed at it, the variable holding its key, what its errors say and where
 * it says how long to wait. A port's test file adds only its adapter.
 *
 * ```ts
 * generatorContract('gemini', { ...geminiVendor, vendor: (fake) => createGeminiGenerator({ apiKey: 'test-key', baseUrl: fake.baseUrl }) });
 * ```
 */
import { startFakeElevenLabs } from '../fakes/elevenlabs-server';
import { startFakeGemini } from '../fakes/gemini-server';
import type { VendorUnderTest } from './contracts';

type Vendor = Omit<VendorUnderTest<unknown>, 'vendor'>;

export const geminiVendor: Vendor = {
  start: startFakeGemini,
  env: (fake) => ({ GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: fake.baseUrl }),
  credential: 'GEMINI_API_KEY',
  says: { 429: /^HTTP 429: You exceeded your current quota/, 500: /^HTTP 500: An internal error has occurred/ },
  retryAfter: 'body',
};

export const elevenlabsVendor: Vendor = {
  start: startFakeElevenLabs,
  env: (fake) => ({ ELEVENLABS_API_KEY: 'test-key', ELEVENLABS_BASE_URL: fake.baseUrl }),
  credential: 'ELEVENLABS_API_KEY',
  says: {
    429: /^HTTP 429: Too many concurrent requests\..* \(too_many_concurrent_requests\)$/,
    500: /^HTTP 500: An internal server error occurred\. Please try again\. \(internal_server_error\)$/,
  },
  retryAfter: 'header',
};

/**
 * The OpenAI-compatible servers (chat completions, Whisper) answer errors alike; each port has its
 * own fake and variables, so only the wire is shared.
 */
export const openaiWire: Pick<Vendor, 'says' | 'retryAfter'> = {
  says: { 429: /^HTTP 429: Rate limit reached for requests\. Please try again in 1s\.$/, 500: /^HTTP 500: The server had an error while processing your request\. Sorry about that!$/ },
  retryAfter: 'header',
};
