/**
 * What every part of the open scene's editor reads: the draft, its problems by path, the avatars
 * this server has, and `edit` (every change goes through it, so undo covers it). Provided once by
 * the scene editor; read with `useEditor()`.
 *
 * ```tsx
 * const { draft, edit, problemsAt } = useEditor();
 * edit(setAt(['title'], 'Salary talk'), 'title');
 * ```
 */
import { createContext, useContext } from 'react';
import type { AvatarEntry } from './avatars';
import type { Draft, Edit } from './model';
import type { FieldProblem } from '../../../shared/scene/check';

export interface EditorContext {
  draft: Draft;
  problems: readonly FieldProblem[];
  /** The problems at exactly `path` (`snippets[1].turns`). */
  problemsAt: (path: string) => FieldProblem[];
  /** The problems at `prefix` or inside it (a node's, a participant's). */
  problemsUnder: (prefix: string) => FieldProblem[];
  /** Applies an edit; edits with the same `merge` key in a row are one step of undo (typing in a field). */
  edit: (edit: Edit, merge?: string) => void;
  avatars: readonly AvatarEntry[];
  /** The admin token, for the uploads of this scene's contents. */
  admin: string;
  /** The scene's id on the server (a copy's, once a shipped scene was saved as one). */
  scene: string;
}

export const Editor = createContext<EditorContext | null>(null);

export const useEditor = (): EditorContext => {
  const context = useContext(Editor);
  if (!context) throw new Error('useEditor outside the scene editor');
  return context;
};

/** The problems of `problems` at `prefix` or inside it: `snippets[1]` holds `snippets[1].turns`, not `snippets[10]`. */
export const under = (problems: readonly FieldProblem[], prefix: string): FieldProblem[] =>
  problems.filter((p) => p.path === prefix || p.path.startsWith(`${prefix}.`) || p.path.startsWith(`${prefix}[`));
