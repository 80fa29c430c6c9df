/**
 * The checks of a scene's content, as data (no YAML, no file): the zod schema, then the
 * cross-references the schema cannot see (party members, initiators, next snippets, the moderator,
 * who asks whom, avatars...), every problem with its path and the words `npm run scene:check`
 * prints. The one copy of them: server/scene/load.ts places each finding at its line and column
 * in a file, the editor (client/src/editor) shows it on the field and node it concerns as a scene
 * is edited. Browser-safe: it reads no file, so the avatar ids are given.
 *
 * ```ts
 * checkScene({ ...scene, snippets: [{ id: 'a', initiator: 'gwen', turns: 'six' }] }, ['avatar-01']);
 * // [{ path: 'snippets[0].turns', message: 'expected a positive integer, got "six"' }]
 * ```
 */
import { z } from 'zod';
import { Scene } from './schema';

export type Path = readonly (string | number)[];

/** A problem before it has a place. `at: 'key'` points at the key (an unknown key, a field that does not belong) instead of its value. */
export interface Finding {
  path: Path;
  message: string;
  at?: 'key' | 'value';
}

/** A problem at a field of a scene: as the editor shows it, and as POST /api/scenes/validate answers it (without a line). */
export interface FieldProblem {
  /** `snippets[1].turns`; `(scene)` for the scene as a whole. */
  path: string;
  message: string;
}

/**
 * Both passes over `data`, the schema's findings first, each in the order of the scene's fields;
 * `scene` when the schema accepts it (the references may still find problems). `avatars`: the ids
 * of avatars/manifest.json, or null to leave avatar ids unchecked.
 */
export const checkSceneData = (data: unknown, avatars: readonly string[] | null): { scene?: Scene; findings: Finding[] } => {
  const validated = validate(data);
  return { ...(validated.scene ? { scene: validated.scene } : {}), findings: [...validated.findings, ...checkReferences(data, avatars)] };
};

/** Every problem of `data` at its path; none for a scene the engine can run. */
export const checkScene = (data: unknown, avatars: readonly string[] | null = null): FieldProblem[] =>
  checkSceneData(data, avatars).findings.map((f) => ({ path: formatPath(f.path), message: f.message }));

/** `snippets[1].turns`; `(scene)` for the scene as a whole. */
export const formatPath = (path: Path): string =>
  path.reduce<string>((text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text ? `${text}.${segment}` : segment), '') ||
  '(scene)';

const toPath = (path: readonly PropertyKey[]): Path => path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));

// ---------------------------------------------------------------------------------------------
// The schema. Messages written in the schema win; this error map words the rest.

const validate = (data: unknown): { scene?: Scene; findings: Finding[] } => {
  // An unknown key is reported at the key itself, with a suggestion from the keys its object allows.
  // Keyed by the object that has the unknown keys: inside a union the issue's path is relative to the union.
  const allowedKeys = new WeakMap<object, string[]>();
  const result = Scene.safeParse(data, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys' && issue.schema instanceof z.ZodObject && typeof issue.input === 'object' && issue.input !== null) {
        allowedKeys.set(issue.input, Object.keys(issue.schema.shape));
      }
      return schemaMessage(issue);
    },
  });
  if (result.success) return { scene: result.data, findings: [] };

  const findingsOf = (issues: readonly z.core.$ZodIssue[], base: Path): Finding[] =>
    issues.flatMap((issue): Finding[] => {
      const path = [...base, ...toPath(issue.path)];
      if (issue.code === 'invalid_union') return unionFindings(issue, path);
      if (issue.code !== 'unrecognized_keys') return [{ path, message: issue.message }];
      const object = valueAt(data, path);
      const allowed = (typeof object === 'object' && object !== null && allowedKeys.get(object)) || [];
      return issue.keys.map((key) => ({ path: [...path, key], message: unknownKey(key, allowed), at: 'key' }));
    });

  // zod words a failed union as "Invalid input". The options the value has the right type for say
  // better what is wrong (a knowledge item's bad `reveal`); when it fits none, name the types it could be.
  const unionFindings = (issue: z.core.$ZodIssueInvalidUnion, path: Path): Finding[] => {
    const wrongType = (option: readonly z.core.$ZodIssue[]): boolean => option.some((i) => i.code === 'invalid_type' && i.path.length === 0);
    const fitting = issue.errors.find((option) => !wrongType(option));
    if (fitting !== undefined) return findingsOf(fitting, path);
    const expected = issue.errors.flatMap((option) => option.flatMap((i) => (i.code === 'invalid_type' && i.path.length === 0 ? [i.expected] : [])));
    if (expected.length === 0) return [{ path, message: issue.message }];
    const names = [...new Set(expected.map((type) => typeNames[type] ?? type))];
    return [{ path, message: `expected ${names.join(' or ')}, got ${describe(valueAt(data, path))}` }];
  };

  return { findings: findingsOf(result.error.issues, []) };
};

