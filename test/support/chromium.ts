import { access } from 'node:fs/promises';
import { type Browser, chromium } from 'playwright-core';
import { waitLimit } from './wait-limit.ts';

/** Debian's chromium, which `.ci/run` installs; CHROMIUM_PATH points elsewhere. */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium for the browser tests, with everything that would reach out to Google
 * switched off (this machine's network is closed, and a test must not depend on it).
 */
export async function launchChromium(): Promise<Browser> {
  try {
    await access(CHROMIUM_PATH);
  } catch {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: install Debian's (apt-get install chromium), as .ci/run does, or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: waitLimit(30_000),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
