import { describe, expect, it } from 'vitest';
import { detectDesignation } from '../../engine/designation';
import type { Act, PairType } from '../../../shared/events';
import { longestSharedRun, MAX_QUOTED_WORDS, normalizeLine, tokenOverlap, wordsOf } from '../../engine/novelty';
import type { Intent } from '../../../shared/scene/schema';
import { complete } from './port';
import type { Cue, GenerateRequest, Purpose } from '../../engine/requests';
import { quietCue } from '../../../tests/fakes/cue';
import { loadScene } from '../../scene/load';
import { driveSession } from '../../conversation/drive';
import { createScriptedGenerator } from './scripted';

/** A product team deciding on a launch date; Nora (product lead) speaks, Omar spoke last. */
const cue: Cue = {
  speaker: {
    id: 'nora',
    name: 'Nora Lind',
    shortName: 'Nora',
    role: 'product lead',
    mood: 'anxious',
    traits: ['analytical', 'warm'],
  },
  participants: [
    { id: 'nora', name: 'Nora Lind', shortName: 'Nora', kind: 'ai' },
    { id: 'omar', name: 'Omar Haddad', shortName: 'Omar', kind: 'ai' },
    { id: 'pia', name: 'Pia Berg', shortName: 'Pia', kind: 'human' },
    { id: 'hugo', name: 'Hugo Laurent', shortName: 'Hugo', kind: 'ai' },
  ],
  topic: 'the launch date for the Aurora budgeting app',
  snippet: { id: 'timeline', goal: 'Agree on a realistic launch date', pattern: 'neutral' },
  act: 'statement',
  addressee: { id: 'pia', shortName: 'Pia' },
  obligation: null,
  lastMessage: { speaker: 'omar', shortName: 'Omar', text: 'The backend can be ready by March if we cut the reporting feature.' },
  facts: [
    'The QA backlog still has forty open bugs',
    'Marketing has already booked a campaign for April',
    'Support wants two weeks of training before launch',
  ],
  goals: ['ship a stable release before the April campaign'],
  ...quietCue,
  variant: 0.3141,
};

const generator = createScriptedGenerator();

const say = (overrides: Partial<Cue> = {}, purpose: Purpose = 'utterance', prompt = 'ignored'): Promise<string> =>
  complete(generator, {
    purpose,
    system: 'You are Nora.',
    prompt,
    temperature: 0.9,
    json: purpose === 'select' || purpose === 'think',
    maxTokens: 100,
    cue: { ...cue, ...overrides },
  } satisfies GenerateRequest);

const variants = Array.from({ length: 24 }, (_, i) => (i * 0.6180339887) % 1);

/** Texts for many variants of one cue. */
const sample = (overrides: Partial<Cue>, purpose: Purpose = 'utterance'): Promise<string[]> =>
  Promise.all(variants.map((variant) => say({ ...overrides, variant }, purpose)));

const names = (text: string, shortName: string): boolean => new RegExp(`\\b${shortName}\\b`).test(text);
const sentences = (text: string): number => text.split(/(?<=[.!?])\s+/).filter(Boolean).length;
const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

