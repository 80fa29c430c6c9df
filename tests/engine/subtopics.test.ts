/**
 * Sub-topics and the accumulative summary (MUCA §3.2.2), and the facilitator acts that read them:
 * sub-topic transition by N_ed / N_ing and conflict resolution when N_well stops growing.
 */
import { describe, expect, it } from 'vitest';
import { chooseFacilitatorAct, emptyFacilitator, type FacilitatorView, type TurnRecord } from '../../server/engine/facilitator';
import type { GenerateRequest } from '../../server/engine/requests';
import { currentTopic, discussion, label, nextTopic, summaryOf, topicsOf, touchTopics, visibleTopics, type Topics } from '../../server/engine/subtopics';
import { ai, cueText, makeScene, run, utterances } from './harness';

const withPoints = (id: string, name: string, points: string[], privateKnowledge: string[] = []) =>
  ai(id, name, { persona: { backstory: 'A colleague.', goals: [], privateKnowledge, points } });

const scene = makeScene({
  participants: [
    ai('sam', 'Sam Lee'),
    withPoints('ada', 'Ada Park', ['The staging database migration broke the login service overnight.'], ['Ada has a job offer elsewhere.']),
    withPoints('ben', 'Ben Osei', ['The regression suite needs six hours on green staging.']),
    ai('cleo', 'Cleo Ruiz'),
  ],
  snippets: [
    { id: 'updates', initiator: 'sam', turns: 12, goal: 'Short updates', subtopics: ['what broke staging overnight', 'the regression suite timeline', 'who owns the staging fix'] },
    { id: 'close', initiator: 'sam', turns: 4, goal: 'Wrap up with owners and dates' },
  ],
});

const say = (topics: Topics, speaker: string, text: string, turn: number): Topics => touchTopics(topics, { speaker, text, turn, snippet: 'updates', members: 4 });

describe('the sub-topics of a scene', () => {
  it('are the agenda of each snippet (its goal when it has none) and the talking points, never private knowledge', () => {
    const topics = topicsOf(scene);
    const texts = topics.items.map((t) => t.text);
    expect(texts).toEqual(
      expect.arrayContaining(['what broke staging overnight', 'the regression suite timeline', 'who owns the staging fix', 'Wrap up with owners and dates']),
    );
    expect(texts).not.toContain('Short updates');
    expect(texts.some((t) => /job offer/.test(t))).toBe(false);
    expect(topics.items.every((t) => t.status === 'not-yet')).toBe(true);
    expect(currentTopic(topics)?.text).toBe('what broke staging overnight');
  });

  it('hide a talking point from everyone but its owner until it is raised', () => {
    const topics = topicsOf(scene);
    const point = (viewer: string) => visibleTopics(topics, viewer).some((t) => /six hours/.test(t.text));
    expect(point('ben')).toBe(true);
    expect(point('ada')).toBe(false);
    const raised = say(topics, 'ben', 'The regression suite needs six hours, so staging must be green by Wednesday.', 1);
    expect(visibleTopics(raised, 'ada').some((t) => /six hours/.test(t.text))).toBe(true);
  });
});

