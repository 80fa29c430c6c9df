/**
 * File uploads (`multipart/form-data`) as the fake vendor servers record them: `request.body` is a
 * `MultipartForm` with each file's bytes intact (base64).
 *
 * ```ts
 * const form = fake.requests[0]!.body as MultipartForm;
 * expect(form.fields.model).toBe('whisper-1');
 * expect(fileBytes(form, 'file').subarray(0, 4).toString()).toBe('RIFF');
 * ```
 */

export interface MultipartForm {
  /** Text fields; a name sent more than once (e.g. `keyterms`) gives an array. */
  fields: Record<string, string | string[]>;
  files: Record<string, { filename?: string; contentType?: string; base64: string }>;
}

/** The bytes of an uploaded file. */
export const fileBytes = (form: MultipartForm, name: string): Buffer => {
  const file = form.files[name];
  if (!file) throw new Error(`no file "${name}" in the form (fields: ${Object.keys(form.fields).join(', ')})`);
  return Buffer.from(file.base64, 'base64');
};

/** Parses a `multipart/form-data` body (RFC 7578), or returns undefined when it is not one. */
export const parseMultipart = (raw: Buffer, contentType: string | undefined): MultipartForm | undefined => {
  const boundary = /^multipart\/form-data;.*boundary="?([^";]+)"?/i.exec(contentType ?? '')?.[1];
  if (!boundary) return undefined;
  const form: MultipartForm = { fields: {}, files: {} };
  const delimiter = Buffer.from(`--${boundary}`);
  let start = raw.indexOf(delimiter);
  while (start >= 0) {
    const partStart = start + delimiter.length;
    // "--boundary--" closes the body.
    if (raw.subarray(partStart, partStart + 2).toString() === '--') break;
    const end = raw.indexOf(delimiter, partStart);
    if (end < 0) break;
    // Each part: CRLF, headers, CRLF CRLF, content, CRLF, then the next delimiter.
    const part = raw.subarray(partStart + 2, end - 2);
    const split = part.indexOf('\r\n\r\n');
    const headers = part.subarray(0, split).toString('latin1');
    const content = part.subarray(split + 4);
    const name = /name="([^"]*)"/i.exec(headers)?.[1] ?? '';
    const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
    if (filename !== undefined) {
      const type = /^content-type:\s*(.+)$/im.exec(headers)?.[1]?.trim();
      form.files[name] = { filename, contentType: type, base64: content.toString('base64') };
    } else {
      const value = content.toString('utf8');
      const previous = form.fields[name];
      form.fields[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
    }
    start = end;
  }
  return form;
};
