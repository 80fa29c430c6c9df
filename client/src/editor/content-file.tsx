/**
 * A content's file: an image (PNG, JPEG, WebP) or PDF for a poster or slides, or a text document,
 * attached through POST /api/scenes/:id/uploads and kept in the content's `file` (`<scene>/<name>`,
 * as the upload answered). An image is shown here as the board will show it; a PDF can be
 * downloaded; a text document's paragraphs also become the content's sections. The server checks
 * the bytes and says what it refused (an SVG, a file over its limit) in its own words.
 *
 * ```tsx
 * <ContentFile index={0} />
 * ```
 */
import { useState } from 'react';
import { sceneApi } from '../net/api';
import { isImageFile, useUploaded } from '../scene/uploaded';
import { useEditor } from './context';
import { withAt, type Edit } from './model';

/** What the server takes (server/scene/uploads.ts UPLOAD_LIMITS), said before the author picks a file. */
const accepted = 'image/png,image/jpeg,image/webp,application/pdf,text/plain,text/markdown,.md,.txt';
const limits = 'PNG, JPEG or WebP up to 5 MB, PDF up to 10 MB, text up to 512 KB; no SVG';

/** A text document's paragraphs, one section each. */
const paragraphsOf = (text: string): string[] =>
  text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter(Boolean);

const attachFile = (index: number, file: string, name: string, sections: string[] | undefined): Edit => ({
  name: `Attach ${name}`,
  perform: (draft) => {
    const attached = withAt(draft, ['contents', index, 'file'], file);
    return sections && sections.length > 0 ? withAt(attached, ['contents', index, 'sections'], sections) : attached;
  },
});

export const ContentFile = ({ index }: { index: number }) => {
  const { draft, edit, admin, scene } = useEditor();
  const content = draft.contents?.[index];
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const shown = useUploaded(admin, content?.file);
  if (!content) return null;
  const attach = async (file: File) => {
    setBusy(true);
    setError('');
    try {
      const upload = await sceneApi.upload(admin, scene, file);
      edit(attachFile(index, upload.file, file.name, upload.text === undefined ? undefined : paragraphsOf(upload.text)));
    } catch (e) {
      setError(`${file.name}: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="content-file" data-file={content.file ?? ''}>
      {content.file && (
        <div className="attached">
          {isImageFile(content.file) && shown.url ? (
            <img src={shown.url} alt={`${content.title}, as its board shows it`} />
          ) : shown.url ? (
            <a href={shown.url} download={`${content.id}.${content.file.split('.').pop()}`}>
              Download the {/\.pdf$/.test(content.file) ? 'PDF' : 'document'}
            </a>
          ) : (
            <small className="note">{shown.error || 'Loading the file…'}</small>
          )}
          <button onClick={() => edit({ name: 'Detach the file', perform: (d) => withAt(d, ['contents', index, 'file'], undefined) })}>Detach the file</button>
        </div>
      )}
      <label className="file">
        {content.file ? 'Replace the file' : 'Attach an image, PDF or text'}
        <input
          type="file"
          accept={accepted}
          disabled={busy}
          onChange={(e) => {
            const file = e.target.files?.[0];
            // Emptied, so choosing the same file again uploads it again.
            e.target.value = '';
            if (file) void attach(file);
          }}
        />
      </label>
      <small className="hint">{busy ? 'Uploading…' : limits}</small>
      {error && (
        <small className="problem" role="alert">
          {error}
        </small>
      )}
    </div>
  );
};