describe('status, N_ed, N_ing and the summary', () => {
  it('goes from not yet to being discussed to well discussed as half the group takes it up', () => {
    let topics = topicsOf(scene);
    topics = say(topics, 'ada', 'Staging broke overnight after the migration.', 1);
    const broke = () => topics.items.find((t) => t.text === 'what broke staging overnight')!;
    expect(broke().status).toBe('discussing');
    expect(currentTopic(topics)?.text).toBe('what broke staging overnight');
    topics = say(topics, 'ben', 'I think what broke staging was the config, not the code.', 2);
    expect(broke().status).toBe('discussing');
    topics = say(topics, 'ada', 'No, staging broke with the migration script itself.', 3);
    expect(broke().status).toBe('well-discussed');
    expect(topics.well).toBe(1);
    expect(topics.wellSince).toBe(3);
    expect(discussion(broke(), 10, 4)).toEqual({ ned: 2, ning: 0 });
    expect(discussion(broke(), 4, 4)).toEqual({ ned: 2, ning: 2 });
  });

  it('raises a new sub-topic from a question that matches none', () => {
    const topics = say(topicsOf(scene), 'cleo', 'Should we invite the security auditors to the Friday demo?', 1);
    const raised = topics.items.find((t) => t.origin === 'raised');
    expect(raised?.text).toMatch(/security auditors/);
    expect(currentTopic(topics)?.id).toBe(raised?.id);
  });

  it('raises nothing from an invitation to speak, and names what a question is about without its addressee', () => {
    for (const invitation of ['Riley, you have been quiet; anything you would add?', "Cleo, what's your view on this?", 'Sam, how does this sit with you?', 'Could you say a bit more about that, Ben?']) {
      const topics = say(topicsOf(scene), 'sam', invitation, 1);
      expect(topics.items.filter((t) => t.origin === 'raised'), invitation).toEqual([]);
    }
    const topics = say(topicsOf(scene), 'cleo', 'Should we invite the security auditors to the Friday demo, Ada?', 1);
    expect(topics.items.find((t) => t.origin === 'raised')?.text).toBe('Should we invite the security auditors to the Friday demo?');
  });

  it('labels a long sub-topic by its first words, cut where a phrase can end', () => {
    const point = ai('kim', 'Kim Ode', { persona: { backstory: 'A coach.', goals: [], privateKnowledge: [], points: ["I'm hearing that the changes were right but arrived without any re-plan or warning at all."] } });
    const topics = topicsOf(makeScene({ participants: [ai('sam', 'Sam Lee'), point], snippets: [{ id: 'a', initiator: 'sam', turns: 4, goal: 'Talk' }] }));
    const labelled = topics.items.find((t) => t.origin === 'point')!;
    expect(label(labelled)).toBe('the changes were right but arrived without any re-plan…');
  });

  it('keeps each person’s latest sentence per sub-topic for the whole session, not a window', () => {
    let topics = topicsOf(scene);
    topics = say(topics, 'ada', 'Staging broke overnight. The migration ran at two.', 1);
    for (let turn = 2; turn < 40; turn++) topics = say(topics, turn % 2 ? 'ben' : 'cleo', `Filler remark number ${turn} about lunch plans.`, turn);
    topics = say(topics, 'ben', 'The regression suite timeline is six hours once staging is green.', 40);
    const summary = summaryOf(topics, (id) => id.toUpperCase());
    expect(summary[0]).toMatchObject({ topic: 'the regression suite timeline', points: [{ who: 'BEN', text: 'The regression suite timeline is six hours once staging is green.' }] });
    expect(summary.find((s) => s.topic === 'what broke staging overnight')?.points).toEqual([{ who: 'ADA', text: 'Staging broke overnight.' }]);
  });

  it('names the agenda’s next sub-topic not yet discussed, and never someone’s talking point', () => {
    let topics = topicsOf(scene);
    expect(nextTopic(topics, 'updates')?.text).toBe('the regression suite timeline');
    topics = say(topics, 'ben', 'The regression suite timeline worries me.', 1);
    expect(nextTopic(topics, 'updates')?.text).toBe('what broke staging overnight');
    expect(nextTopic(topics, 'close')?.text).toBe('Wrap up with owners and dates');
  });
});

const rec = (speaker: string, text = ''): TurnRecord => ({ speaker, words: 12, openQuestion: false, disagreement: /\bbut\b/.test(text), snippet: 'a' });
const members = ['ada', 'ben', 'cleo', 'dan'];
const view = (over: Partial<FacilitatorView>): FacilitatorView => ({
  acts: ['transition', 'resolve-conflict'],
  pace: 1,
  facilitator: 'sam',
  members,
  turns: 40,
  log: Array.from({ length: 40 }, (_, i) => rec(members[i % 4]!, 'yes, but no')),
  window: 8,
  snippet: 'a',
  snippetTurns: 40,
  hasNextSnippet: false,
  stuck: false,
  topic: { ned: 4, ning: 4 },
  nextTopic: 'a:2',
  well: { count: 1, since: 38 },
  ...over,
});