describe('scripted generator', () => {
  it('gives the same text for the same request', async () => {
    for (const purpose of ['utterance', 'proposal', 'select', 'think'] as const) {
      expect(await say({ intent: 'extend', candidates: ['Omar', 'Pia'] }, purpose)).toBe(
        await say({ intent: 'extend', candidates: ['Omar', 'Pia'] }, purpose),
      );
    }
  });

  it('writes from the cue, never from the prompt', async () => {
    expect(await say({}, 'utterance', 'Say something about penguins.')).toBe(await say({}, 'utterance', 'Talk about the weather.'));
  });

  it('accepts an integer variant drawn from seeded randomness', async () => {
    const texts = await Promise.all([1, 2, 3, 1_000_000_007, 2 ** 31 - 1].map((variant) => say({ variant })));
    expect(new Set(texts).size).toBeGreaterThan(2);
    expect(await say({ variant: 1_000_000_007 })).toBe(texts[3]);
  });

  it('streams the text in a few deltas split on spaces', async () => {
    const deltas: string[] = [];
    const request: GenerateRequest = { purpose: 'utterance', system: '', prompt: '', temperature: 1, json: false, maxTokens: 60, cue };
    for await (const delta of generator.stream(request)) deltas.push(delta);
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas.length).toBeLessThanOrEqual(3);
    expect(deltas.join('')).toBe(await complete(generator, request));
  });

  it('keeps every act to one to three sentences', async () => {
    const acts: Act[] = ['statement', 'answer', 'question', 'request', 'offer', 'greeting', 'invitation', 'moderate', 'interrupt', 'deviation', 'encourage', 'summarize', 'transition', 'resolve-conflict', 'chime-in'];
    for (const act of acts) {
      for (const text of await sample({ act, intent: 'extend', vibe: 'neutral', obligation: { pair: 'invitation', from: 'hugo', fromShortName: 'Hugo', text: 'Nora, please go ahead.' } })) {
        expect(text.length, act).toBeGreaterThan(0);
        expect(sentences(text), `${act}: ${text}`).toBeLessThanOrEqual(3);
      }
    }
  });

  describe('questions and first pair parts', () => {
    it('addresses a question to the addressee by name and ends it with "?"', async () => {
      for (const text of await sample({ act: 'question' })) {
        expect(names(text, 'Pia'), text).toBe(true);
        expect(text.endsWith('?'), text).toBe(true);
      }
    });

    it('asks the group when there is no addressee', async () => {
      for (const text of await sample({ act: 'question', addressee: null })) expect(text.endsWith('?'), text).toBe(true);
    });

    it('makes requests that name the addressee and ask', async () => {
      for (const text of await sample({ act: 'request' })) {
        expect(names(text, 'Pia'), text).toBe(true);
        expect(text.endsWith('?'), text).toBe(true);
      }
    });

    it('greets the addressee by name, or the group', async () => {
      for (const text of await sample({ act: 'greeting' })) expect(names(text, 'Pia'), text).toBe(true);
      expect((await sample({ act: 'greeting', addressee: null })).some((t) => /everyone|all/.test(t))).toBe(true);
    });

    it('offers something to the addressee', async () => {
      for (const text of await sample({ act: 'offer' })) expect(names(text, 'Pia'), text).toBe(true);
    });

    it("offers as the scene's part calls for: an interviewer helps the candidate with the process, never takes their work", async () => {
      const interview: Partial<Cue> = { act: 'offer', topic: 'Interviewing Pia for the product lead role', role: { form: 'interview', part: 'asker' } };
      const offers = await sample(interview);
      for (const text of offers) {
        expect(names(text, 'Pia'), text).toBe(true);
        expect(text, text).not.toMatch(/off your plate|write something up|first pass|dig into|help with|look at .* with you|second pair of eyes/i);
      }
      expect(offers.filter((t) => /in more detail at the end|how we handle|put you in touch|written up on/.test(t)).length).toBe(offers.length);
      // A murder-mystery suspect is not offered to have their work taken off their plate either.
      for (const text of await sample({ act: 'offer', topic: 'Who killed the butler', role: { form: 'investigation', part: 'asker' } })) expect(text, text).not.toMatch(/off your plate|first pass/);
    });

    it('invites the addressee to take the floor', async () => {
      for (const text of await sample({ act: 'invitation' })) expect(names(text, 'Pia'), text).toBe(true);
    });
  });

  describe('answers (second pair parts)', () => {
    const pairs: PairType[] = ['question', 'request', 'offer', 'greeting', 'invitation', 'none'];

    it.each(pairs)('answers a %s without asking a question', async (pair) => {
      const texts = await sample({
        act: 'answer',
        addressee: { id: 'omar', shortName: 'Omar' },
        obligation: { pair, from: 'omar', fromShortName: 'Omar', text: 'Nora, can the QA team clear the backlog before April?' },
      });
      for (const text of texts) expect(text, text).not.toContain('?');
      // The asker is addressed by name some of the time.
      expect(texts.some((t) => names(t, 'Omar'))).toBe(true);
    });

    it('returns a greeting', async () => {
      const texts = await sample({ act: 'answer', obligation: { pair: 'greeting', from: 'hugo', fromShortName: 'Hugo', text: 'Good morning, Nora!' } });
      for (const text of texts) expect(text).toMatch(/morning|hi|hello/i);
    });

    it('both accepts and declines requests across variants', async () => {
      const texts = await sample({ act: 'answer', obligation: { pair: 'request', from: 'omar', fromShortName: 'Omar', text: 'Could you share the roadmap, Nora?' } });
      expect(texts.some((t) => /sure|happy to|of course/i.test(t))).toBe(true);
      expect(texts.some((t) => /rather hold off|cannot commit/i.test(t))).toBe(true);
    });
  });

  describe('statements', () => {
    it('differ between variants', async () => {
      const texts = await sample({ act: 'statement' });
      expect(new Set(texts).size).toBeGreaterThanOrEqual(variants.length * 0.7);
    });

    it('often draw on the facts or the topic', async () => {
      const texts = await sample({ act: 'statement' });
      const grounded = texts.filter((t) => /launch|QA backlog|campaign|training|stable release/i.test(t));
      expect(grounded.length).toBeGreaterThanOrEqual(texts.length / 2);
    });

    it('build on the last message when the snippet agrees, and challenge it when it disagrees', async () => {
      const agree = await sample({ act: 'statement', snippet: { ...cue.snippet, pattern: 'agree' } });
      const disagree = await sample({ act: 'statement', snippet: { ...cue.snippet, pattern: 'disagree' } });
      expect(agree.filter((t) => /agree|right about|matches|with Omar|same here|back Omar|the crux|has a point/i.test(t)).length).toBeGreaterThan(agree.length / 2);
      expect(disagree.filter((t) => /differently|push back|not sure|not convinced|not quite how|wary of|question|doubt/i.test(t)).length).toBeGreaterThan(disagree.length / 2);
      for (const text of agree) expect(text).not.toMatch(/push back|not convinced|wary of/);
    });

    it('speak from their own perspective when nobody spoke yet', async () => {
      for (const text of await sample({ act: 'statement', lastMessage: null, snippet: { ...cue.snippet, pattern: 'agree' } })) {
        expect(names(text, 'Omar'), text).toBe(false);
      }
    });

    it('work with no facts and no goal', async () => {
      for (const text of await sample({ act: 'statement', facts: [], snippet: { ...cue.snippet, goal: '' } })) expect(text).not.toMatch(/\{|\}|undefined/);
    });
  });

  describe('moderator and facilitator acts', () => {
    it('moderates by thanking the last speaker and inviting the addressee by name (DialogLab A.3.8)', async () => {
      const texts = await sample({ act: 'moderate', speaker: { ...cue.speaker, id: 'hugo', shortName: 'Hugo', name: 'Hugo Laurent' } });
      for (const text of texts) {
        expect(names(text, 'Pia'), text).toBe(true);
        expect(text).toMatch(/go ahead|over to you|floor is yours/i);
      }
      expect(texts.some((t) => /^(Thank you|Thanks|Good point|Noted), Omar/.test(t))).toBe(true);
    });

    it('encourages a quiet participant by name with a question', async () => {
      for (const text of await sample({ act: 'encourage' })) {
        expect(names(text, 'Pia'), text).toBe(true);
        expect(text.endsWith('?'), text).toBe(true);
      }
    });

    it('summarizes in one sentence', async () => {
      for (const text of await sample({ act: 'summarize' })) expect(sentences(text), text).toBe(1);
    });

    it('transitions to the next goal when it reads as an agenda item, as something to do now', async () => {
      for (const text of await sample({ act: 'transition', snippet: { ...cue.snippet, goal: 'Assign owners for the launch checklist' } })) {
        expect(text).toMatch(/let's assign owners for the launch checklist\./);
      }
    });

    it('resolves conflict and chimes in', async () => {
      for (const act of ['resolve-conflict', 'chime-in'] as const) expect((await sample({ act })).every((t) => t.length > 10)).toBe(true);
    });
  });

  describe('interruptions and deviations', () => {
    it('cuts in briefly with the rule vibe, and makes its point in the same turn', async () => {
      const supportive = await sample({ act: 'interrupt', vibe: 'supportive' });
      const critical = await sample({ act: 'interrupt', vibe: 'critical' });
      for (const text of [...supportive, ...critical]) expect(words(text), text).toBeLessThanOrEqual(22);
      // Nora has facts of her own: a cut-in says one of them, not only "Sorry, one thing."
      const pointed = [...supportive, ...critical].filter((t) => /QA backlog|campaign|training/i.test(t));
      expect(pointed.length, [...supportive, ...critical].join('\n')).toBeGreaterThan(supportive.length);
      expect(supportive.some((t) => /exactly|spot on|love|absolutely/i.test(t))).toBe(true);
      expect(critical.some((t) => /hold on|stop you|wait|hang on/i.test(t))).toBe(true);
      expect(supportive.filter((t) => critical.includes(t))).toEqual([]);
    });

    it.each(['drift', 'extend', 'question', 'emotional'] as Intent[])('proposes a %s deviation for a simulated human', async (intent) => {
      const texts = [...(await sample({ intent, act: 'deviation' }, 'proposal')), ...(await sample({ intent, act: 'deviation' }))];
      for (const text of texts) expect(text.length).toBeGreaterThan(5);
      if (intent === 'question') expect(texts.every((t) => t.includes('?'))).toBe(true);
      if (intent === 'drift') expect(texts.some((t) => /unrelated|off topic|random thought|reminds me/i.test(t))).toBe(true);
      if (intent === 'emotional') expect(texts.some((t) => /anxious|overwhelming|love|matters to me/i.test(t))).toBe(true);
    });

    it('aims for the target length when one is set (MUCA log-normal lengths)', async () => {
      const mean = async (targetWords: number) => {
        const texts = await sample({ act: 'statement', targetWords });
        return texts.reduce((sum, t) => sum + words(t), 0) / texts.length;
      };
      const short = await mean(5);
      const long = await mean(24);
      expect(short).toBeLessThan(12);
      expect(long).toBeGreaterThan(short);
    });
  });

  describe('speaking from the cue like a person', () => {
    const everyAct: Act[] = ['statement', 'answer', 'question', 'request', 'offer', 'greeting', 'invitation', 'moderate', 'interrupt', 'encourage', 'summarize', 'transition', 'resolve-conflict', 'chime-in'];
    /** Texts for every act, many variants each, from one cue. */
    const allActs = async (overrides: Partial<Cue>): Promise<string[]> => {
      const texts: string[] = [];
      for (const act of everyAct) {
        texts.push(...(await sample({ ...overrides, act, obligation: act === 'answer' ? { pair: 'question', from: 'omar', fromShortName: 'Omar', text: 'Nora, what is holding us back?' } : null })));
      }
      return texts;
    };

    /** A lunch table: Diego wants Ruth's card; Ruth spoke last. */
    const lunch: Partial<Cue> = {
      speaker: { id: 'diego', name: 'Diego Santos', shortName: 'Diego', role: 'startup founder selling scheduling software', mood: 'energetic', traits: ['enthusiastic'] },
      participants: [
        { id: 'diego', name: 'Diego Santos', shortName: 'Diego', kind: 'ai' },
        { id: 'ruth', name: 'Ruth Abernathy', shortName: 'Ruth', kind: 'ai' },
        { id: 'sam', name: 'Sam Okafor', shortName: 'Sam', kind: 'human' },
      ],
      topic: 'Getting to know strangers at a conference lunch, and finding a reason to stay in touch',
      snippet: { id: 'shop-talk', goal: 'Trade what everyone works on; no-shows come up', pattern: 'neutral' },
      addressee: { id: 'ruth', shortName: 'Ruth' },
      lastMessage: { speaker: 'ruth', shortName: 'Ruth', text: 'We lose a fifth of our clinic slots to no-shows, which is maddening.' },
      facts: [],
      goals: ["get Ruth's card", 'pitch his product to anyone with budget'],
    };

    it('never reads its agenda out: a goal steers what it asks, and no line says what it is hoping for', async () => {
      const statements = await sample({ act: 'statement', said: cue.facts.map((f) => `${f}.`) });
      for (const text of [...statements, ...(await allActs({}))]) {
        expect(text, text).not.toMatch(/(I would really like to|what I want out of this is to|I am hoping to) ship a stable release/i);
        expect(text, text).not.toMatch(/(^|[:.]\s+)ship a stable release/i);
      }
    });

    it('turns a goal into the act it calls for: asking for the card, asking what one wants to know', async () => {
      const asks = [...(await sample({ ...lunch, act: 'request' })), ...(await sample({ ...lunch, act: 'question' }))];
      expect(asks.some((t) => /could I get your card/.test(t) && names(t, 'Ruth'))).toBe(true);
      for (const text of [...asks, ...(await allActs(lunch))]) expect(text, text).not.toMatch(/get Ruth's card|pitch his product/i);
      const candidate = await sample({ act: 'question', goals: ['find out why the last PM left'] });
      expect(candidate.some((t) => t.includes('can I ask why the last PM left?'))).toBe(true);
    });

    it('never voices covert or concealment goals', async () => {
      const texts = await allActs({ goals: ['steer suspicion toward Omar and the locked cellar', 'hide that she argued with Henry that night'] });
      for (const text of texts) expect(text, text).not.toMatch(/steer|suspicion|argued|hide/i);
    });

    it('speaks private knowledge in the first person', async () => {
      const answersWith = (facts: string[], speaker: Partial<Cue['speaker']> = {}) =>
        sample({ act: 'answer', facts, goals: [], speaker: { ...cue.speaker, ...speaker }, obligation: { pair: 'question', from: 'omar', fromShortName: 'Omar', text: 'Nora, what happened?' } });
      const mentioning = (texts: string[], marker: RegExp) => {
        const found = texts.filter((t) => marker.test(t));
        expect(found.length).toBeGreaterThan(0);
        return found;
      };
      for (const text of mentioning(await answersWith(["Her network's outpatient no-show rate is 19%, and she has budget for a six-month analytics pilot."]), /no-show|analytics pilot/)) {
        expect(text, text).toMatch(/[Mm]y network's outpatient no-show rate|I have budget/);
        expect(text, text).not.toMatch(/\b(she|her)\b/i);
      }
      for (const text of mentioning(await answersWith(['Dr. Marsh asked her at 10:15 to wash the port decanter before the police came, and she did.']), /decanter/)) {
        expect(text, text).toMatch(/Dr\. Marsh (asked|told) me\b/);
      }
      for (const text of mentioning(await answersWith(['She left the port tray on the kitchen counter at 9:10 for Henry to collect on his way down, as always.']), /port tray/)) {
        expect(text, text).toMatch(/I left the port tray/);
        expect(text, text).toMatch(/for Henry to collect\b.* his way down/);
      }
      const marco = { id: 'marco', name: 'Marco Bellini', shortName: 'Marco' };
      for (const text of mentioning(await answersWith(["He found that the staging errors started when Jordan's migration added a NOT NULL column, and he knows it."], marco), /staging (errors|failures)/)) {
        expect(text, text).toMatch(/I found that the staging (errors|failures)/);
      }
      const rupert = { id: 'rupert', name: 'Rupert Vale', shortName: 'Rupert' };
      for (const text of mentioning(await answersWith(['He left the cellar at 9:35; the bottles were the ones Rupert sold as a premium vintage.'], rupert), /cellar|premium vintage/)) {
        expect(text, text).toMatch(/I left the cellar|the ones I sold/);
      }
      // A pronoun that only another person in the sentence can mean stays as it is.
      for (const text of mentioning(await answersWith(['The last PM quit after the CTO rewrote the roadmap without telling her.']), /last PM/)) {
        expect(text, text).toContain('without telling her');
      }
    });

    it('does not volunteer a confession', async () => {
      const texts = await allActs({ facts: ['She killed Henry with his own digoxin.', 'The cellar was unlocked when she went down.'] });
      for (const text of texts) expect(text, text).not.toMatch(/killed|digoxin/);
      expect(texts.some((t) => /The cellar was unlocked when I went down|the cellar was unlocked when I went down/.test(t))).toBe(true);
    });

    it('never pastes a long topic, and refers to a short one by its head', async () => {
      for (const text of await allActs(lunch)) expect(text, text).not.toMatch(/getting to know strangers|conference lunch|stay in touch/i);
      const texts = await allActs({});
      for (const text of texts) expect(text, text).not.toMatch(/Aurora budgeting app/);
      expect(texts.some((t) => t.includes('the launch date'))).toBe(true);
    });

    it('never reads a snippet goal aloud', async () => {
      for (const text of await allActs(lunch)) expect(text, text).not.toMatch(/Trade what everyone works on|no-shows come up/i);
      for (const text of await allActs({ snippet: { id: 'reveal', goal: 'The detective lays out the timeline and names a suspect', pattern: 'neutral' } })) {
        expect(text, text).not.toMatch(/lays out the timeline|names a suspect/i);
      }
    });

    it('keeps meeting clichés out of a social scene', async () => {
      for (const text of await allActs(lunch)) {
        expect(text, text).not.toMatch(/clear decision|refine the details|play out before|settle before we move on|follow through|trade-offs/);
      }
    });

    it('refers back to the last message by a noun phrase, never by a verb or an adverb', async () => {
      const lastMessage = { speaker: 'omar', shortName: 'Omar', text: 'I want to know whether his father meant to leave him the vineyard, and does this match your experience?' };
      for (const text of await allActs({ lastMessage })) expect(text, text).not.toMatch(/father meant|that match|the experience|cautiously/);
    });

    it('never picks up a phrase cut at "per" ("I will start with the cost per.")', async () => {
      const lastMessage = { speaker: 'omar', shortName: 'Omar', text: 'Nora, can you give me a cost per avoided emergency visit that I could put in front of a council?' };
      for (const text of await allActs({ lastMessage })) expect(text, text).not.toMatch(/\bper[.,!?]/);
    });

    it('answers a question with something: knowledge, an intention or a stance on what was asked', async () => {
      const texts = await sample({
        act: 'answer',
        obligation: { pair: 'question', from: 'omar', fromShortName: 'Omar', text: 'Nora, why is the QA backlog still growing?' },
      });
      for (const text of texts) expect(text, text).toMatch(/QA backlog|campaign|training|stable release/);
    });
  });

  describe('a line is new (engine/novelty.ts)', () => {
    const everyAct: Act[] = ['statement', 'answer', 'question', 'request', 'offer', 'invitation', 'moderate', 'interrupt', 'encourage', 'summarize', 'chime-in'];
    const obligation = { pair: 'question' as const, from: 'omar', fromShortName: 'Omar', text: 'Nora, why is the QA backlog still growing?' };

    /** One persona speaking `turns` times in a row, each line told what came before, as the engine does. */
    const session = async (overrides: Partial<Cue>, acts: Act[], turns: number): Promise<string[]> => {
      const said: string[] = [];
      for (let i = 0; i < turns; i++) {
        const act = acts[i % acts.length]!;
        const text = await say({ ...overrides, act, obligation: act === 'answer' ? obligation : null, said: [...said], variant: i * 7919 + 13 });
        said.push(text);
      }
      return said;
    };

    it('never repeats one of its own lines (cue.said) verbatim', async () => {
      for (const act of everyAct) {
        for (const variant of variants.slice(0, 8)) {
          const first = await say({ act, obligation: act === 'answer' ? obligation : null, variant });
          const again = await say({ act, obligation: act === 'answer' ? obligation : null, variant, said: [first] });
          expect(normalizeLine(again), `${act}: ${first}`).not.toBe(normalizeLine(first));
        }
      }
    });

    it('writes none of its old stock frames: no fixed head or tail phrase across scenes', async () => {
      const stock = /when it comes to|what I can tell you is this|the way I see it|I want to make one point|here is what I keep coming back to|that is the short version, anyway|I can go deeper on any of that|that is my honest read|I am hoping to|what I want out of this is/i;
      for (const act of everyAct) {
        for (const text of await sample({ act, obligation: act === 'answer' ? obligation : null })) expect(text, `${act}: ${text}`).not.toMatch(stock);
      }
    });

    it('keeps a persona from repeating itself over a long session: no repeat, no near-duplicate', async () => {
      const lines = await session({ lastMessage: { speaker: 'omar', shortName: 'Omar', text: 'The backend can be ready by March if we cut the reporting feature.' } }, ['statement', 'answer', 'question', 'statement', 'chime-in', 'summarize'], 24);
      for (let i = 0; i < lines.length; i++) {
        for (let j = 0; j < i; j++) {
          expect(normalizeLine(lines[i]!)).not.toBe(normalizeLine(lines[j]!));
          if (wordsOf(lines[i]!).length >= 4 && wordsOf(lines[j]!).length >= 4) expect(tokenOverlap(lines[i]!, lines[j]!), `${lines[i]} ~ ${lines[j]}`).toBeLessThan(0.8);
        }
      }
    });
  });

  describe('private knowledge', () => {
    const facts = [
      'At about 9:30 he heard raised voices in the cellar passage and recognised Rupert\'s laugh through the door.',
      'He took the cellar key from the hall at 9:10 to fetch a bottle for Vivian and put it back at 9:15, leaving the cellar unlocked.',
    ];
    const theo: Partial<Cue> = {
      speaker: { id: 'theo', name: 'Theo Ashcombe', shortName: 'Theo', role: 'estranged son', mood: 'bitter', traits: ['sarcastic'] },
      participants: [
        { id: 'theo', name: 'Theo Ashcombe', shortName: 'Theo', kind: 'ai' },
        { id: 'kit', name: 'Kit Ramsay', shortName: 'Kit', kind: 'human' },
        { id: 'rupert', name: 'Rupert Vale', shortName: 'Rupert', kind: 'ai' },
      ],
      topic: 'Who killed the winemaker Henry Ashcombe on the night of the harvest dinner?',
      addressee: { id: 'kit', shortName: 'Kit' },
      lastMessage: { speaker: 'kit', shortName: 'Kit', text: 'Theo, where were you at half past nine, and what did you hear?' },
      obligation: { pair: 'question', from: 'kit', fromShortName: 'Kit', text: 'Theo, where were you at half past nine, and what did you hear?' },
      facts,
      secrets: ['He owes his bookmaker eleven thousand pounds and sold his mother\'s brooch to cover it.'],
      goals: ['find out whether his father meant to leave him the vineyard'],
    };

    it('says sayable facts in its own words: never more than 8 consecutive words of them', async () => {
      const texts = await sample({ ...theo, act: 'answer' });
      const telling = texts.filter((t) => /voices|cellar key|laugh/i.test(t));
      expect(telling.length).toBeGreaterThan(texts.length / 2);
      for (const text of texts) for (const fact of facts) expect(longestSharedRun(text, fact), `${text}\n${fact}`).toBeLessThanOrEqual(MAX_QUOTED_WORDS);
    });

    it('never says or hints at a secret, in any act', async () => {
      const acts: Act[] = ['statement', 'answer', 'question', 'request', 'offer', 'interrupt', 'chime-in', 'summarize', 'deviation'];
      for (const act of acts) {
        for (const text of await sample({ ...theo, act, obligation: act === 'answer' ? theo.obligation! : null, intent: 'extend' })) {
          expect(text, `${act}: ${text}`).not.toMatch(/bookmaker|brooch|eleven thousand|pounds/i);
        }
      }
    });
  });

  describe('following the plan', () => {
    const names = cue.participants.map((p) => p.name);
    const designation = (text: string, speaker = 'Nora Lind', previous: string | null = 'Omar Haddad') => detectDesignation({ participants: names, speaker, previousSpeaker: previous, text });

    it('asks its question of the addressee, by the engine\'s own reading, and ends it with "?"', async () => {
      for (const addressee of [{ id: 'pia', shortName: 'Pia' }, { id: 'omar', shortName: 'Omar' }, { id: 'hugo', shortName: 'Hugo' }]) {
        for (const text of await sample({ act: 'question', addressee })) {
          expect(text.endsWith('?'), text).toBe(true);
          expect(designation(text), text).toMatchObject({ next: names.find((n) => n.startsWith(addressee.shortName)) });
        }
      }
    });

    it('never opens a pair in a statement or an answer, and never names someone else to answer', async () => {
      const plans: Partial<Cue>[] = [
        { act: 'statement', addressee: null },
        { act: 'statement', addressee: null, snippet: { ...cue.snippet, pattern: 'disagree' } },
        { act: 'answer', addressee: { id: 'omar', shortName: 'Omar' }, obligation: { pair: 'question', from: 'omar', fromShortName: 'Omar', text: 'Nora, what would you cut first?' } },
        { act: 'summarize', addressee: null },
        { act: 'chime-in', addressee: null },
      ];
      for (const plan of plans) {
        for (const text of await sample(plan)) {
          expect(text, text).not.toContain('?');
          expect(designation(text), `${plan.act}: ${text}`).toEqual({ next: null, pair: 'none' });
        }
      }
    });

    it('asks the authored question bank first, each question once', async () => {
      const bank = { questions: ['What would you cut if the launch moved up a month?', 'Which bug on the QA list worries you most?'], points: [] };
      const first = await sample({ act: 'question', bank });
      for (const text of first) expect(text, text).toMatch(/cut if the launch moved up a month|bug on the QA list worries you most/);
      for (const text of await sample({ act: 'question', bank, said: ['Pia, what would you cut if the launch moved up a month?'] })) {
        expect(text, text).toMatch(/bug on the QA list worries you most/);
      }
    });

    it('skips a bank question that names someone other than the addressee', async () => {
      const bank = { questions: ['Omar, why did the backend estimate double?'], points: [] };
      for (const text of await sample({ act: 'question', bank })) expect(text, text).not.toMatch(/Omar, why did the backend estimate double/);
    });

    it('says its authored talking points', async () => {
      const points = ['Support has never had less than two weeks to learn a new release, and that is not going to change now.'];
      const texts = await sample({ act: 'statement', bank: { questions: [], points } });
      expect(texts.filter((t) => /two weeks to learn a new release/.test(t)).length).toBeGreaterThan(texts.length / 4);
    });

    it('follows up on the answerer\'s own words with a deeper question', async () => {
      const lastMessage = { speaker: 'pia', shortName: 'Pia', text: 'We rebuilt the reminder scheduler in three weeks and cut missed slots by a tenth.' };
      for (const text of await sample({ act: 'question', move: 'follow-up', lastMessage })) {
        expect(text, text).toMatch(/reminder scheduler|missed slots/);
        expect(text.endsWith('?'), text).toBe(true);
        expect(designation(text, 'Nora Lind', 'Pia Berg').next, text).toBe('Pia Berg');
      }
    });

    it('picks up the trainee\'s key phrases when asking them', async () => {
      const human = { id: 'pia', shortName: 'Pia', text: 'Honestly I think the onboarding checklist is what slows new clinics down.' };
      const texts = await sample({ act: 'question', human, lastMessage: { speaker: 'pia', shortName: 'Pia', text: human.text } });
      expect(texts.filter((t) => /onboarding checklist|new clinics/.test(t)).length).toBeGreaterThan(texts.length / 2);
    });

    it('answers what was asked: its key phrase or words, and a time to a "when"', async () => {
      const asked = (text: string) => sample({ act: 'answer', addressee: { id: 'omar', shortName: 'Omar' }, obligation: { pair: 'question', from: 'omar', fromShortName: 'Omar', text } });
      for (const text of await asked('Nora, what is the real state of the QA backlog?')) expect(text, text).toMatch(/QA backlog/);
      for (const text of await asked('Nora, how do we keep the marketing campaign on track?')) expect(text, text).toMatch(/campaign/i);
      const when = await asked('Nora, when does marketing need a final date?');
      expect(when.filter((t) => /April|weeks|March|date/.test(t)).length).toBeGreaterThan(when.length / 2);
    });

    it('with nothing that answers, says so in character rather than saying something else', async () => {
      const texts = await sample({ act: 'answer', facts: [], goals: [], obligation: { pair: 'question', from: 'omar', fromShortName: 'Omar', text: 'Nora, how many users asked for the reporting feature?' } });
      for (const text of texts) {
        expect(text, text).not.toMatch(/sorry, one small thing|told you everything|already said what I know/i);
        expect(text, text).toMatch(/don't (know|have)|not sure|couldn't|guessing|rather not guess|without checking/i);
      }
    });

    it('closes the session without a question when the engine plans the last turn', async () => {
      const speakers: Partial<Cue>[] = [{}, { speaker: { ...cue.speaker, role: 'scrum master' } }];
      for (const speaker of speakers) {
        for (const text of await sample({ ...speaker, act: 'statement', move: 'close', human: { id: 'pia', shortName: 'Pia', text: 'Thanks, I think the plan works.' } })) {
          expect(text, text).not.toContain('?');
          expect(text, text).toMatch(/thank/i);
          expect(designation(text).pair, text).toBe('none');
        }
      }
    });

    // Speed is measured by `npm run bench` (scripted.line_p95_ms), never asserted here.
  });

  describe('in a whole simulated session', () => {
    it.each(['job-interview', 'murder-mystery'])('%s: no line repeats or quotes private knowledge', async (id) => {
      const scene = await loadScene(`scenes/${id}.yaml`);
      const knowledge = scene.participants.flatMap((p) => (p.persona?.privateKnowledge ?? []).map((k) => (typeof k === 'string' ? k : k.text)));
      const events = await driveSession(scene, { seed: 2, generator });
      const lines = events.flatMap((e) => (e.type === 'utterance' && e.source !== 'scripted' ? [e] : []));
      expect(new Set(lines.map((u) => normalizeLine(u.text))).size).toBe(lines.length);
      for (const line of lines) for (const text of knowledge) expect(longestSharedRun(line.text, text), line.text).toBeLessThanOrEqual(MAX_QUOTED_WORDS);
    });
  });

  describe('turn selector (MPOD §3.1)', () => {
    it('returns JSON naming one of the candidates', async () => {
      for (const text of await sample({ candidates: ['Omar Haddad', 'Hugo Laurent'], addressee: null }, 'select')) {
        expect(['Omar Haddad', 'Hugo Laurent']).toContain(JSON.parse(text).next);
      }
    });

    it('prefers the addressee when they are a candidate', async () => {
      for (const text of await sample({ candidates: ['Omar Haddad', 'Pia Berg', 'Hugo Laurent'] }, 'select')) {
        expect(JSON.parse(text)).toEqual({ next: 'Pia Berg' });
      }
    });

    it('spreads its choice across candidates otherwise', async () => {
      const picks = new Set((await sample({ candidates: ['Omar', 'Hugo', 'Pia'], addressee: null }, 'select')).map((t) => JSON.parse(t).next));
      expect(picks.size).toBeGreaterThan(1);
    });
  });

  describe('think() (MMAgents §3.2.1)', () => {
    const bids = async (overrides: Partial<Cue>) =>
      (await sample(overrides, 'think')).map((t) => JSON.parse(t) as { thought: string; action: string; importance: number });

    it('returns a thought, an action and an importance from 0 to 9', async () => {
      for (const bid of await bids({})) {
        expect(typeof bid.thought).toBe('string');
        expect(['speak', 'listen']).toContain(bid.action);
        expect(Number.isInteger(bid.importance)).toBe(true);
        expect(bid.importance).toBeGreaterThanOrEqual(0);
        expect(bid.importance).toBeLessThanOrEqual(9);
      }
    });

    it('bids high to speak when the last message names the speaker', async () => {
      for (const bid of await bids({ lastMessage: { speaker: 'omar', shortName: 'Omar', text: 'Nora, is the date fixed?' } })) {
        expect(bid).toMatchObject({ action: 'speak' });
        expect(bid.importance).toBeGreaterThanOrEqual(7);
      }
    });

    it('bids more often and higher when the last message touches its goals and facts', async () => {
      const relevant = await bids({ lastMessage: { speaker: 'omar', shortName: 'Omar', text: 'Can marketing move the campaign?' } });
      const unrelated = await bids({ lastMessage: { speaker: 'omar', shortName: 'Omar', text: 'The office plants need watering.' } });
      const speaks = (b: typeof relevant) => b.filter((x) => x.action === 'speak').length;
      const mean = (b: typeof relevant) => b.reduce((s, x) => s + x.importance, 0) / b.length;
      expect(speaks(relevant)).toBeGreaterThan(speaks(unrelated));
      expect(mean(relevant)).toBeGreaterThan(mean(unrelated));
    });
  });
});
