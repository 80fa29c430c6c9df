/**
 * A headset wearer's arms as another participant sees them (issue 28, item 2): Riley, in VR on a
 * Quest 3 emulated by IWER, raises her right controller in front of her face; on Casey's desktop
 * page her avatar's right hand goes up to it (her pose, relayed, reached for by the arm's IK),
 * comes down with the controller, and goes back to the seated idle once the controller is no
 * longer tracked. On her own page, in the headset, her avatar's hand is on her controller as well
 * (what she sees looking down). Both pages are small (software WebGL on a shared CPU); Casey's view is taken
 * at 1280×720 for people to look at the arm.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api } from '../server/helpers';
import { screenshot, testLink } from './browser';
import { browserSuite } from './pages';

// Text only: nobody talks here, so no voices to synthesize.
const suite = browserSuite({ env: { SYNTHESIZER: 'none' } });

type Vec3 = [number, number, number];
/** WebXR's grip of a right hand raised palm forward, fingers up, in a frame looking down -z: -y (fingers) up, -z (thumb side) to the left. */
const palmForward: [number, number, number, number] = [Math.SQRT1_2, 0, Math.SQRT1_2, 0];
/** A hand resting on a thigh holding a controller: its handle (-z) tilted 45° up from ahead, the fingers ahead and down. */
const resting: [number, number, number, number] = [Math.sin(Math.PI / 8), 0, 0, Math.cos(Math.PI / 8)];

const openAt640 = async (link: string, query = ''): Promise<Page> => {
  const page = await suite.open();
  await page.setViewportSize({ width: 640, height: 360 });
  await page.goto(testLink(link, suite.server.port) + query);
  await page.waitForFunction(() => window.__room !== undefined && window.__room.stats().avatars === 4, undefined, { timeout: 90_000 });
  return page;
};

describe("a headset wearer's arms, seen by everyone else", () => {
  it("raises Riley's avatar's right hand on Casey's screen as her controller rises to her face, and gives it back to the idle once the controller is gone", async () => {
    const res = await api(suite.server, '/api/sessions', { method: 'POST', body: { scene: 'sprint-retro', pace: 'realtime', standIns: true } });
    const { links } = (await res.json()) as { links: Record<string, string> };
    const riley = await openAt640(links.riley!, '&xr=emulate');
    const casey = await openAt640(links.casey!);
    const wrist = () => casey.evaluate(() => window.__room!.wrist('riley', 'right')) as Promise<Vec3>;
    const head = (await casey.evaluate(() => window.__room!.head('riley')))!;

    // Before the headset: the idle holds Riley's hand in her lap, well below her head.
    const idle = await wrist();
    expect(head[1] - idle[1], 'idle hand below the head (m)').toBeGreaterThan(0.4);

    expect(await riley.evaluate(() => window.__room!.enterVR())).toBe(true);
    await riley.waitForFunction(() => window.__room!.vrFrames() > 10, undefined, { timeout: 60_000 });

    // Her left hand rests on her lap all along (the emulator holds it ahead of her chest otherwise).
    expect(await riley.evaluate(([t]) => window.__room!.hold('left', [-0.15, -0.65, -0.25], t), [resting] as const)).toBe(true);

    // The controller 30 cm in front of her eyes, a little to the right, palm forward: her avatar's
    // hand comes up to her face on Casey's screen, in front of it.
    expect(await riley.evaluate(([t]) => window.__room!.hold('right', [0.08, -0.05, -0.3], t), [palmForward] as const)).toBe(true);
    await expect
      .poll(async () => {
        const [, y] = await wrist();
        return Math.abs(y - head[1]) < 0.15;
      }, { timeout: 30_000, interval: 200 })
      .toBe(true);
    await casey.setViewportSize({ width: 1280, height: 720 });
    await casey.waitForTimeout(1000);
    await screenshot(casey, 'xr-arm-raised');
    await casey.setViewportSize({ width: 640, height: 360 });
    const raised = await wrist();
    expect(raised[1] - idle[1], 'the hand raised (m)').toBeGreaterThan(0.35);
    // In her own headset, looking down at her avatar, its hand is on her controller too.
    const own = () => riley.evaluate(() => window.__room!.wrist('riley', 'right')) as Promise<Vec3>;
    const ownHead = (await riley.evaluate(() => window.__room!.head('riley')))!;
    await expect.poll(async () => Math.abs((await own())[1] - ownHead[1]), { timeout: 30_000, interval: 200 }).toBeLessThan(0.15);
    const ownRaised = await own();
    const ownReach = Math.hypot(ownRaised[0] - ownHead[0], ownRaised[1] - ownHead[1], ownRaised[2] - ownHead[2]);
    expect(ownReach, `her own view's wrist ${ownRaised} from her head ${ownHead} (m)`).toBeGreaterThan(0.1);
    expect(ownReach, `her own view's wrist ${ownRaised} from her head ${ownHead} (m)`).toBeLessThan(0.45);
    const reach = Math.hypot(raised[0] - head[0], raised[1] - head[1], raised[2] - head[2]);
    // In front of the face, not in it: a hand raised 30 cm before the eyes (its wrist measured 0.40-0.41 m from the head's middle).
    expect(reach, `wrist ${raised} from the head ${head} (m)`).toBeGreaterThan(0.1);
    expect(reach, `wrist ${raised} from the head ${head} (m)`).toBeLessThan(0.45);

    // Lowered to her lap: the hand comes down with it, on both screens.
    await riley.evaluate(([t]) => window.__room!.hold('right', [0.15, -0.65, -0.25], t), [resting] as const);
    await expect.poll(async () => head[1] - (await wrist())[1], { timeout: 30_000, interval: 200 }).toBeGreaterThan(0.45);
    await expect.poll(async () => ownHead[1] - (await own())[1], { timeout: 30_000, interval: 200 }).toBeGreaterThan(0.45);
    await casey.setViewportSize({ width: 1280, height: 720 });
    await casey.waitForTimeout(1000);
    await screenshot(casey, 'xr-arm-lowered');
    await casey.setViewportSize({ width: 640, height: 360 });

    // Raised again, then the controller lost: no right hand in her poses, and the arm goes back to the idle.
    await riley.evaluate(([t]) => window.__room!.hold('right', [0.08, -0.05, -0.3], t), [palmForward] as const);
    await expect.poll(async () => Math.abs((await wrist())[1] - head[1]), { timeout: 30_000, interval: 200 }).toBeLessThan(0.15);
    expect(await riley.evaluate(() => window.__xr!.connect('right', false))).toBe(true);
    await expect
      .poll(async () => {
        const at = await wrist();
        return Math.hypot(at[0] - idle[0], at[1] - idle[1], at[2] - idle[2]);
      }, { timeout: 30_000, interval: 200 })
      .toBeLessThan(0.05);
  }, 400_000);
});