describe('the facilitator reads them (MUCA §3.2.3)', () => {
  it('transition: fewer than half took up the sub-topic, or most did and few still do', () => {
    const none = emptyFacilitator();
    expect(chooseFacilitatorAct(view({ acts: ['transition'], topic: { ned: 4, ning: 4 } }), none)).toBeNull();
    expect(chooseFacilitatorAct(view({ acts: ['transition'], topic: { ned: 1, ning: 1 } }), none)).toEqual({ act: 'transition', addressee: null, topic: 'a:2' });
    expect(chooseFacilitatorAct(view({ acts: ['transition'], topic: { ned: 4, ning: 1 } }), none)).toEqual({ act: 'transition', addressee: null, topic: 'a:2' });
    // Nothing to move to: no next sub-topic and no next snippet.
    expect(chooseFacilitatorAct(view({ acts: ['transition'], topic: { ned: 1, ning: 1 }, nextTopic: null }), none)).toBeNull();
    // Before its warm-up of 5 · Np turns, nothing.
    expect(chooseFacilitatorAct(view({ acts: ['transition'], topic: { ned: 1, ning: 1 }, turns: 19 }), none)).toBeNull();
  });

  it('resolve-conflict: when no sub-topic has become well discussed for 9 · Np turns, not on the word "but"', () => {
    const none = emptyFacilitator();
    // Every line says "but", and sub-topics keep getting settled: no conflict to resolve.
    expect(chooseFacilitatorAct(view({ acts: ['resolve-conflict'], well: { count: 3, since: 38 } }), none)).toBeNull();
    // Plain agreement, but nothing has been settled for 36 turns: time to step in.
    const calm = Array.from({ length: 40 }, (_, i) => rec(members[i % 4]!, 'yes, agreed'));
    expect(chooseFacilitatorAct(view({ acts: ['resolve-conflict'], log: calm, well: { count: 1, since: 4 } }), none)).toEqual({ act: 'resolve-conflict', addressee: null, topic: 'a:2' });
    expect(chooseFacilitatorAct(view({ acts: ['resolve-conflict'], log: calm, well: { count: 1, since: 5 } }), none)).toBeNull();
  });
});

describe('in a session', () => {
  const facilitated = makeScene({
    participants: scene.participants,
    turnTaking: { policy: 'round-robin', facilitator: { participant: 'sam', acts: ['transition', 'summarize'], pace: 0.3 } },
    snippets: [{ id: 'updates', initiator: 'ada', turns: 30, goal: 'Short updates', subtopics: ['what broke staging overnight', 'the regression suite timeline', 'who owns the staging fix'] }],
  });

  it('moves the group to the agenda’s next sub-topic, and the prompt carries statuses, the summary and the tone', () => {
    // Everyone keeps talking about what broke staging; only Ada and Ben ever touch it.
    const respond = (r: GenerateRequest) =>
      r.purpose === 'utterance' && (r.cue.speaker.id === 'ada' || r.cue.speaker.id === 'ben') && !r.cue.obligation ? `Staging broke overnight, and the fix is ${r.cue.variant % 7} hours away.` : cueText(r);
    const { events, requests } = run(facilitated, { seed: 3, respond });
    const transitions = requests.flatMap((r) => (r.kind === 'generate' && r.request.cue.act === 'transition' ? [r.request] : []));
    expect(transitions.length).toBeGreaterThan(0);
    expect(transitions[0]!.cue.topics.next).toBe('the regression suite timeline');
    expect(transitions[0]!.prompt).toContain('Move the group to the next sub-topic: the regression suite timeline');
    const later = requests.flatMap((r) => (r.kind === 'generate' && r.request.purpose === 'utterance' ? [r.request] : [])).at(-1)!;
    expect(later.prompt).toMatch(/Sub-topics of this meeting:\n- what broke staging overnight \((being|well) discussed\)/);
    expect(later.prompt).toMatch(/Summary of the discussion so far \(whole session\):\n(- .*\n)*- On what broke staging overnight: (Ada|Ben): Staging broke overnight/);
    for (const r of requests) if (r.kind === 'generate' && r.request.purpose === 'utterance') expect(r.request.prompt).toContain('Tone for this part of the conversation:');
    expect(utterances(events).length).toBeGreaterThan(10);
  });
});
