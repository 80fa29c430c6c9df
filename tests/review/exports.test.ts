/**
 * Issue 17 over real HTTP: who may read a session's report, and the exports (transcript as JSON,
 * Markdown, WebVTT and CSV; the report as JSON and CSV), each read back by a parser. No CSV or
 * WebVTT parser is installed, so the two below are written here, strictly to RFC 4180 and to the
 * W3C WebVTT syntax (file header, cue blocks, timings, voice spans, character references): they
 * reject what those specs do not allow rather than guess.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import { reportOf } from '../../server/review/report';
import { Report } from '../../shared/review/report';
import { knownLog } from '../fixtures/review-log';
import { api, startServer, type InProcessServer } from '../server/helpers';

// ---------------------------------------------------------------------------------------------
// Strict readers

/** RFC 4180 §2: records end in CRLF (the last one may not), quoted fields double their quotes, every record has the header's width. */
const parseCsv = (text: string): string[][] => {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  const fail = (why: string) => {
    throw new Error(`CSV at ${i}: ${why}`);
  };
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) fail('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += text[i++];
      }
      if (i < text.length && text[i] !== ',' && !text.startsWith('\r\n', i)) fail('text after a closing quote');
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
        if (text[i] === '"') fail('a quote inside an unquoted field');
        field += text[i++];
      }
      if (text[i] === '\n' || (text[i] === '\r' && text[i + 1] !== '\n')) fail('a line break that is not CRLF');
    }
    record.push(field);
    if (text[i] === ',') {
      i++;
      if (i === text.length) record.push('');
    } else {
      records.push(record);
      record = [];
      if (i < text.length) i += 2;
    }
  }
  const width = records[0]?.length;
  records.forEach((r, n) => {
    if (r.length !== width) throw new Error(`CSV record ${n} has ${r.length} fields, the header ${width}`);
  });
  return records;
};

interface Cue {
  id: string | null;
  start: number;
  end: number;
  voice: string | null;
  text: string;
}

const timestamp = /^(\d{2,}):([0-5]\d):([0-5]\d)\.(\d{3})$/;
const msOf = (stamp: string): number => {
  const m = timestamp.exec(stamp);
  if (!m) throw new Error(`WebVTT: bad timestamp "${stamp}"`);
  return ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + Number(m[4]);
};
const references: Record<string, string> = { amp: '&', lt: '<', gt: '>', nbsp: '\u00a0', lrm: '\u200e', rlm: '\u200f' };
/** Cue text: a voice span at most, and only the character references WebVTT defines. */
const cueText = (payload: string): { voice: string | null; text: string } => {
  const span = /^<v(?:\.[^\s.>]+)*[ \t]([^>]*)>/.exec(payload);
  const rest = (span ? payload.slice(span[0].length) : payload).replace(/<\/v>$/, '');
  if (/[<>]/.test(rest)) throw new Error(`WebVTT: markup or a raw < > in cue text "${rest}"`);
  const unescape = (s: string) =>
    s.replace(/&([^;\s&]*);?/g, (all, name: string) => {
      if (!all.endsWith(';')) throw new Error(`WebVTT: bare & in "${s}"`);
      if (name in references) return references[name]!;
      const code = /^#(\d+)$/.exec(name)?.[1] ?? (/^#x([\da-f]+)$/i.exec(name) ? String(parseInt(name.slice(2), 16)) : null);
      if (code === null) throw new Error(`WebVTT: unknown character reference &${name};`);
      return String.fromCodePoint(Number(code));
    });
  return { voice: span ? unescape(span[1]!) : null, text: unescape(rest) };
};

