/**
 * The scenes: listed to anyone (titles and formations are not secret; the personas are, so only
 * the human seats are named), and opened, checked, saved, copied, given files and tried by the
 * author (the admin token) in the editor. Scene bodies are YAML (text/yaml, application/yaml,
 * text/plain) or JSON (application/json: the scene as the schema's input shape), at most 256 KB.
 *
 *   GET  /api/scenes                     anyone: every scene, shipped and authored, with its version (ETag)
 *   GET  /api/scenes/:id                 author: the file (YAML), or the scene as JSON (Accept: application/json); ETag
 *   POST /api/scenes/validate            author: { ok, errors: [{ path, message, line?, col? }] }, scene:check's words
 *   PUT  /api/scenes/:id                 author: save (If-Match: <ETag> to update; none to create) -> { id, etag, … };
 *                                        422 { errors }; 409 { current: { etag, yaml } } when it changed meanwhile
 *   POST /api/scenes                     author: { template: <structure>, id?, title? } -> a new authored scene
 *   POST /api/scenes/:id/duplicate       author: { id?, title? } -> an authored copy
 *   POST /api/scenes/:id/uploads         author: an image, PDF or text (multipart `file`, or the raw body) -> { file, url, … }
 *   POST /api/scenes/:id/simulate        author: { runs: 1..10, seed? } -> the simulator's summary of N seeded runs
 *   POST /api/scenes/voice-sample        author: { text, participant, participants: [{ id, voice?, persona? }] } -> audio/wav:
 *                                        the line in that participant's voice as a session gives it (voicesOf), spoken by the
 *                                        server's synthesizer; 422 for a voice it does not have; 12 a minute
 *   DELETE /api/scenes/:id               author, If-Match: an authored scene gone; 403 for a shipped one. Sessions that
 *                                        ran it keep their version of it (scene/versions.ts), and its uploads stay for them
 *
 * ```ts
 * app.route('/api/scenes', scenes({ scenes: library.list, editor: { library, authorize, uploads, synthesizer: () => espeak } }));
 * // GET /api/scenes -> {"scenes":[{"id":"team-standup","title":"…","structure":"standup","source":"shipped","etag":"\"…\"",…}]}
 * ```
 */
import { Hono, type Context } from 'hono';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { Persona, Voice, type LoadedScene } from '../../shared/scene/schema';
import { encodeWav } from '../../shared/wav';
import { driveSession } from '../conversation/drive';
import { voicesOf } from '../conversation/voices';
import { aggregateMetrics, runMetrics } from '../metrics/metrics';
import { createScriptedGenerator } from '../providers/generator/scripted';
import type { Synthesizer } from '../providers/synthesis/port';
import type { Problem } from '../scene/load';
import type { SaveOutcome, SceneBody, SceneLibrary } from '../scene/library';
import { checkUpload, type UploadStore } from '../scene/uploads';
import type { ApiEnv, Authorize } from './access';
import { firstIssue, jsonBody } from './input';
import { rateLimit } from './rate-limit';
import { problem } from './problem';

export interface ScenesOptions {
  /** The scenes listed when there is no editor (a server built without a library, as some tests build it). */
  scenes: readonly LoadedScene[];
  /** The editor's routes; without them only the list is served. */
  editor?: {
    library: SceneLibrary;
    authorize: Authorize;
    uploads: UploadStore;
    /** The rooms' synthesizer, for the inspector's play button; absent or null (SYNTHESIZER=none): 503. */
    synthesizer?: () => Synthesizer | null;
  };
}

/** The most runs one request simulates: a scripted run of a shipped scene took about 0.45 s on a shared 2-core machine. */
export const MAX_SIMULATED_RUNS = 10;

const summaryOf = (s: LoadedScene) => ({
  id: s.id,
  title: s.title,
  topic: s.topic,
  formation: s.formation,
  structure: s.structure?.form ?? null,
  humans: s.participants.filter((p) => p.kind === 'human').map((p) => p.name),
  participants: s.participants.length,
  recording: s.recording ?? false,
  duration: s.duration ?? null,
});

const yamlTypes = ['text/yaml', 'application/yaml', 'application/x-yaml', 'text/x-yaml', 'text/plain'];

