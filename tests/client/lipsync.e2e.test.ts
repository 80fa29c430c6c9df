/**
 * Lip sync for humans (issue 28, part 4), in headless Chromium against the real server with a
 * Whisper-compatible transcriber (a local fake): Casey's screen shows Riley's avatar moving its
 * mouth from Riley's voice, read from the audio itself (client/src/audio/voice-visemes.ts), on
 * both ways a voice arrives:
 * - the server's relay: Riley's microphone (a recorded "Hello there. … How are you doing today?"
 *   played once in her page) reaches Casey as `voice` messages on the socket;
 * - a live track, as LiveKit delivers a remote microphone: a vowel-like voice played as Riley's
 *   track on Casey's page (`__room.playTrack`), since no LiveKit server runs here.
 * The mouth's opening (`__room.mouthOpen`) is sampled every 50 ms: it rises while the voice plays
 * and falls once it stops. Nothing may be thrown, and nothing may load from outside the origin.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { api } from '../server/helpers';
import { voiceSuite } from './pages';
import { screenshot, shapeViewport, testLink } from './browser';

const speech = fileURLToPath(new URL('../fixtures/audio/hello-pause.wav', import.meta.url));
/** The mouth counts as open above this (a full "aa" is 1), and as shut below `shut`. */
const open = 0.2;
const shut = 0.05;

const thrown: string[] = [];
const offOrigin: string[] = [];

const voice = voiceSuite(' Hello there.');

/** A person's page; their microphone plays the recording once (`speaks`) or stays silent. */
const enter = async (link: string, speaks: boolean): Promise<Page> => {
  // The mouth is read from the page's state, not its pixels: two rooms drawn in software WebGL, small unless screenshots are taken.
  const page = await voice.browser.newPage({ viewport: shapeViewport() });
  await page.addInitScript(([wav, speaks]: [string, boolean]) => {
    navigator.mediaDevices.getUserMedia = async () => {
      const context = new AudioContext();
      const out = context.createMediaStreamDestination();
      if (speaks) {
        const source = context.createBufferSource();
        source.buffer = await context.decodeAudioData(Uint8Array.from(atob(wav), (c) => c.charCodeAt(0)).buffer);
        source.connect(out);
        source.start();
      }
      return out.stream;
    };
  }, [readFileSync(speech).toString('base64'), speaks] as [string, boolean]);
  page.on('pageerror', (error) => thrown.push(error.message));
  const leaves = (address: string) => {
    const url = new URL(address);
    if (/^(https?|wss?):$/.test(url.protocol) && url.host !== `localhost:${voice.server.port}`) offOrigin.push(address);
  };
  page.on('request', (request) => leaves(request.url()));
  page.on('websocket', (socket) => leaves(socket.url()));
  // Mouths are measured frame by frame: every frame the page can draw, no cap.
  await page.goto(testLink(link, voice.server.port, { fps: null }));
  await page.waitForFunction(() => window.__room !== undefined && (window.__room.state() as { connected: boolean }).connected, undefined, { timeout: 60_000 });
  return page;
};

/**
 * Watches `who`'s mouth on `page` every 50 ms until their voice has been heard and then silent for
 * 4 s (software WebGL on a loaded machine may draw a frame a second, and the mouth closes over a
 * few): the widest it opened while they were heard (or within a second after), and the widest in
 * the last 0.5 s.
 */
const watchMouth = (page: Page, who: string, timeoutMs: number) =>
  page.evaluate(
    ([who, timeoutMs]) =>
      new Promise<{ whileHeard: number; after: number; heardMs: number }>((resolve) => {
        const room = window.__room!;
        let whileHeard = 0;
        let heardMs = 0;
        let quietSince = -1;
        const recent: { at: number; open: number }[] = [];
        const start = performance.now();
        const timer = setInterval(() => {
          const now = performance.now();
          const mouth = room.mouthOpen(who);
          const heard = room.speaking() === who;
          if (heard) {
            heardMs += 50;
            quietSince = -1;
          } else if (heardMs > 0 && quietSince < 0) quietSince = now;
          // Frames lag the audio clock here: the mouth a frame shows up to a second after the voice counts too.
          if (heardMs > 0 && (quietSince < 0 || now - quietSince < 1000)) whileHeard = Math.max(whileHeard, mouth);
          recent.push({ at: now, open: mouth });
          while (recent[0]!.at < now - 500) recent.shift();
          if ((quietSince >= 0 && now - quietSince > 4000) || now - start > timeoutMs) {
            clearInterval(timer);
            resolve({ whileHeard, after: Math.max(...recent.map((r) => r.open)), heardMs });
          }
        }, 50);
      }),
    [who, timeoutMs] as const,
  );

describe("a human's avatar speaks with their voice", () => {
  it('opens and closes with their voice relayed by the server, and with their live track', async () => {
    const res = await api(voice.server, '/api/sessions', { method: 'POST', body: { scene: 'sprint-retro', pace: 'realtime' } });
    const session = (await res.json()) as { links: Record<string, string> };
    const casey = await enter(session.links.casey!, false);
    const riley = await enter(session.links.riley!, true);
    for (const page of [casey, riley]) await page.waitForFunction(() => window.__room!.stats().avatars === 4, undefined, { timeout: 180_000 });
    await riley.getByLabel('microphone mode').waitFor({ timeout: 180_000 });

    // The relay: Riley opens her microphone and says her piece.
    const relayed = watchMouth(casey, 'riley', 120_000);
    await riley.getByLabel('microphone mode').selectOption('open');
    const fromRelay = await relayed;
    expect(fromRelay.heardMs, "Riley's voice heard on Casey's page (ms, sampled)").toBeGreaterThan(300);
    expect(fromRelay.whileHeard, "Riley's mouth while her relayed voice played").toBeGreaterThan(open);
    expect(fromRelay.after, 'and once it stopped').toBeLessThan(shut);
    await screenshot(casey, 'lipsync-relay');
    await riley.getByLabel('microphone mode').selectOption('off');

    // A live track (LiveKit's way): two seconds of "ah" as Riley's.
    const tracked = watchMouth(casey, 'riley', 60_000);
    expect(await casey.evaluate(() => window.__room!.playTrack('riley', 2))).toBe(true);
    const fromTrack = await tracked;
    expect(fromTrack.heardMs, "Riley's track heard on Casey's page (ms, sampled)").toBeGreaterThan(500);
    expect(fromTrack.whileHeard, "Riley's mouth while her track played").toBeGreaterThan(open);
    expect(fromTrack.after, 'and once it stopped').toBeLessThan(shut);

    expect(thrown, 'errors thrown in the pages').toEqual([]);
    expect(offOrigin, 'requests that left the origin').toEqual([]);
  }, 400_000);
});
