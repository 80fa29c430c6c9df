/**
 * MUCA §3.2.3: a facilitator persona's dialog acts, ranked, each with a trigger condition,
 * warm-up turns W and cool-down turns C. The arbitrator runs once every N_exe utterances
 * (Algorithm 1); then the highest ranked act whose condition holds is taken, and when none holds
 * the facilitator keeps silent. Between runs it listens. Direct replies (being addressed) are
 * handled by the session's designation rule, which always has the highest priority.
 */
import type { FacilitatorAct } from '../../shared/scene/schema';

export interface TurnRecord {
  speaker: string;
  words: number;
  /** A group question or request nobody was designated to answer. */
  openQuestion: boolean;
  disagreement: boolean;
  snippet: string;
}

export interface FacilitatorState {
  /** Turn count at which each act last fired. */
  fired: Partial<Record<FacilitatorAct, number>>;
  /** Per-participant encouragement cool-down: c(x)_{j+1} = 2 + c(x)_j, and the turn until which x rests. */
  encouraged: Record<string, { cooldown: number; until: number }>;
  /** Consecutive runs of the arbitrator that kept silent (n_silent, Eq. 3): MUCA's turns are its runs. */
  silent: number;
  /** Utterances since the arbitrator last ran (n of Algorithm 1). */
  heard: number;
}

export const emptyFacilitator = (): FacilitatorState => ({ fired: {}, encouraged: {}, silent: 0, heard: 0 });

/**
 * N_exe, how many utterances pass between runs of the arbitrator: 3 in a small group (MUCA-small),
 * 0.75 · Np in a larger one (MUCA-medium, §4.1.1); a scene may set its own.
 */
export const executionPeriod = (members: number, every?: number): number => every ?? Math.max(3, Math.round(0.75 * members));

/** Whether the arbitrator runs before this turn: N_exe utterances have passed since it last ran. */
export const arbitratorDue = (view: Pick<FacilitatorView, 'members' | 'every'>, state: FacilitatorState): boolean =>
  state.heard >= executionPeriod(view.members.length, view.every);

export interface FacilitatorView {
  acts: readonly FacilitatorAct[];
  /** Scales MUCA's warm-up and cool-down windows (1: the paper's). */
  pace: number;
  /** N_exe when the scene sets it. */
  every?: number;
  facilitator: string;
  /** Participants the facilitator serves (the snippet's members, without the facilitator). */
  members: readonly string[];
  turns: number;
  log: readonly TurnRecord[];
  window: number;
  snippet: string;
  snippetTurns: number;
  hasNextSnippet: boolean;
  /** Whether the conversation is repeating itself (b_stuck, Eq. 4). */
  stuck: boolean;
  /** The sub-topic being discussed: N_ed and N_ing (MUCA §3.2.2); null when none has been touched. */
  topic?: { ned: number; ning: number } | null;
  /** The agenda's next sub-topic not yet discussed, to move to; null when the snippet's agenda is done. */
  nextTopic?: string | null;
  /** N_well, and the turn at which it last grew. */
  well?: { count: number; since: number };
}

// MUCA's rank order: summarization, participation encouragement, sub-topic transition, conflict resolution, chime-in.
const ranked: FacilitatorAct[] = ['summarize', 'encourage', 'transition', 'resolve-conflict', 'chime-in'];

const stats = (log: readonly TurnRecord[], members: readonly string[]) => {
  const freq = new Map(members.map((m) => [m, 0]));
  const len = new Map(members.map((m) => [m, 0]));
  for (const r of log) {
    if (!freq.has(r.speaker)) continue;
    freq.set(r.speaker, freq.get(r.speaker)! + 1);
    len.set(r.speaker, len.get(r.speaker)! + r.words);
  }
  return { freq, len };
};

const meanVar = (values: number[]): { mean: number; variance: number } => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.length > 1 ? values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1) : 0;
  return { mean, variance };
};

/**
 * MUCA Eq. 1-2: x is a lurker when, over the whole conversation, both their chime-in frequency
 * and their total words are far below the mean ((x - mean)² / var > 0.4, and below it), and in
 * the short window they spoke less than once and fewer than 5 words.
 */
export const findLurkers = (log: readonly TurnRecord[], members: readonly string[], window: number): string[] => {
  if (members.length < 2) return [];
  const long = stats(log, members);
  const short = stats(log.slice(-window), members);
  const f = meanVar([...long.freq.values()]);
  const l = meanVar([...long.len.values()]);
  if (f.variance === 0 || l.variance === 0) return [];
  const quietest = (a: string, b: string) => long.len.get(a)! - long.len.get(b)!;
  return members.filter((x) => {
    const fx = long.freq.get(x)!;
    const lx = long.len.get(x)!;
    const longQuiet = fx < f.mean && (fx - f.mean) ** 2 / f.variance > 0.4 && lx < l.mean && (lx - l.mean) ** 2 / l.variance > 0.4;
    const shortQuiet = short.freq.get(x)! < 1 && short.len.get(x)! < 5;
    return longQuiet && shortQuiet;
  }).sort(quietest);
};