/** The scene in a request's body, by its Content-Type, or the answer to give instead. */
const sceneBody = async (c: Context): Promise<{ ok: true; body: SceneBody } | { ok: false; problem: Response }> => {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const text = await c.req.text();
  if (type === 'application/json') {
    try {
      return { ok: true, body: { json: JSON.parse(text) as unknown } };
    } catch (error) {
      return { ok: false, problem: problem(c, 400, 'bad-json', `The body is not JSON (${(error as Error).message}); send the scene as JSON, or as YAML with Content-Type: text/yaml.`) };
    }
  }
  if (yamlTypes.includes(type)) return { ok: true, body: { yaml: text } };
  return { ok: false, problem: problem(c, 415, 'unsupported-type', `Send the scene as YAML (Content-Type: text/yaml) or JSON (Content-Type: application/json), not "${type || 'no type'}".`) };
};

/** The errors as the editor shows them: scene:check's path and message; the line and column in YAML only. */
const errorsOf = (problems: readonly Problem[]) =>
  problems.map((p) => ({ path: p.path, message: p.message, ...(p.line > 0 ? { line: p.line, col: p.col } : {}) }));

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A save's outcome as HTTP: 200/201 with the new version, else the refusal. */
const answer = (c: Context, outcome: SaveOutcome, createdStatus: 200 | 201): Response => {
  if (outcome.ok) {
    const { ok: _, ...saved } = outcome;
    return c.json(saved, outcome.created ? createdStatus : 200, { ETag: outcome.etag });
  }
  switch (outcome.reason) {
    case 'invalid':
      return c.json({ error: 'invalid-scene', message: `The scene has ${plural(outcome.problems.length, 'problem')}; nothing was saved.`, errors: errorsOf(outcome.problems) }, 422);
    case 'conflict':
    case 'exists':
      return c.json({ error: outcome.reason, message: outcome.message, current: outcome.current }, 409);
    case 'not-found':
      return problem(c, 404, 'not-found', outcome.message);
    case 'bad-id':
      return problem(c, 400, 'bad-id', outcome.message);
    case 'bad-template':
      return problem(c, 400, 'bad-template', outcome.message);
  }
};

const NewScene = z.object({ id: z.string().optional(), title: z.string().min(1).max(200).optional() }).strict();
const FromTemplate = NewScene.extend({ template: z.string() }).strict();
/** A voice sample's line: a sentence or two, as the inspector's play button sends it. */
export const MAX_SAMPLE_CHARS = 200;
/** Who speaks the sample, among the scene's participants as the editor holds them: voicesOf picks their voice as a session would (a default distinct in the scene where none is set). */
const VoiceSample = z
  .object({
    text: z.string().trim().min(1).max(MAX_SAMPLE_CHARS),
    participant: z.string().min(1),
    participants: z.array(z.object({ id: z.string().min(1), voice: z.unknown().optional(), persona: z.object({ speakingRate: z.unknown().optional() }).optional() })).min(1).max(100),
  })
  .strict();
/** What of a participant decides their voice, checked as the scene's schema checks it (a persona's rate defaults as in a scene). */
const VoiceFields = z.object({ voice: Voice.optional(), persona: z.object({ speakingRate: Persona.shape.speakingRate }).optional() });
const Simulate = z.object({ runs: z.number().int().min(1).max(MAX_SIMULATED_RUNS), seed: z.number().int().min(0).max(2 ** 31 - 1).optional() }).strict();

