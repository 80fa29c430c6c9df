import { describe, expect, it } from 'vitest';
import { encodeWav } from './wav';

describe('encodeWav', () => {
  it('writes a 44-byte PCM16 mono RIFF header carrying the sample rate, then the samples little-endian', () => {
    const pcm = Int16Array.from([0, 1, -1, 32767, -32768]);
    const wav = Buffer.from(encodeWav(pcm, 16_000));
    expect(wav.length).toBe(44 + 10);
    expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(wav.readUInt32LE(4)).toBe(36 + 10);
    expect(wav.subarray(8, 16).toString('latin1')).toBe('WAVEfmt ');
    expect([wav.readUInt32LE(16), wav.readUInt16LE(20), wav.readUInt16LE(22)]).toEqual([16, 1, 1]);
    expect([wav.readUInt32LE(24), wav.readUInt32LE(28), wav.readUInt16LE(32), wav.readUInt16LE(34)]).toEqual([16_000, 32_000, 2, 16]);
    expect(wav.subarray(36, 40).toString('latin1')).toBe('data');
    expect(wav.readUInt32LE(40)).toBe(10);
    expect(Array.from({ length: 5 }, (_, i) => wav.readInt16LE(44 + i * 2))).toEqual([0, 1, -1, 32767, -32768]);
  });

  it('encodes an empty utterance as a header alone', () => {
    expect(encodeWav(new Int16Array(0), 48_000).length).toBe(44);
  });
});
