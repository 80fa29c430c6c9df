/**
 * The scene format: one zod schema, the single source for the YAML files in `scenes/`,
 * the engine, the server, the client and the generated JSON Schema (`scenes/scene.schema.json`).
 * Its vocabularies (formations, participant and content kinds, intents…) are the ones the event
 * log and the realtime protocol carry too, so they are exported for them.
 *
 * The model follows DialogLab §4.1 and §5.1: a scene has a topic, a formation, shared contents,
 * participants (AI personas or humans), parties with speaking modes, a turn-taking policy and
 * an ordered list of snippets. Cross-references (party members, initiators, next snippets, the
 * moderator, the structure's and snippets' roles, the chair) are checked in `load.ts`, where their
 * file positions are known.
 */
import { z } from 'zod';

const id = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/, 'expected an id: lower-case letters, digits and dashes, starting with a letter');
const probability = z.number().min(0, 'expected a probability between 0 and 1').max(1, 'expected a probability between 0 and 1');
const positiveInt = z.number().int('expected a positive integer').positive('expected a positive integer');

export const formations = ['circle', 'table', 'panel', 'audience', 'poster', 'u-shape'] as const;
export const participantKinds = ['ai', 'human'] as const;
/** What the shared board shows: a slide deck, a poster or a document. */
export const contentKinds = ['slides', 'poster', 'document'] as const;
export const speakingModes = ['all', 'representative', 'subset', 'random'] as const;
/**
 * How the next speaker is chosen when nobody is obliged to answer. `equal` and `self-selection`
 * are MMAgents' baselines (§4.1): a random order reshuffled every round, and bids only; both leave
 * designation off, so the papers' comparison can be rerun.
 */
export const policies = ['round-robin', 'random', 'llm-selector', 'party', 'cssn-or-ss', 'equal', 'self-selection'] as const;
export const partyModes = ['free', 'round-robin', 'moderated'] as const;
export const patterns = ['agree', 'disagree', 'neutral'] as const;
export const humanAgentModes = ['reactive', 'human-control', 'autonomous'] as const;
/** DialogLab §5.2.2: the four deviations a simulated human can bring into the conversation. */
export const intents = ['drift', 'extend', 'question', 'emotional'] as const;
/** What a persona may say of a piece of its private knowledge: nothing, only in answer to a direct question about it, or whenever it bears on the talk. */
export const reveals = ['never', 'when-asked', 'freely'] as const;
/**
 * The shape of the meeting (who asks whom): an interview (the panel asks the candidate), a Q&A (the
 * chair assigns the floor, the audience asks the presenter), a stand-up (each reports in turn), a
 * critique (the presenter presents, the reviewers critique), and the rest.
 */
export const structureForms = ['interview', 'qa', 'standup', 'critique', 'review', 'retro', 'poster', 'investigation', 'social', 'discussion'] as const;
/** MUCA §3.2.3: the facilitator's dialog acts, in their default priority order. */
export const facilitatorActs = ['direct-reply', 'encourage', 'summarize', 'transition', 'resolve-conflict', 'chime-in'] as const;

export const Voice = z
  .object({
    espeak: z.string().optional().describe('eSpeak NG voice, e.g. "en-us+f3"'),
    elevenlabs: z.string().optional().describe('ElevenLabs voice id'),
    pitch: z.number().min(0).max(99).optional(),
    rate: z.number().int().min(80).max(450).optional().describe('words per minute'),
  })
  .strict();

/** A piece of private knowledge with its own rule, where it differs from the persona's `reveal`. */
export const KnowledgeItem = z
  .object({
    text: z.string().min(1, 'private knowledge needs a text'),
    reveal: z.enum(reveals).describe('never, when-asked (to a direct question about it, in the persona\'s own words) or freely'),
  })
  .strict();