export const scenes = (options: ScenesOptions): Hono<ApiEnv> => {
  const app = new Hono<ApiEnv>();
  const { editor } = options;

  app.get('/', async (c) => {
    if (!editor) return c.json({ scenes: options.scenes.map((s) => ({ ...summaryOf(s), source: 'shipped', etag: null })) });
    const entries = await editor.library.entries();
    return c.json({ scenes: entries.map((e) => ({ ...summaryOf(e.scene), source: e.source, etag: e.etag })) });
  });
  if (!editor) return app;
  const { library, uploads } = editor;
  const author = editor.authorize(['author']);

  app.post('/validate', author, async (c) => {
    const read = await sceneBody(c);
    if (!read.ok) return read.problem;
    const problems = library.check(read.body);
    return c.json({ ok: problems.length === 0, errors: errorsOf(problems) });
  });

  // A sample takes a synthesizer's time (eSpeak's worker, or a vendor's characters): a dozen a minute is plenty to choose a voice by.
  const samples = rateLimit<ApiEnv>({ burst: 6, ratePerS: 12 / 60, message: (s) => `At most 12 voice samples a minute; play again in ${s} s.` });
  app.post('/voice-sample', author, samples, async (c) => {
    const read = await jsonBody(c, VoiceSample, `The body must be JSON: {"text": "<at most ${MAX_SAMPLE_CHARS} characters>", "participant": "<id>", "participants": [{"id", "voice"?, "persona"?: {"speakingRate"?}}, …]}.`);
    if (!read.ok) return read.problem;
    const { text, participant, participants } = read.data;
    // Each seat's voice and rate checked as the scene's schema checks them, in its words and paths.
    const seats = [];
    for (const [i, p] of participants.entries()) {
      const checked = VoiceFields.safeParse({ voice: p.voice, ...(p.persona ? { persona: { speakingRate: p.persona.speakingRate } } : {}) });
      if (!checked.success) return problem(c, 422, 'bad-voice', `participants[${i}].${firstIssue(checked.error)}`);
      seats.push({ id: p.id, ...checked.data }); // all voicesOf reads of a participant
    }
    const voice = voicesOf({ participants: seats as unknown as LoadedScene['participants'] }).get(participant);
    if (!voice) return problem(c, 422, 'bad-voice', `No participant "${participant.slice(0, 80)}" among the participants sent.`);
    const synthesizer = editor.synthesizer?.() ?? null;
    if (!synthesizer) return problem(c, 503, 'no-synthesizer', 'This server speaks no voices (SYNTHESIZER=none); the voice is heard only where a synthesizer runs.');
    const pieces: Int16Array[] = [];
    let sampleRate = 0;
    try {
      for await (const chunk of synthesizer.synthesize({ text, voice }, c.req.raw.signal)) {
        pieces.push(chunk.pcm);
        sampleRate = chunk.sampleRate;
      }
    } catch (error) {
      const message = (error as Error).message;
      // eSpeak names a voice or variant it does not have, with the variants it knows: the author's to fix.
      if (/unknown voice/i.test(message)) return problem(c, 422, 'bad-voice', `The server's synthesizer has no such voice (${message}).`);
      return problem(c, 502, 'synthesis-failed', `The voice could not be synthesized: ${message}`);
    }
    if (sampleRate === 0) return problem(c, 502, 'synthesis-failed', 'The synthesizer gave no audio for this line.');
    const pcm = new Int16Array(pieces.reduce((n, p) => n + p.length, 0));
    pieces.reduce((at, p) => (pcm.set(p, at), at + p.length), 0);
    // Which voice a default turned out to be, so the inspector can say what was heard.
    return c.body(new Uint8Array(encodeWav(pcm, sampleRate)), 200, { 'Content-Type': 'audio/wav', 'Cache-Control': 'no-store', 'X-Voice': `${voice.espeak ?? ''}; ${voice.rate ?? ''} wpm` });
  });

  app.get('/:id', author, async (c) => {
    const stored = await library.read(c.req.param('id'));
    if (!stored) return problem(c, 404, 'not-found', `No scene "${c.req.param('id').slice(0, 80)}".`);
    const headers = { ETag: stored.etag, 'X-Scene-Source': stored.source };
    if ((c.req.header('accept') ?? '').includes('application/json')) return c.json(parseDocument(stored.text).toJS() as unknown, 200, headers);
    return c.body(stored.text, 200, { ...headers, 'Content-Type': 'text/yaml; charset=utf-8' });
  });

  app.put('/:id', author, async (c) => {
    const read = await sceneBody(c);
    if (!read.ok) return read.problem;
    return answer(c, await library.save(c.req.param('id'), read.body, c.req.header('if-match')), 200);
  });

  app.delete('/:id', author, async (c) => {
    const id = c.req.param('id');
    const ifMatch = c.req.header('if-match');
    if (!ifMatch) return problem(c, 428, 'if-match-required', `Send If-Match: <the ETag you opened "${id.slice(0, 80)}" at>, so that a version you have not seen is never deleted.`);
    const stored = await library.read(id);
    if (stored?.source === 'shipped') return problem(c, 403, 'shipped-scene', `"${id}" ships with the server (scenes/${id}.yaml) and cannot be deleted here; only scenes made in the editor can.`);
    // Sessions that ran it are read with the version stored with them (scene/versions.ts): their reviews lose nothing.
    const outcome = await library.remove(id, ifMatch);
    if (outcome.ok) return c.body(null, 204);
    if (outcome.reason === 'conflict') return c.json({ error: 'conflict', message: outcome.message, current: outcome.current }, 409);
    return problem(c, outcome.reason === 'shipped' ? 403 : 404, outcome.reason === 'shipped' ? 'shipped-scene' : 'not-found', outcome.message);
  });

  app.post('/', author, async (c) => {
    const read = await jsonBody(c, FromTemplate, 'The body must be JSON: {"template": "<structure>", "id"?: "<new id>", "title"?: "<title>"}.');
    if (!read.ok) return read.problem;
    const { template, ...wanted } = read.data;
    return answer(c, await library.fromTemplate(template, wanted), 201);
  });

  app.post('/:id/duplicate', author, async (c) => {
    const empty = (c.req.header('content-length') ?? '0') === '0' && !c.req.header('content-type');
    const read = empty ? { ok: true as const, data: {} } : await jsonBody(c, NewScene, 'The body must be JSON: {"id"?: "<new id>", "title"?: "<title>"}, or empty.');
    if (!read.ok) return read.problem;
    return answer(c, await library.duplicate(c.req.param('id'), read.data), 201);
  });

  app.post('/:id/uploads', author, async (c) => {
    const id = c.req.param('id');
    if (!library.has(id)) return problem(c, 404, 'not-found', `No scene "${id.slice(0, 80)}"; save the scene before adding files to it.`);
    let bytes: Uint8Array;
    let type: string | undefined;
    let name: string | null = null;
    if ((c.req.header('content-type') ?? '').toLowerCase().startsWith('multipart/form-data')) {
      let form: FormData;
      try {
        form = await c.req.formData();
      } catch {
        return problem(c, 400, 'malformed-upload', 'The multipart body could not be read; send the file as the form field "file", or as the raw body with its Content-Type.');
      }
      const file = form.get('file');
      if (!(file instanceof File)) return problem(c, 400, 'malformed-upload', 'The form has no file field "file".');
      bytes = new Uint8Array(await file.arrayBuffer());
      type = file.type;
      name = file.name;
    } else {
      bytes = new Uint8Array(await c.req.arrayBuffer());
      type = c.req.header('content-type');
    }
    const checked = checkUpload(bytes, type);
    if (!checked.ok) return problem(c, checked.status, checked.error, checked.message);
    const stored = await uploads.save(id, bytes, checked.kind);
    if ('full' in stored) return problem(c, 409, 'too-many-uploads', `Scene "${id}" holds as many files as a scene may; nothing was stored.`);
    // A text document's words, so the editor can put them on the board as the content's sections.
    const text = checked.kind.limit === 'text' ? new TextDecoder().decode(bytes) : undefined;
    return c.json({ ...stored, name, ...(text !== undefined ? { text } : {}) }, 201);
  });

  // One simulation at a time: ten runs take a few seconds of the event loop, in short slices.
  let simulating = false;
  app.post('/:id/simulate', author, async (c) => {
    const read = await jsonBody(c, Simulate, `The body must be JSON: {"runs": 1..${MAX_SIMULATED_RUNS}, "seed"?: <whole number>}.`);
    if (!read.ok) return read.problem;
    const id = c.req.param('id');
    await library.read(id); // a file changed on disk runs as it is now
    const scene = library.scenes.get(id);
    if (!scene) return problem(c, 404, 'not-found', `No scene "${id.slice(0, 80)}".`);
    if (simulating) return problem(c, 429, 'busy', 'Another simulation is running; try again in a few seconds.', { 'Retry-After': '2' });
    simulating = true;
    try {
      const { runs, seed = 1 } = read.data;
      // The scripted generator, as `npm run simulate` uses by default: free, offline and reproducible from the seed.
      const generator = createScriptedGenerator();
      const metrics = [];
      for (let k = 1; k <= runs; k++) metrics.push(runMetrics(await driveSession(scene, { seed: seed + k - 1, generator }), scene));
      return c.json({ scene: id, generator: 'scripted', runs, seed, metrics: { runs: metrics, aggregate: aggregateMetrics(metrics) } });
    } finally {
      simulating = false;
    }
  });

  return app;
};