/** MUCA Eq. 3-5: p_chime-in = (p_silence + p_semantic) / 2 with α = 0.2, β = 0.4. */
export const chimeInProbability = (silentTurns: number, stuck: boolean, unsolved: boolean): number => {
  const pSilence = silentTurns / (silentTurns + 0.2);
  const bStuck = stuck ? 1 : 0;
  const pSemantic = bStuck + 0.4 * (1 - bStuck) * (unsolved ? 1 : 0);
  return (pSilence + pSemantic) / 2;
};

const ready = (view: FacilitatorView, state: FacilitatorState, act: FacilitatorAct, warmup: number, cooldown: number): boolean => {
  const w = Math.ceil(warmup * view.pace);
  const c = Math.ceil(cooldown * view.pace);
  const last = state.fired[act];
  return view.turns >= w && (last === undefined || view.turns - last >= c);
};

/** N_ed and N_ing of the snippet as a whole: who spoke in it, and who of them within the window. */
const snippetDiscussion = (view: FacilitatorView, recent: readonly TurnRecord[]): { ned: number; ning: number } => {
  const discussed = new Set(view.log.filter((r) => r.snippet === view.snippet).map((r) => r.speaker).filter((s) => view.members.includes(s)));
  const discussing = new Set(recent.map((r) => r.speaker).filter((s) => discussed.has(s)));
  return { ned: discussed.size, ning: discussing.size };
};

/** The facilitator's act for the coming turn, or null to keep silent. */
export const chooseFacilitatorAct = (
  view: FacilitatorView,
  state: FacilitatorState,
): { act: Exclude<FacilitatorAct, 'direct-reply'>; addressee: string | null; topic?: string } | null => {
  const np = Math.max(1, view.members.length);
  const recent = view.log.slice(-view.window);
  for (const act of ranked) {
    if (!view.acts.includes(act)) continue;
    switch (act) {
      case 'summarize': {
        // Enough participants joined in since the last summary.
        const since = view.log.slice(state.fired.summarize ?? 0);
        const active = new Set(since.map((r) => r.speaker).filter((s) => view.members.includes(s))).size;
        if (active >= Math.ceil(np / 2) && ready(view, state, act, 11 * np, 12 * np)) return { act, addressee: null };
        break;
      }
      case 'encourage': {
        if (!ready(view, state, act, 3 * np, 0)) break;
        const lurker = findLurkers(view.log, view.members, Math.max(view.window, np)).find(
          (x) => (state.encouraged[x]?.until ?? 0) <= view.turns,
        );
        if (lurker) return { act, addressee: lurker };
        break;
      }
      case 'transition': {
        // MUCA: move on when fewer than half the group took up the current sub-topic (N_ed < Np/2),
        // or when most did but few still do (N_ed >= Np/2, N_ing < N_ed/2). Without sub-topics, the
        // snippet's speakers stand in for them.
        const next = view.nextTopic ?? null;
        if ((!next && !view.hasNextSnippet) || view.snippetTurns < np) break;
        const { ned, ning } = view.topic ?? snippetDiscussion(view, recent);
        const condition = ned < np / 2 || (ned >= np / 2 && ning < ned / 2);
        if (condition && ready(view, state, act, 5 * np, 7 * np)) return { act, addressee: null, ...(next ? { topic: next } : {}) };
        break;
      }
      case 'resolve-conflict': {
        // MUCA: the number of well-discussed sub-topics has not grown for 9 · Np turns.
        const since = view.well?.since ?? 0;
        const stalled = view.turns - since >= Math.ceil(9 * np * view.pace);
        if (view.well && stalled && ready(view, state, act, 9 * np, 7 * np)) return { act, addressee: null, ...(view.nextTopic ? { topic: view.nextTopic } : {}) };
        break;
      }
      case 'chime-in': {
        // No warm-up or cool-down (MUCA): the silence factor grows with the runs it kept silent.
        const unsolved = recent.some((r) => r.openQuestion);
        if (chimeInProbability(state.silent, view.stuck, unsolved) > 0.45) return { act, addressee: null };
        break;
      }
    }
  }
  return null;
};

/** Bookkeeping when the arbitrator has run: it starts counting again, and one more silent run if it chose nothing. */
export const afterRun = (state: FacilitatorState, spoke: boolean): FacilitatorState => ({ ...state, heard: 0, silent: spoke ? state.silent : state.silent + 1 });

/** Bookkeeping after the facilitator took an act (or any turn passed). */
export const afterTurn = (
  state: FacilitatorState,
  speaker: string,
  facilitator: string,
  turns: number,
  fired: { act: FacilitatorAct; addressee: string | null } | null,
): FacilitatorState => {
  const next: FacilitatorState = {
    fired: { ...state.fired },
    encouraged: { ...state.encouraged },
    silent: speaker === facilitator ? 0 : state.silent,
    heard: state.heard + 1,
  };
  if (fired) {
    next.fired[fired.act] = turns;
    if (fired.act === 'encourage' && fired.addressee) {
      const cooldown = 2 + (state.encouraged[fired.addressee]?.cooldown ?? 0);
      next.encouraged[fired.addressee] = { cooldown, until: turns + cooldown };
    }
  }
  return next;
};