export const Persona = z
  .object({
    backstory: z.string().min(1, 'a persona needs a backstory'),
    goals: z.array(z.string()).default([]),
    privateKnowledge: z
      .array(z.union([z.string().min(1, 'private knowledge needs a text'), KnowledgeItem]))
      .default([])
      .describe('facts only this participant knows; never shown to others. A string follows `reveal`; {text, reveal} sets its own rule'),
    reveal: z
      .enum(reveals)
      .default('never')
      .describe('what the persona may say of its private knowledge: never (default), when-asked, or freely; always in its own words'),
    questions: z.array(z.string().min(1)).default([]).describe('an authored question bank: questions this persona may ask, in its own voice'),
    points: z.array(z.string().min(1)).default([]).describe('talking points: things this persona wants to say when it has the floor'),
    mood: z.string().default('neutral'),
    traits: z.array(z.string()).default([]),
    /** Speaking rate in words per minute; speaking time is estimated from it until real audio exists. */
    speakingRate: z.number().int().min(80).max(300).default(150),
    bargeIn: z
      .enum(['polite', 'persistent'])
      .default('polite')
      .describe('when a human starts speaking over this persona: polite stops at once, persistent finishes its clause'),
  })
  .strict();

/** MUCA §3.3.1: log-normal utterance length, clipped to [min, max] words. */
export const UtteranceLength = z
  .object({ min: positiveInt.default(3), avg: positiveInt.default(10), max: positiveInt.default(24) })
  .strict()
  .refine((l) => l.min <= l.avg && l.avg <= l.max, 'expected min <= avg <= max');

/** How an absent human is simulated (DialogLab §5.2.2, MUCA §3.3). */
export const SimulatedHuman = z
  .object({
    mode: z
      .enum(humanAgentModes)
      .default('reactive')
      .describe('reactive: speaks only when addressed; human-control: proposes deviations a person approves; autonomous: deviates on its own'),
    derailProbability: probability.default(0.1).describe('chance per turn of proposing a deviation (human-control, autonomous)'),
    intents: z.array(z.enum(intents)).default([...intents]),
    speakingRoles: z.array(z.string()).default([]),
    traits: z.array(z.string()).default([]),
    utteranceLength: UtteranceLength.optional(),
    impromptuTurns: z
      .object({ min: positiveInt.default(2), max: positiveInt.default(4) })
      .strict()
      .refine((r) => r.min <= r.max, 'expected min <= max')
      .default({ min: 2, max: 4 }),
  })
  .strict();

/** What a human seat is told (the brief): who you are and what you want, in the second person. */
export const Brief = z
  .object({
    background: z.string().default('').describe('who you are, as the person in this seat is told it ("You have six years as a product manager...")'),
    goals: z.array(z.string().min(1)).default([]).describe('what you want from the conversation, in the second person; each refers only to what the brief and the scene tell you'),
  })
  .strict();

export const Participant = z
  .object({
    id,
    kind: z.enum(participantKinds).describe('ai: a persona driven by a generator; human: a real person, simulated when absent'),
    name: z.string().min(1),
    shortName: z.string().optional().describe('what others call them; defaults to the first word of name'),
    role: z.string().optional().describe('their role in the room, e.g. "interviewer"'),
    persona: Persona.optional().describe('required for AI participants; optional for humans'),
    voice: Voice.optional(),
    avatar: z.string().optional().describe('avatar id from avatars/manifest.json'),
    simulated: SimulatedHuman.optional().describe('for humans: how to simulate them when absent'),
    brief: Brief.optional().describe("for humans: what the person in this seat is told before joining, in the second person; without it the brief shows the persona's goals"),
    expectedShare: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe("the share of the talk (0..1) the debrief expects of them; by default it follows from the scene's roles (review/expectation.ts)"),
  })
  .strict();

/**
 * An uploaded file as the upload answered it, `<scene>/<name>`: the scene it was uploaded to and the
 * random name the server gave it. It is served at /api/uploads/<scene>/<name> and nowhere else.
 */
export const UPLOAD_FILE = /^[a-z][a-z0-9-]{0,63}\/[A-Za-z0-9_-]{24}\.(png|jpg|webp|pdf|md|txt)$/;

export const Content = z
  .object({
    id,
    kind: z.enum(contentKinds),
    title: z.string(),
    owner: z.string().default('public').describe('a party id, or "public"'),
    summary: z.string().default(''),
    sections: z.array(z.string()).default([]),
    file: z
      .string()
      .regex(UPLOAD_FILE, 'expected an uploaded file as the upload answered it: "<scene>/<name>", e.g. "my-scene/3q2-…Xw.png"')
      .optional()
      .describe('an uploaded image (PNG, JPEG, WebP), PDF or text document shown on the board: "<scene>/<name>", as POST /api/scenes/<scene>/uploads answered'),
  })
  .strict();

