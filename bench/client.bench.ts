/**
 * The room in the browser (headless Chromium, software WebGL), a ten-avatar room seen by the
 * instructor, who sees every avatar:
 *
 * - `client.avatar_update_ms_per_frame`: script time of all avatar updates (lip sync, gaze,
 *   blink, idle animation) per frame, averaged over a second, median of the samples;
 * - `client.draw_calls`: draw calls of one frame (environment, board, every avatar and name tag);
 * - `client.triangles`, `client.fps` (software rendering: not what a headset's GPU does).
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { parse } from 'yaml';
import { createApp } from '../server/api/app';
import { staticFiles } from '../server/api/static';
import { createTokens } from '../server/auth/tokens';
import { loadConfig } from '../server/config';
import { createScriptedGenerator } from '../server/providers/generator/scripted';
import { createRooms } from '../server/rooms/rooms';
import { Scene, type LoadedScene } from '../shared/scene/schema';
import { openStore } from '../server/store/store';
import { buildClient, launchBrowser } from '../tests/client/browser';
import { tempDir } from '../tests/server/helpers';
import { percentile, round, type BenchResult } from './timing';

const people = Array.from({ length: 10 }, (_, i) => (i === 0 ? `  - { id: p0, kind: human, name: Person 0, avatar: avatar-01 }` : `  - { id: p${i}, kind: ai, name: Person ${i}, avatar: avatar-${String(((i % 12) + 1)).padStart(2, '0')}, persona: { backstory: A colleague. } }`));
const scene: LoadedScene = {
  id: 'bench-ten',
  ...Scene.parse(parse(`title: Ten people\ntopic: the plan\nformation: table\nparticipants:\n${people.join('\n')}\nturnTaking: { policy: round-robin }\nsnippets: [{ id: a, initiator: p1, turns: 400 }]\n`)),
};

export default async function clientBench(): Promise<BenchResult[]> {
  await buildClient();
  const dataDir = tempDir();
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: 'bench-admin-token-0123456789', LOG_LEVEL: 'silent', SYNTHESIZER: 'none' });
  const store = openStore(dataDir);
  const rooms = createRooms({ store, scenes: new Map([[scene.id, scene]]), generator: () => createScriptedGenerator() });
  const tokens = createTokens(randomBytes(32).toString('base64url'));
  const { app, injectWebSocket } = createApp({ config, rooms, store, tokens, version: 'bench', scenes: [scene] });
  app.route('/', staticFiles().app);
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  injectWebSocket(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  const room = rooms.create(scene.id, { pace: 'realtime', standIns: true });
  const token = tokens.sign({ session: room.id, participant: null, role: 'observer' }, 3_600_000, Date.now());
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`http://localhost:${port}/room/${room.id}?token=${encodeURIComponent(token)}&test=1`);
    await page.waitForFunction(() => window.__room?.stats().avatars === 10, undefined, { timeout: 60_000 });
    const samples = await page.evaluate(async () => {
      const out: { avatarMs: number; drawCalls: number; triangles: number; fps: number }[] = [];
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 1100));
        out.push(window.__room!.stats());
      }
      return out;
    });
    return [
      { name: 'client.avatar_update_ms_per_frame', value: round(percentile(samples.map((s) => s.avatarMs), 50), 3), unit: 'ms' },
      { name: 'client.draw_calls', value: Math.max(...samples.map((s) => s.drawCalls)), unit: 'calls' },
      { name: 'client.triangles', value: Math.max(...samples.map((s) => s.triangles)), unit: 'triangles' },
      { name: 'client.fps_swiftshader', value: round(percentile(samples.map((s) => s.fps), 50), 1), unit: 'fps' },
    ];
  } finally {
    await browser.close();
    if (!room.ended()) room.conversation.send({ type: 'end' });
    server.close();
    store.close();
  }
}
