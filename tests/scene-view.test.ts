/**
 * What a client is shown of a scene's contents (shared/scene/view.ts): an uploaded file goes along
 * with the content it belongs to, so the room's and the replay's boards can show its image, and
 * only to those who may read that content.
 */
import { describe, expect, it } from 'vitest';
import { loadScene } from '../server/scene/load';
import { sceneViewOf } from '../shared/scene/view';

describe('the contents a client is shown', () => {
  it("carries a content's uploaded file, and only to those who may read the content", async () => {
    const scene = await loadScene('scenes/team-standup.yaml');
    const withFiles = {
      ...scene,
      contents: [
        { id: 'poster', kind: 'poster' as const, title: 'Pay bands', summary: '', sections: [], owner: 'public', file: 'team-standup/AAAAAAAAAAAAAAAAAAAAAAAA.png' },
        { id: 'notes', kind: 'document' as const, title: 'Our notes', summary: '', sections: [], owner: 'team', file: 'team-standup/BBBBBBBBBBBBBBBBBBBBBBBB.png' },
        { id: 'agenda', kind: 'document' as const, title: 'Agenda', summary: 'Today', sections: [], owner: 'public' },
      ],
    };
    expect(sceneViewOf(withFiles, () => true).contents.map((c) => [c.id, c.file])).toEqual([
      ['poster', 'team-standup/AAAAAAAAAAAAAAAAAAAAAAAA.png'],
      ['notes', 'team-standup/BBBBBBBBBBBBBBBBBBBBBBBB.png'],
      ['agenda', undefined],
    ]);
    // A content without a file has no `file` key at all: the snapshot stays as it was for scenes without uploads.
    expect(Object.keys(sceneViewOf(withFiles, () => true).contents[2]!)).not.toContain('file');
    expect(sceneViewOf(withFiles, () => false).contents.map((c) => c.file)).toEqual(['team-standup/AAAAAAAAAAAAAAAAAAAAAAAA.png', undefined]);
  });
});
