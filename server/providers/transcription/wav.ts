/**
 * PCM16 mono to a WAV file (RIFF, 44-byte header), the container every transcription vendor
 * accepts and the one that carries the sample rate with the samples.
 *
 * ```ts
 * const file = encodeWav(request.pcm, request.sampleRate); // Uint8Array, "RIFF....WAVEfmt "
 * ```
 */
const HEADER_BYTES = 44;

export const encodeWav = (pcm: Int16Array, sampleRate: number): Uint8Array => {
  const dataBytes = pcm.length * 2;
  const bytes = new Uint8Array(HEADER_BYTES + dataBytes);
  const view = new DataView(bytes.buffer);
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) view.setUint8(offset + i, text.charCodeAt(i));
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  // WAV is little-endian whatever the host is.
  for (let i = 0; i < pcm.length; i++) view.setInt16(HEADER_BYTES + i * 2, pcm[i]!, true);
  return bytes;
};