const parseVtt = (text: string): Cue[] => {
  if (!/^\uFEFF?WEBVTT(?:[ \t][^\n]*)?(?:\n|$)/.test(text)) throw new Error('WebVTT: no WEBVTT header');
  if (/\r/.test(text)) throw new Error('WebVTT: this writer uses LF only');
  const blocks = text.split(/\n{2,}/).slice(1).filter((b) => b.trim() !== '');
  let previousStart = -1;
  return blocks.map((block) => {
    const lines = block.split('\n').filter((line, n, all) => n < all.length - 1 || line !== '');
    let id: string | null = null;
    if (!lines[0]!.includes('-->')) id = lines.shift()!;
    const timing = /^(\S+)[ \t]+-->[ \t]+(\S+)(?:[ \t].*)?$/.exec(lines.shift() ?? '');
    if (!timing) throw new Error(`WebVTT: a cue without timings: ${block}`);
    const start = msOf(timing[1]!);
    const end = msOf(timing[2]!);
    if (end <= start) throw new Error(`WebVTT: cue ends (${end}) before it starts (${start})`);
    if (start < previousStart) throw new Error('WebVTT: cues out of order');
    previousStart = start;
    if (lines.length === 0 || lines.some((l) => l.includes('-->'))) throw new Error(`WebVTT: bad payload in ${block}`);
    return { id, start, end, ...cueText(lines.join('\n')) };
  });
};

// ---------------------------------------------------------------------------------------------

describe('the strict readers', () => {
  it('reject what RFC 4180 and WebVTT do not allow', () => {
    expect(parseCsv('a,b\r\n"x ""y""",z\r\n')).toEqual([['a', 'b'], ['x "y"', 'z']]);
    for (const bad of ['a,"b"c\r\n', 'a,b"c\r\n', 'a,b\nc,d\n', 'a,b\r\nc\r\n', 'a,"b\r\n']) expect(() => parseCsv(bad), bad).toThrow();
    const cue = '00:00:01.000 --> 00:00:02.000\n<v Ana>Hi';
    expect(parseVtt(`WEBVTT\n\n${cue}\n`)).toEqual([{ id: null, start: 1000, end: 2000, voice: 'Ana', text: 'Hi' }]);
    for (const bad of [cue, 'WEBVTT\n\n00:00:01.000 --> 00:00:01.000\nHi\n', 'WEBVTT\n\n0:1.000 --> 00:00:02.000\nHi\n', `WEBVTT\n\n${cue} & co\n`, `WEBVTT\n\n${cue} <b>\n`]) {
      expect(() => parseVtt(bad), bad).toThrow();
    }
  });
});

let server: InProcessServer;
const sign = (session: string, participant: string | null, role: 'participant' | 'observer') => server.tokens.sign({ session, participant, role }, 600_000, Date.now());
/** A past session, straight into the store: no room holds it. */
const recorded = (id: string, events: readonly SessionEvent[]) => {
  server.store.createSession({ id, scene: 'planning', seed: 7, pace: 'instant', createdAt: Date.now() });
  server.store.appendEvents(id, events);
};
const lastT = knownLog.at(-1)!.t;
/** Lines a CSV reader, a cue parser and Markdown must carry through unharmed. */
const awkward: SessionEvent[] = [
  { seq: 19, t: lastT + 1000, type: 'utterance', id: 'u8', speaker: 'cy', text: 'Fine & <dandy> --> "yes", ok\nnext line', addressee: 'ben', pair: 'none', act: 'statement', snippet: 'main', source: 'human', durationMs: 2000 },
  { seq: 20, t: lastT + 3400, type: 'utterance', id: 'u9', speaker: 'cy', text: '=HYPERLINK("x") *bold* [link](y) _x_', addressee: null, pair: 'none', act: 'statement', snippet: 'main', source: 'human', durationMs: 1000 },
];

beforeAll(async () => {
  server = await startServer();
  recorded('known', knownLog);
  recorded('other', knownLog.slice(0, 3));
  recorded('awkward', [...knownLog, ...awkward]);
});
afterAll(async () => {
  await server?.close();
});

