/**
 * An uploaded file of a scene's contents (`Content.file`, `<scene>/<name>`) as a URL an <img> or a
 * texture can load. GET /api/uploads/… takes its token in the Authorization header (never in a
 * URL that could be copied or logged), so the bytes are fetched with it and shown through an
 * object URL, revoked when the file or the component goes.
 *
 * A page says which token its boards read files with by providing `UploadToken` (the admin's in
 * the editor; a session's in the room, which the uploads route accepts for the files its scene shows).
 *
 * ```tsx
 * const shown = useUploaded(token, content.file); // { url: 'blob:…', type: 'image/png' } once loaded
 * return shown.url ? <img src={shown.url} alt={content.title} /> : null;
 * ```
 */
import { createContext, useEffect, useState } from 'react';
import { sceneApi } from '../net/api';

export interface Uploaded {
  /** An object URL of the file's bytes; null until they are loaded, or when there is no file. */
  url: string | null;
  /** Its type as the server served it (`image/png`, `application/pdf`…). */
  type: string;
  /** The server's words when it could not be loaded. */
  error: string;
}

/** The token a page's boards read uploaded files with; none: boards draw their text only. */
export const UploadToken = createContext<string | null>(null);

const none: Uploaded = { url: null, type: '', error: '' };

/** Whether an uploaded file is an image a board or an <img> can show (by the extension the server gave it). */
export const isImageFile = (file: string | undefined): boolean => /\.(png|jpg|webp)$/.test(file ?? '');

export const useUploaded = (token: string | null, file: string | undefined): Uploaded => {
  const [shown, setShown] = useState<Uploaded>(none);
  useEffect(() => {
    if (!token || !file) {
      setShown(none);
      return;
    }
    let url: string | null = null;
    let gone = false;
    sceneApi.file(token, file).then(
      (blob) => {
        if (gone) return;
        url = URL.createObjectURL(blob);
        setShown({ url, type: blob.type, error: '' });
      },
      (e: Error) => !gone && setShown({ ...none, error: e.message }),
    );
    return () => {
      gone = true;
      if (url) URL.revokeObjectURL(url);
    };
  }, [token, file]);
  return shown;
};
