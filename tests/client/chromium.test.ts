/**
 * The browser the tests and benchmarks drive comes from npm, so it runs wherever `npm install`
 * ran; `CHROMIUM_PATH` picks another one, and a wrong one is a clear error, not a skipped test.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium, locateChromium } from '../../avatars/generator/chromium';

let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
});

describe('the headless Chromium', () => {
  it('comes from npm and renders WebGL2 with Web Audio', async () => {
    const { executable } = await locateChromium({});
    expect(executable).toMatch(/rehearsal-chromium-[\d.]+-\d+\/chromium$/);
    browser = await launchChromium();
    const page = await browser.newPage();
    await page.setContent('<canvas id="c"></canvas>');
    const abilities = await page.evaluate(() => {
      const gl = (document.getElementById('c') as HTMLCanvasElement).getContext('webgl2');
      return { webgl2: gl !== null && gl.getParameter(gl.VERSION).startsWith('WebGL 2.0'), audio: typeof AudioContext === 'function' };
    });
    expect(abilities).toEqual({ webgl2: true, audio: true });
  }, 120_000);

  it('uses the browser CHROMIUM_PATH names, and says so when it names nothing runnable', async () => {
    const { executable } = await locateChromium({});
    await expect(locateChromium({ CHROMIUM_PATH: executable })).resolves.toEqual({ executable, env: {} });
    await expect(locateChromium({ CHROMIUM_PATH: '/nowhere/chromium' })).rejects.toThrow('CHROMIUM_PATH is /nowhere/chromium, which is not an executable file');
  });
});