describe('GET /api/sessions/:id/report', () => {
  it('gives a participant of the session its figures, and its timeline without the instructors\' items', async () => {
    const res = await api(server, '/api/sessions/known/report', { token: sign('known', 'cy', 'participant') });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.text();
    const report = Report.parse(JSON.parse(body));
    const full = reportOf(knownLog);
    expect(report.participants).toEqual(full.participants);
    expect(report.timeline).toEqual(full.timeline.filter((item) => !item.audience));
    expect(body).not.toContain('Press Cy on the numbers');
    expect(body).not.toContain('lunch');
  });

  it('gives an observer of the session and the author everything', async () => {
    for (const token of [sign('known', null, 'observer'), server.admin]) {
      const res = await api(server, '/api/sessions/known/report', { token });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(reportOf(knownLog));
    }
  });

  it('refuses anyone else: another session\'s participant or observer (403), no or a bad token (401), an unknown session (404)', async () => {
    expect((await api(server, '/api/sessions/known/report', { token: sign('other', 'cy', 'participant') })).status).toBe(403);
    expect((await api(server, '/api/sessions/known/report', { token: sign('other', null, 'observer') })).status).toBe(403);
    expect((await api(server, '/api/sessions/known/report', { token: null })).status).toBe(401);
    expect((await api(server, '/api/sessions/known/report', { token: 'v1.forged.token' })).status).toBe(401);
    expect((await api(server, '/api/sessions/nobody/report')).status).toBe(404);
    expect((await api(server, '/api/sessions/known/report?format=xml')).status).toBe(400);
  });

  it('follows the log: a report asked for again after new events covers them', async () => {
    recorded('growing', knownLog.slice(0, 3));
    const before = Report.parse(await (await api(server, '/api/sessions/growing/report')).json());
    expect(before).toMatchObject({ lastSeq: 3, turns: 1 });
    server.store.appendEvents('growing', knownLog.slice(3, 5));
    const after = Report.parse(await (await api(server, '/api/sessions/growing/report')).json());
    expect(after).toMatchObject({ lastSeq: 5, turns: 2 });
  });

  it('?format=json: the same report, as a file to save', async () => {
    const res = await api(server, '/api/sessions/known/report?format=json');
    expect(res.headers.get('content-type')).toMatch(/^application\/json; charset=utf-8/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="known-report.json"');
    expect(await res.json()).toEqual(reportOf(knownLog));
    expect((await api(server, '/api/sessions/known/report')).headers.get('content-disposition')).toBeNull();
  });

  it('?format=csv: every figure a row, read back by an RFC 4180 reader', async () => {
    const res = await api(server, '/api/sessions/known/report?format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="known-report.csv"');
    const [header, ...rows] = parseCsv(await res.text());
    expect(header).toEqual(['scope', 'participant', 'figure', 'value']);
    const value = (scope: string, participant: string, figure: string) => rows.find((r) => r[0] === scope && r[1] === participant && r[2] === figure)?.[3];
    expect(value('session', '', 'turns')).toBe('7');
    expect(value('session', '', 'answeredNext')).toBe('0.5');
    expect(value('session', '', 'answeredByContent')).toBe('0.5');
    expect(value('session', '', 'answers.not')).toBe('1');
    expect(value('participant', 'cy', 'answersGiven.answered')).toBe('1');
    expect(value('session', '', 'title')).toBe('Budget review');
    expect(value('participant', 'cy', 'fillers')).toBe('5');
    expect(value('participant', 'cy', 'fillers.you know')).toBe('1');
    expect(value('participant', 'ben', 'responseLatencyMs.median')).toBe('1350');
    expect(value('participant', 'ana', 'gazeAtSpeakerShare')).toBe('');
  });
});

describe('GET /api/sessions/:id/transcript?format=', () => {
  const utterances = [...knownLog, ...awkward].flatMap((e) => (e.type === 'utterance' ? [e] : []));
  const get = (format: string, token = sign('awkward', 'cy', 'participant')) => api(server, `/api/sessions/awkward/transcript${format ? `?format=${format}` : ''}`, { token });

  it('stays readable text by default', async () => {
    const res = await get('');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.headers.get('content-disposition')).toBeNull();
    expect(await res.text()).toContain('Cy Lee → Ana Ruiz: Well, it is, like');
  });

  it('vtt: a valid WebVTT file, a cue per utterance at its times, voiced by its speaker', async () => {
    const res = await get('vtt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="awkward-transcript.vtt"');
    const text = await res.text();
    expect(text.startsWith('WEBVTT\n\n')).toBe(true);
    const cues = parseVtt(text);
    expect(cues.map((c) => c.id)).toEqual(['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8', 'u9']);
    expect(cues[1]).toEqual({ id: 'u2', start: 5000, end: 11_000, voice: 'Cy Lee', text: utterances[1]!.text });
    expect(text).toContain('00:00:05.000 --> 00:00:11.000');
    // One paragraph per cue; & < > escaped and read back.
    expect(cues[7]).toMatchObject({ voice: 'Cy Lee', text: 'Fine & <dandy> --> "yes", ok next line' });
    expect(text).toContain('Fine &amp; &lt;dandy&gt; --&gt;');
  });

  it('csv: a row per utterance, read back exactly by an RFC 4180 reader; formulas defused', async () => {
    const res = await get('csv');
    expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="awkward-transcript.csv"');
    const text = await res.text();
    expect(text.endsWith('\r\n')).toBe(true);
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual(['startMs', 'endMs', 'speaker', 'name', 'addressee', 'text']);
    expect(rows).toHaveLength(9);
    expect(rows[0]).toEqual(['0', '4000', 'ana', 'Ana Ruiz', 'cy', 'Um, so what is the budget for the migration, Cy?']);
    expect(rows[7]![5]).toBe('Fine & <dandy> --> "yes", ok\nnext line');
    expect(rows[8]![5]).toBe(`'${utterances[8]!.text}`);
  });

  it('json: the participants and a line per utterance with its times', async () => {
    const res = await get('json');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="awkward-transcript.json"');
    const body = (await res.json()) as { title: string; participants: { id: string }[]; lines: { id: string; speaker: string; name: string; startMs: number; endMs: number; text: string }[] };
    expect(body.title).toBe('Budget review');
    expect(body.participants.map((p) => p.id)).toEqual(['ana', 'ben', 'cy']);
    expect(body.lines.map((l) => l.text)).toEqual(utterances.map((u) => u.text));
    expect(body.lines[3]).toMatchObject({ id: 'u4', speaker: 'cy', name: 'Cy Lee', startMs: 14_500, endMs: 18_500 });
  });

  it('markdown: headings, a line per utterance with its markup escaped; instructors\' notes only for instructors', async () => {
    const res = await get('markdown');
    expect(res.headers.get('content-type')).toMatch(/^text\/markdown; charset=utf-8/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="awkward-transcript.md"');
    const text = await res.text();
    expect(text.startsWith('# Budget review\n')).toBe(true);
    expect(text).toContain('## The budget');
    expect(text).toContain('\\[00:05\\] **Cy Lee** → Ana Ruiz: Well, it is, like, kind of tight, you know. Uh, twenty thousand.');
    expect(text).toContain('Fine \\& \\<dandy\\> --\\> "yes", ok next line');
    expect(text).toContain('=HYPERLINK("x") \\*bold\\* \\[link\\](y) \\_x\\_');
    // Removing the escapes gives back what was said.
    const said = text.split('\n').find((l) => l.includes('HYPERLINK'))!.replace(/^.*?: /, '').replace(/ +$/, '');
    expect(said.replace(/\\(.)/g, '$1')).toBe(utterances[8]!.text);
    expect(text).not.toContain('Press Cy');
    expect(await (await get('markdown', sign('awkward', null, 'observer'))).text()).toContain('Press Cy on the numbers.');
  });

  it('refuses a format it does not write', async () => {
    const res = await get('docx');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'bad-request', message: expect.stringContaining('text, json, markdown, vtt, csv') });
  });
});
