/**
 * Simulated runs added to the compare page from their report files: `npm run simulate` writes a
 * `report-<k>.json` next to each run (server/cli/simulate.ts), the same report a session's review
 * gives. Each file is read here and checked against the report's schema (server/review/report.ts),
 * so a file that is not one is named with what is wrong, before anything is sent.
 *
 * ```tsx
 * <ReportFiles added={added} onChange={setAdded} />
 * ```
 */
import { Report } from '../../../shared/review/report';

export interface ReportFile {
  /** The file's name, made unique among those added ("report-1.json (2)"). */
  name: string;
  report: Report;
}

/** What the server needs of a report to compare or judge it: the figures and the utterances (the rest of the timeline can be large). */
export const slim = (report: Report): Report => ({ ...report, timeline: report.timeline.filter((item) => item.kind === 'utterance') });

/** The files as reports, and a sentence for each that is not one. */
export const readReportFiles = async (files: readonly File[], taken: readonly string[]): Promise<{ added: ReportFile[]; problems: string[] }> => {
  const added: ReportFile[] = [];
  const problems: string[] = [];
  const names = new Set(taken);
  for (const file of files) {
    let json: unknown;
    try {
      json = JSON.parse(await file.text());
    } catch {
      problems.push(`${file.name} is not JSON: choose the report-<k>.json files the simulator writes.`);
      continue;
    }
    const parsed = Report.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      problems.push(`${file.name} is not a report (${issue.path.join('.') || 'the file'}: ${issue.message}): choose the report-<k>.json files the simulator writes.`);
      continue;
    }
    let name = file.name;
    for (let n = 2; names.has(name); n++) name = `${file.name} (${n})`;
    names.add(name);
    added.push({ name, report: parsed.data });
  }
  return { added, problems };
};

/** The files added so far, and what was wrong with the last ones chosen that were not reports. */
export interface AddedFiles {
  files: ReportFile[];
  problems: string[];
}

/** The file picker and the files added so far, each removable. */
export const ReportFiles = ({ added, onChange }: { added: AddedFiles; onChange: (added: AddedFiles) => void }) => {
  const { files, problems } = added;
  return (
    <div className="report-files">
      <label>
        Add simulated runs (their <code>report-&lt;k&gt;.json</code> files):{' '}
        <input
          type="file"
          multiple
          accept=".json,application/json"
          aria-label="Report files"
          onChange={async (e) => {
            const input = e.currentTarget;
            const chosen = Array.from(input.files ?? []);
            input.value = '';
            const read = await readReportFiles(chosen, files.map((f) => f.name));
            onChange({ files: read.added.length ? [...files, ...read.added] : files, problems: read.problems });
          }}
        />
      </label>
      {problems.length > 0 && (
        <ul className="problems" role="alert" data-file-problems>
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {files.length > 0 && (
        <ul className="files">
          {files.map((f) => (
            <li key={f.name} data-file={f.name}>
              <code>{f.name}</code> · {f.report.title ?? f.report.scene ?? 'no scene'} · {f.report.turns} turns{' '}
              <button type="button" className="link" onClick={() => onChange({ files: files.filter((g) => g !== f), problems: [] })}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
};
