/**
 * Writes `scenes/scene.schema.json`, the JSON Schema editors use to complete and check scene files
 * (each scene starts with `# yaml-language-server: $schema=./scene.schema.json`).
 *
 *   npm run scene:schema
 *
 * Generated from the zod schema in `shared/scene/schema.ts`, never edited by hand; a test fails
 * when the committed file differs from what this produces.
 */
import { writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { Scene } from '../../shared/scene/schema';

export const schemaFile = fileURLToPath(new URL('../../scenes/scene.schema.json', import.meta.url));

/**
 * The schema file's text. `io: 'input'` describes what authors write, so defaulted fields are
 * optional; draft-07 because it is the draft every YAML editor plugin understands.
 */
export const renderSceneSchema = (): string => {
  const { $schema, ...schema } = z.toJSONSchema(Scene, { io: 'input', target: 'draft-07' });
  const document = {
    $schema,
    $id: 'urn:rehearsal-room:scene',
    title: 'Rehearsal room scene',
    description: 'A scene for the rehearsal room: topic, formation, contents, participants, parties, turn-taking and snippets. Check with `npm run -s scene:check -- <file>`.',
    ...schema,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await writeFile(schemaFile, renderSceneSchema());
  console.log(`wrote ${relative(process.cwd(), schemaFile)}`);
}