/** The raw value at `path`, or undefined where the path leaves the data. */
const valueAt = (data: unknown, path: Path): unknown =>
  path.reduce<unknown>((value, segment) => (typeof value === 'object' && value !== null ? (value as Record<string | number, unknown>)[segment] : undefined), data);

const schemaMessage = (issue: z.core.$ZodRawIssue): string | undefined => {
  switch (issue.code) {
    case 'invalid_type': {
      if ((issue.path ?? []).length === 0) {
        const got = issue.input == null ? 'an empty document' : describe(issue.input);
        return `expected a scene (a map with title, topic, formation, participants and snippets), got ${got}`;
      }
      if (issue.input === undefined) return 'required';
      const expected = issue.expected === 'number' ? expectedNumber(issue.schema) : (typeNames[issue.expected] ?? issue.expected);
      return `expected ${expected}, got ${describe(issue.input)}`;
    }
    case 'invalid_value':
      if (issue.input === undefined) return `required (one of ${issue.values.map(String).join(', ')})`;
      return `expected one of ${issue.values.map(String).join(', ')}; got ${describe(issue.input)}`;
    case 'too_small':
      if (issue.origin === 'string') return issue.minimum === 1 ? 'expected non-empty text' : `expected at least ${issue.minimum} characters`;
      if (issue.origin === 'array') return `expected at least ${plural(Number(issue.minimum), 'item')}`;
      return issue.inclusive ? `expected at least ${issue.minimum}` : `expected more than ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'array') return `expected at most ${plural(Number(issue.maximum), 'item')}`;
      if (issue.origin === 'string') return `expected at most ${issue.maximum} characters`;
      return issue.inclusive ? `expected at most ${issue.maximum}` : `expected less than ${issue.maximum}`;
    default:
      return undefined;
  }
};

const typeNames: Record<string, string> = {
  string: 'text',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'a map',
};

const expectedNumber = (schema: unknown): string => {
  if (!(schema instanceof z.ZodNumber)) return 'a number';
  const noun = schema.format === 'safeint' ? 'integer' : 'number';
  const article = noun === 'integer' ? 'an' : 'a';
  // An integer schema carries the safe-integer range as bounds; those are not worth telling an author.
  const bound = (value: number | null): number | undefined =>
    value !== null && Number.isFinite(value) && Math.abs(value) < Number.MAX_SAFE_INTEGER ? value : undefined;
  const min = bound(schema.minValue);
  const max = bound(schema.maxValue);
  if (min !== undefined && max !== undefined) return `${article} ${noun} from ${min} to ${max}`;
  if (min === 0) return schema.safeParse(0).success ? `a non-negative ${noun}` : `a positive ${noun}`;
  if (min !== undefined) return `${article} ${noun} of at least ${min}`;
  return `${article} ${noun}`;
};

const describe = (value: unknown): string => {
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value);
  return String(value);
};

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

const unknownKey = (key: string, allowed: readonly string[]): string => {
  const close = allowed.find((k) => editDistance(k.toLowerCase(), key.toLowerCase()) <= (k.length > 4 ? 2 : 1));
  if (close !== undefined) return `unknown key "${key}" (did you mean "${close}"?)`;
  return allowed.length > 0 ? `unknown key "${key}" (allowed: ${allowed.join(', ')})` : `unknown key "${key}"`;
};

/** Levenshtein distance, for "did you mean" on misspelt keys. */
const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (const [i, ca] of [...a].entries()) {
    const current = [i + 1];
    for (const [j, cb] of [...b].entries()) {
      current.push(Math.min((previous[j + 1] ?? 0) + 1, (current[j] ?? 0) + 1, (previous[j] ?? 0) + (ca === cb ? 0 : 1)));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
};

// ---------------------------------------------------------------------------------------------
// Cross-references. These run on the raw data, not on the schema's output, so that a
// type error elsewhere does not hide them. A value of the wrong type is the schema's to report,
// so every check here skips it.

type Loose = Record<string, unknown>;
const record = (value: unknown): Loose => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Loose) : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const texts = (value: unknown): string[] => list(value).filter((v): v is string => typeof v === 'string');
const known = (ids: readonly string[]): string => {
  const unique = [...new Set(ids)];
  return unique.length > 8 ? `${unique.slice(0, 8).join(', ')}, ...` : unique.join(', ') || 'none';
};

const checkReferences = (data: unknown, shippedAvatars: readonly string[] | null): Finding[] => {
  const findings: Finding[] = [];
  const report = (path: Path, message: string, at?: 'key'): void => {
    findings.push({ path, message, at });
  };

  const scene = record(data);
  const participants = list(scene.participants).map(record);
  const parties = list(scene.parties).map(record);
  const contents = list(scene.contents).map(record);
  const snippets = list(scene.snippets).map(record);
  const participantIds = texts(participants.map((p) => p.id));
  const partyIds = texts(parties.map((p) => p.id));
  const snippetIds = texts(snippets.map((s) => s.id));

  const checkUnique = (field: string, kind: string, items: Loose[]): void => {
    const first = new Map<string, number>();
    items.forEach((item, i) => {
      if (typeof item.id !== 'string') return;
      const j = first.get(item.id);
      if (j === undefined) first.set(item.id, i);
      else report([field, i, 'id'], `duplicate ${kind} id "${item.id}" (also ${field}[${j}])`);
    });
  };
  checkUnique('participants', 'participant', participants);
  checkUnique('parties', 'party', parties);
  checkUnique('contents', 'content', contents);
  checkUnique('snippets', 'snippet', snippets);

  /** Reports `value` at `path` unless it is one of `ids` or `extra`; non-strings are the schema's business. */
  const expectOneOf = (kind: string, ids: readonly string[], extra: readonly string[] = []) => (value: unknown, path: Path) => {
    if (typeof value !== 'string' || ids.includes(value) || extra.includes(value)) return;
    report(path, `unknown ${kind} "${value}" (known: ${known([...ids, ...extra])})`);
  };
  const expectParticipant = expectOneOf('participant', participantIds);

  participants.forEach((p, i) => {
    const at = ['participants', i];
    if (p.kind === 'ai' && p.persona === undefined) report([...at, 'persona'], 'an AI participant needs a persona');
    if (p.kind === 'ai' && p.simulated !== undefined) report([...at, 'simulated'], 'only human participants can be simulated', 'key');
    if (p.kind === 'ai' && p.brief !== undefined) report([...at, 'brief'], 'only human seats are briefed; a persona is told its persona', 'key');
    if (typeof p.avatar === 'string' && p.avatar.trim() === '') report([...at, 'avatar'], 'expected an avatar id, e.g. "avatar-01"');
    else if (typeof p.avatar === 'string' && shippedAvatars && !shippedAvatars.includes(p.avatar)) {
      report([...at, 'avatar'], `unknown avatar "${p.avatar}" (avatars/manifest.json has ${known(shippedAvatars)})`);
    }
  });
  if (participants.length > 0 && !participants.some((p) => p.kind === 'human')) {
    report(['participants'], 'a scene needs at least one human participant');
  }

  parties.forEach((party, i) => {
    const at = ['parties', i];
    const name = typeof party.id === 'string' ? `party "${party.id}"` : 'the party';
    const members = texts(party.members);
    list(party.members).forEach((m, j) => expectParticipant(m, [...at, 'members', j]));
    const mode = party.speakingMode ?? 'all';
    if (mode === 'representative' && party.representative === undefined) {
      report([...at, 'representative'], 'representative mode needs a representative');
    }
    if (typeof party.representative === 'string' && !members.includes(party.representative)) {
      report([...at, 'representative'], `"${party.representative}" is not a member of ${name} (members: ${known(members)})`);
    }
    if (mode === 'subset' && party.subset === undefined) report([...at, 'subset'], 'subset mode needs a subset of the members');
    list(party.subset).forEach((m, j) => {
      if (typeof m === 'string' && !members.includes(m)) {
        report([...at, 'subset', j], `"${m}" is not a member of ${name} (members: ${known(members)})`);
      }
    });
  });

  contents.forEach((c, i) => expectOneOf('party', partyIds, ['public'])(c.owner, ['contents', i, 'owner']));

  // Who asks whom: each side names participants, parties (all their members) or "*" (everyone).
  // An id that is both a participant and a party would be read as the participant alone (roster.ts).
  const expectRole = (ref: unknown, path: Path): void => {
    expectOneOf('participant or party', [...participantIds, ...partyIds], ['*'])(ref, path);
    if (typeof ref === 'string' && participantIds.includes(ref) && partyIds.includes(ref)) {
      report(path, `"${ref}" is both a participant and a party; rename one of them`);
    }
  };
  const checkRoles = (roles: Loose, at: Path): void => {
    list(roles.askers).forEach((ref, j) => expectRole(ref, [...at, 'askers', j]));
    list(roles.answerers).forEach((ref, j) => expectRole(ref, [...at, 'answerers', j]));
  };
  const structure = record(scene.structure);
  checkRoles(structure, ['structure']);
  // The chair invites each next speaker by name, so it is one person, never a party.
  if (typeof structure.chair === 'string' && partyIds.includes(structure.chair) && !participantIds.includes(structure.chair)) {
    report(['structure', 'chair'], `the chair must be a participant; "${structure.chair}" is a party`);
  } else {
    expectParticipant(structure.chair, ['structure', 'chair']);
  }

  const turnTaking = record(scene.turnTaking);
  if (turnTaking.policy === 'party') {
    if (turnTaking.partyMode === undefined) report(['turnTaking', 'partyMode'], 'the party policy needs a partyMode (free, round-robin or moderated)');
    if (parties.length === 0) report(['parties'], 'the party policy needs at least one party');
  }
  if (turnTaking.partyMode === 'moderated' && turnTaking.moderator === undefined) {
    report(['turnTaking', 'moderator'], 'moderated mode needs a moderator');
  }
  expectParticipant(turnTaking.moderator, ['turnTaking', 'moderator']);
  const facilitator = record(turnTaking.facilitator).participant;
  const facilitatorPath = ['turnTaking', 'facilitator', 'participant'];
  expectParticipant(facilitator, facilitatorPath);
  if (typeof facilitator === 'string' && participants.some((p) => p.id === facilitator && p.kind !== 'ai')) {
    report(facilitatorPath, `the facilitator must be an AI participant; "${facilitator}" is human`);
  }

  const closing = record(scene.closing).speaker;
  expectParticipant(closing, ['closing', 'speaker']);
  if (typeof closing === 'string' && participants.some((p) => p.id === closing && p.kind !== 'ai')) {
    report(['closing', 'speaker'], `the closing line is a persona's; "${closing}" is human`);
  }

  const expectSnippet = expectOneOf('snippet', snippetIds);
  snippets.forEach((s, i) => {
    const at = ['snippets', i];
    list(s.participants).forEach((m, j) => expectParticipant(m, [...at, 'participants', j]));
    expectParticipant(s.initiator, [...at, 'initiator']);
    const members = Array.isArray(s.participants) ? texts(s.participants) : undefined;
    if (members && typeof s.initiator === 'string' && participantIds.includes(s.initiator) && !members.includes(s.initiator)) {
      report([...at, 'initiator'], `initiator "${s.initiator}" is not among this snippet's participants (${known(members)})`);
    }
    list(s.lines).forEach((line, j) => {
      expectParticipant(record(line).speaker, [...at, 'lines', j, 'speaker']);
      expectParticipant(record(line).to, [...at, 'lines', j, 'to']);
    });
    list(s.interruptions).forEach((rule, j) => {
      expectParticipant(record(rule).from, [...at, 'interruptions', j, 'from']);
      expectParticipant(record(rule).to, [...at, 'interruptions', j, 'to']);
    });
    list(s.backchannels).forEach((rule, j) => expectOneOf('participant', participantIds, ['*'])(record(rule).from, [...at, 'backchannels', j, 'from']));
    checkRoles(record(s.roles), [...at, 'roles']);
    expectSnippet(s.next, [...at, 'next']);
  });

  return findings;
};