export const Party = z
  .object({
    id,
    name: z.string().optional(),
    role: z.string().default(''),
    members: z.array(z.string()).min(1, 'a party needs at least one member'),
    speakingMode: z.enum(speakingModes).default('all').describe('who speaks when the party has the floor'),
    representative: z.string().optional().describe('required when speakingMode is representative'),
    subset: z.array(z.string()).optional().describe('required when speakingMode is subset'),
  })
  .strict();

export const Facilitator = z
  .object({
    participant: z.string(),
    acts: z.array(z.enum(facilitatorActs)).default(['direct-reply', 'encourage', 'summarize', 'transition', 'resolve-conflict']),
    /** Multiplies MUCA's warm-up and cool-down turn counts (1: the paper's); a short meeting may scale them down. */
    pace: z.number().positive().default(1),
    /** N_exe: utterances between the arbitrator's runs (MUCA Algorithm 1); default 3, or 0.75 · Np in a larger group. */
    every: positiveInt.optional(),
  })
  .strict();

export const TurnTaking = z
  .object({
    policy: z.enum(policies).default('cssn-or-ss').describe('how the next speaker is chosen'),
    partyMode: z.enum(partyModes).optional().describe('required when policy is party'),
    moderator: z.string().optional().describe('required when partyMode is moderated'),
    facilitator: Facilitator.optional(),
    historyWindow: positiveInt.default(5).describe('MMAgents §3.1.2: shared history turns in each prompt'),
    approval: z
      .object({
        timeoutS: z.number().positive().default(60).describe('how long a human-control proposal waits for the instructor'),
        onTimeout: z.enum(['approve', 'skip', 'regenerate']).default('skip').describe('what happens to a proposal nobody decided in time'),
      })
      .strict()
      .default({ timeoutS: 60, onTimeout: 'skip' }),
    maxTurns: positiveInt.default(60).describe('hard cap on turns per session'),
  })
  .strict();

export const InterruptionRule = z
  .object({
    from: z.string(),
    to: z.string(),
    probability,
    vibe: z.string().default('neutral').describe('the tone of the interruption'),
  })
  .strict();

export const BackchannelRule = z
  .object({
    from: z.string().default('*').describe('a participant id, or "*" for every listener'),
    probability,
    kind: z.enum(['verbal', 'nod', 'either']).default('either'),
    cues: z.array(z.string()).default([]).describe('what the listener says, for verbal backchannels (default: mm-hmm, right, I see...)'),
    triggers: z
      .array(z.string())
      .default([])
      .describe('words in the speaker\'s utterance that invite this backchannel; when set, the rule fires only on them'),
  })
  .strict();

export const ScriptedLine = z
  .object({ speaker: z.string(), text: z.string().min(1), to: z.string().optional() })
  .strict();

/** Who asks whom: participant ids, party ids, or "*" for everyone. */
export const Roles = z
  .object({
    askers: z.array(z.string()).min(1, 'name at least one asker').describe('participant or party ids (or "*") whose questions go to the answerers'),
    answerers: z.array(z.string()).min(1, 'name at least one answerer').describe('participant or party ids (or "*") who are asked'),
  })
  .strict();

export const Structure = z
  .object({
    form: z.enum(structureForms).describe('the shape of the meeting'),
    askers: Roles.shape.askers,
    answerers: Roles.shape.answerers,
    chair: z.string().optional().describe('a participant who assigns the floor: invites each next speaker by name'),
    followUps: z.boolean().default(true).describe('an asker may follow up on the answer to their own question'),
  })
  .strict();

