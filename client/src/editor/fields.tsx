/**
 * The form controls of the editor, each bound to one path of the draft: it shows the value there,
 * writes an edit when changed (typing in one field is one undo step), and shows the live check's
 * problems at that path under itself. An emptied optional field is removed, not written empty.
 *
 * ```tsx
 * <TextField label="Title" path={['title']} />
 * <NumberField label="Turns" path={['snippets', 0, 'turns']} />
 * <ChoiceField label="Formation" path={['formation']} options={formations} />
 * <LinesField label="Goals" path={['participants', 1, 'persona', 'goals']} />
 * ```
 */
import { useEffect, useId, useState, type ReactNode } from 'react';
import { formatPath } from '../../../shared/scene/check';
import { useEditor } from './context';
import { getAt, setAt, type Path } from './model';

interface FieldProps {
  label: string;
  path: Path;
  /** Removed from the scene when emptied (the schema's optional and defaulted fields). */
  optional?: boolean;
  hint?: string;
}

/** The label, the control and the problems at its path. */
const Frame = ({ label, path, hint, children, id }: { label: string; path: Path; hint?: string | undefined; children: ReactNode; id: string }) => {
  const { problemsAt } = useEditor();
  const problems = problemsAt(formatPath(path));
  return (
    <div className={`field${problems.length > 0 ? ' invalid' : ''}`} data-path={formatPath(path)}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && <small className="hint">{hint}</small>}
      {problems.map((p) => (
        <small key={p.message} className="problem" id={`${id}-problem`}>
          {p.message}
        </small>
      ))}
    </div>
  );
};

const useBound = (path: Path) => {
  const { draft, edit, problemsAt } = useEditor();
  const key = formatPath(path);
  return {
    value: getAt(draft, path),
    set: (value: unknown) => edit(setAt(path, value), key),
    invalid: problemsAt(key).length > 0,
  };
};

/** An inspector's title, with the button that removes what it inspects. */
export const InspectorHead = ({ title, onRemove }: { title: string; onRemove: () => void }) => (
  <header className="inspector-head">
    <h2>{title}</h2>
    <button className="danger" onClick={onRemove}>
      Remove
    </button>
  </header>
);

export const TextField = ({ label, path, optional, hint, long }: FieldProps & { long?: boolean }) => {
  const id = useId();
  const { value, set, invalid } = useBound(path);
  const text = typeof value === 'string' ? value : '';
  const change = (next: string) => set(next === '' && optional ? undefined : next);
  const common = { id, value: text, 'aria-invalid': invalid, 'aria-describedby': invalid ? `${id}-problem` : undefined };
  return (
    <Frame label={label} path={path} hint={hint} id={id}>
      {long ? <textarea {...common} rows={3} onChange={(e) => change(e.target.value)} /> : <input {...common} onChange={(e) => change(e.target.value)} />}
    </Frame>
  );
};

export const NumberField = ({ label, path, optional, hint, step, min, max }: FieldProps & { step?: number; min?: number; max?: number }) => {
  const id = useId();
  const { value, set, invalid } = useBound(path);
  // What is typed stays as typed ("0." on the way to "0.5"); the scene gets the number it reads as.
  const [text, setText] = useState(typeof value === 'number' ? String(value) : '');
  useEffect(() => {
    if (Number(text) !== value && !(text === '' && value === undefined)) setText(typeof value === 'number' ? String(value) : '');
  }, [value]); // eslint-disable-line react-hooks/exhaustive-deps
  return (
    <Frame label={label} path={path} hint={hint} id={id}>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        step={step ?? 1}
        min={min}
        max={max}
        value={text}
        aria-invalid={invalid}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value === '') set(optional ? undefined : null);
          else if (Number.isFinite(e.target.valueAsNumber)) set(e.target.valueAsNumber);
        }}
      />
    </Frame>
  );
};

/** `unset` names what an optional field means when left out (its schema default: "neutral (default)"). */
export const ChoiceField = ({ label, path, optional, hint, options, labels, unset }: FieldProps & { options: readonly string[]; labels?: Record<string, string>; unset?: string }) => {
  const id = useId();
  const { value, set, invalid } = useBound(path);
  const current = typeof value === 'string' ? value : '';
  return (
    <Frame label={label} path={path} hint={hint} id={id}>
      <select id={id} value={current} aria-invalid={invalid} onChange={(e) => set(e.target.value === '' && optional ? undefined : e.target.value)}>
        {(optional || !options.includes(current)) && <option value="">{optional ? (unset ?? '(not set)') : '(choose)'}</option>}
        {options.map((o) => (
          <option key={o} value={o}>
            {labels?.[o] ?? o}
          </option>
        ))}
      </select>
    </Frame>
  );
};

/** A yes or no; left out of the scene while it says what the schema's default says (`fallback`). */
export const CheckField = ({ label, path, hint, fallback = false }: FieldProps & { fallback?: boolean }) => {
  const id = useId();
  const { value, set } = useBound(path);
  return (
    <Frame label={label} path={path} hint={hint} id={id}>
      <input id={id} type="checkbox" checked={typeof value === 'boolean' ? value : fallback} onChange={(e) => set(e.target.checked === fallback ? undefined : e.target.checked)} />
    </Frame>
  );
};

/** A list of texts, one per line; an empty list is removed (every such list defaults to empty). */
export const LinesField = ({ label, path, hint, rows = 3 }: FieldProps & { rows?: number }) => {
  const id = useId();
  const { value, set, invalid } = useBound(path);
  const items = Array.isArray(value) ? value.map(String) : [];
  // The text as typed, so a new empty line can be started; the scene gets its non-empty lines.
  const [text, setText] = useState(items.join('\n'));
  useEffect(() => {
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    if (lines.join('\n') !== items.join('\n')) setText(items.join('\n'));
  }, [items.join('\n')]); // eslint-disable-line react-hooks/exhaustive-deps
  return (
    <Frame label={label} path={path} hint={hint ?? 'one per line'} id={id}>
      <textarea
        id={id}
        rows={rows}
        value={text}
        aria-invalid={invalid}
        onChange={(e) => {
          setText(e.target.value);
          const lines = e.target.value.split('\n').filter((l) => l.trim() !== '');
          set(lines.length > 0 ? lines : undefined);
        }}
      />
    </Frame>
  );
};

/** Some of `options`, as checkboxes: party members, a snippet's cast, a stand-in's intents. */
export const PickField = ({ label, path, hint, options, labels, optional }: FieldProps & { options: readonly string[]; labels?: Record<string, string> }) => {
  const id = useId();
  const { value, set } = useBound(path);
  const chosen = Array.isArray(value) ? value.map(String) : [];
  const toggle = (option: string, on: boolean) => {
    const next = on ? options.filter((o) => o === option || chosen.includes(o)) : chosen.filter((o) => o !== option);
    set(next.length === 0 && optional ? undefined : next);
  };
  return (
    <Frame label={label} path={path} hint={hint} id={id}>
      <span className="picks" id={id} role="group" aria-label={label}>
        {options.map((o) => (
          <label key={o} className="pick">
            <input type="checkbox" checked={chosen.includes(o)} onChange={(e) => toggle(o, e.target.checked)} /> {labels?.[o] ?? o}
          </label>
        ))}
      </span>
    </Frame>
  );
};
