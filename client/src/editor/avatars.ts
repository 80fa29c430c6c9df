/**
 * The avatars this server ships (avatars/manifest.json, served beside the GLBs): the editor's
 * avatar library and the ids the live check accepts.
 *
 * ```ts
 * const avatars = await loadAvatars(); // [{ id: 'avatar-01', name: 'Marcus Reed', voices: { espeak: 'en-us+m3' }, ... }]
 * ```
 */
export interface AvatarEntry {
  id: string;
  name: string;
  presentation?: string;
  mood?: string;
  voices?: { espeak?: string; elevenlabs?: string };
}

export const loadAvatars = async (): Promise<AvatarEntry[]> => {
  const response = await fetch('/avatars/manifest.json');
  if (!response.ok) throw new Error(`The avatar list did not load (${response.status}).`);
  return ((await response.json()) as { avatars: AvatarEntry[] }).avatars;
};