export const Snippet = z
  .object({
    id,
    title: z.string().optional(),
    goal: z.string().default('').describe('what this phase of the conversation is for'),
    subtopics: z.array(z.string().min(1)).default([]).describe("MUCA's agenda: the sub-topics this phase should cover, in order; the facilitator moves the group from one to the next"),
    participants: z.array(z.string()).optional().describe('defaults to everyone'),
    initiator: z.string().describe('the participant who opens the snippet'),
    turns: positiveInt.describe('turn budget'),
    pattern: z.enum(patterns).default('neutral').describe('the overall tone: agree, disagree or neutral'),
    interruptions: z.array(InterruptionRule).default([]),
    backchannels: z.array(BackchannelRule).default([]),
    lines: z.array(ScriptedLine).default([]).describe('scripted opening lines, spoken in order'),
    roles: Roles.optional().describe("who asks whom in this snippet, instead of the scene's structure"),
    next: z.string().nullable().optional().describe('the snippet that follows; defaults to the next in the list, null ends'),
    // The scene editor's own, kept with the scene so a flow reopens as it was drawn; sessions never read it.
    editor: z
      .object({ position: z.object({ x: z.number().finite(), y: z.number().finite() }).strict() })
      .strict()
      .optional()
      .describe("the scene editor's: where this snippet's node sits in the flow graph; sessions ignore it"),
  })
  .strict();

export const Scene = z
  .object({
    title: z.string().min(1),
    topic: z.string().min(1),
    context: z.string().default('').describe('the situation, as told to every persona'),
    formation: z.enum(formations).describe('how the seats are arranged'),
    contents: z.array(Content).default([]),
    participants: z.array(Participant).min(2, 'a scene needs at least two participants'),
    parties: z.array(Party).default([]),
    structure: Structure.optional().describe('who asks whom: the roles that drive the conversation'),
    turnTaking: TurnTaking.default({ policy: 'cssn-or-ss', historyWindow: 5, maxTurns: 60, approval: { timeoutS: 60, onTimeout: 'skip' } }),
    snippets: z.array(Snippet).min(1, 'a scene needs at least one snippet'),
    closing: z
      .object({ speaker: z.string(), text: z.string().min(1) })
      .strict()
      .optional()
      .describe("the line that closes every session, once its last question is answered; without it the host says a goodbye of their own"),
    duration: z
      .number()
      .positive()
      .optional()
      .describe('how long a session runs at real-time pace, in minutes: what the scene and its lines promise, and what its snippets fill'),
    recording: z
      .boolean()
      .optional()
      .describe("record participants' microphones (they are told before they join); default false, and a session may be created with its own choice. Personas' speech is always recorded"),
  })
  .strict();

export type Scene = z.infer<typeof Scene>;
export type SceneInput = z.input<typeof Scene>;
export type Participant = z.infer<typeof Participant>;
export type Persona = z.infer<typeof Persona>;
export type Party = z.infer<typeof Party>;
export type Snippet = z.infer<typeof Snippet>;
export type Brief = z.infer<typeof Brief>;
export type TurnTaking = z.infer<typeof TurnTaking>;
export type SimulatedHuman = z.infer<typeof SimulatedHuman>;
export type InterruptionRule = z.infer<typeof InterruptionRule>;
export type BackchannelRule = z.infer<typeof BackchannelRule>;
export type Formation = (typeof formations)[number];
export type ParticipantKind = (typeof participantKinds)[number];
export type ContentKind = (typeof contentKinds)[number];
export type Policy = (typeof policies)[number];
export type PartyMode = (typeof partyModes)[number];
export type Pattern = (typeof patterns)[number];
export type Intent = (typeof intents)[number];
export type FacilitatorAct = (typeof facilitatorActs)[number];
export type Reveal = (typeof reveals)[number];
export type StructureForm = (typeof structureForms)[number];
export type Structure = z.infer<typeof Structure>;
export type Roles = z.infer<typeof Roles>;

/** A persona's private knowledge, each item with its rule. */
export const knowledgeOf = (persona: Pick<Persona, 'privateKnowledge' | 'reveal'> | undefined): { text: string; reveal: Reveal }[] =>
  (persona?.privateKnowledge ?? []).map((k) => (typeof k === 'string' ? { text: k, reveal: persona!.reveal } : k));

/** A loaded scene: the validated content plus its id (the file name without extension). */
export type LoadedScene = Scene & { id: string };

/** What others call a participant: `shortName`, else the first word of `name`. */
export const shortNameOf = (p: Pick<Participant, 'name' | 'shortName'>): string => p.shortName ?? p.name.split(/\s+/)[0]!;
