import { describe, expect, it } from 'vitest';
import { similarity } from '../../engine/similarity';
import type { Act, PairType } from '../../engine/events';
import type { Intent, Pattern } from '../../scene/schema';
import { complete, type Cue, type GenerateRequest, type Purpose } from './port';
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
      for (const text of texts) expect(text).toMatch(/good morning|hi|hello/i);
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
      expect(new Set(texts).size).toBeGreaterThanOrEqual(variants.length * 0.75);
    });

    it.each(['agree', 'disagree', 'neutral'] as Pattern[])('are rarely near-duplicates under the engine measure (%s)', async (pattern) => {
      const texts = await sample({ act: 'statement', snippet: { ...cue.snippet, pattern } });
      let similar = 0;
      let pairs = 0;
      for (let i = 0; i < texts.length; i++) {
        for (let j = i + 1; j < texts.length; j++) {
          pairs++;
          if (similarity(texts[i]!, texts[j]!) > 0.5) similar++;
        }
      }
      // The engine resamples the rest (MPOD §3.2), so most first draws should pass.
      expect(similar / pairs).toBeLessThan(0.25);
    });

    it('often draw on the facts or the topic', async () => {
      const texts = await sample({ act: 'statement' });
      const grounded = texts.filter((t) => /launch|QA backlog|campaign|training|stable release/i.test(t));
      expect(grounded.length).toBeGreaterThanOrEqual(texts.length / 2);
    });

    it('build on the last message when the snippet agrees, and challenge it when it disagrees', async () => {
      const agree = await sample({ act: 'statement', snippet: { ...cue.snippet, pattern: 'agree' } });
      const disagree = await sample({ act: 'statement', snippet: { ...cue.snippet, pattern: 'disagree' } });
      expect(agree.filter((t) => /agree|right|exactly|matches|with Omar|same here|get behind|well put|building on/i.test(t)).length).toBeGreaterThan(agree.length / 2);
      expect(disagree.filter((t) => /differently|push back|not sure|not convinced|challenge|different angle|do not fully|other way|slow down|not match|underestimating|not against/i.test(t)).length).toBeGreaterThan(disagree.length / 2);
      for (const text of agree) expect(text).not.toMatch(/push back|I do not fully buy/);
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
        expect(text).toMatch(/go ahead|over to you|floor is yours/);
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

    it('transitions to the next goal', async () => {
      for (const text of await sample({ act: 'transition', snippet: { ...cue.snippet, goal: 'Assign owners for the launch checklist' } })) {
        expect(text).toContain('Assign owners for the launch checklist');
      }
    });

    it('resolves conflict and chimes in', async () => {
      for (const act of ['resolve-conflict', 'chime-in'] as const) expect((await sample({ act })).every((t) => t.length > 10)).toBe(true);
    });
  });

  describe('interruptions and deviations', () => {
    it('cuts in briefly with the rule vibe', async () => {
      const supportive = await sample({ act: 'interrupt', vibe: 'supportive' });
      const critical = await sample({ act: 'interrupt', vibe: 'critical' });
      for (const text of [...supportive, ...critical]) expect(words(text), text).toBeLessThanOrEqual(15);
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
