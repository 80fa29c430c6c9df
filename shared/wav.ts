/**
 * PCM16 mono in and out of a WAV file (RIFF, 44-byte header when written).
 *
 * ```ts
 * await writeFile('hello.wav', encodeWav(chunk.pcm, chunk.sampleRate));
 * const { pcm, sampleRate } = decodeWav(await readFile('hello.wav'));
 * ```
 */
const HEADER_BYTES = 44;

export const encodeWav = (pcm: Int16Array, sampleRate: number): Buffer => {
  const data = pcm.length * 2;
  const wav = Buffer.alloc(HEADER_BYTES + data);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + data, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * 2, 28); // byte rate
  wav.writeUInt16LE(2, 32); // block align
  wav.writeUInt16LE(16, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(data, 40);
  // WAV is little-endian whatever the host is.
  pcm.forEach((sample, i) => wav.writeInt16LE(sample, HEADER_BYTES + i * 2));
  return wav;
};

/**
 * Reads a PCM16 mono WAV file, walking its chunks (a `LIST` or `fact` chunk may come before the
 * samples). Anything else, such as stereo, float or 8-bit audio, is an error that says what it is.
 */
export const decodeWav = (buffer: Buffer): { pcm: Int16Array; sampleRate: number } => {
  if (buffer.length < 12 || buffer.toString('ascii', 0, 4) !== 'RIFF' || buffer.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a WAV file: no RIFF/WAVE header');
  }
  let sampleRate: number | undefined;
  for (let at = 12; at + 8 <= buffer.length; ) {
    const id = buffer.toString('ascii', at, at + 4);
    const size = buffer.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > buffer.length) throw new Error('WAV fmt chunk is truncated');
      const format = buffer.readUInt16LE(body);
      const channels = buffer.readUInt16LE(body + 2);
      const bits = buffer.readUInt16LE(body + 14);
      // 0xFFFE (extensible) carries plain PCM too; its sub-format is not checked.
      if ((format !== 1 && format !== 0xfffe) || channels !== 1 || bits !== 16) {
        throw new Error(`WAV is not PCM16 mono: format ${format}, ${channels} channel(s), ${bits} bits`);
      }
      sampleRate = buffer.readUInt32LE(body + 4);
    } else if (id === 'data') {
      if (sampleRate === undefined) throw new Error('WAV data chunk comes before its fmt chunk');
      // A writer that streamed the file may leave the size too large; the samples present count.
      const end = Math.min(body + size, buffer.length);
      const pcm = new Int16Array(Math.floor((end - body) / 2));
      for (let i = 0; i < pcm.length; i++) pcm[i] = buffer.readInt16LE(body + i * 2);
      return { pcm, sampleRate };
    }
    at = body + size + (size % 2); // chunks are padded to an even length
  }
  throw new Error('WAV file has no data chunk');
};
