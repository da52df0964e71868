// Headless Debian Chromium as the tests and the bench launch it, and the strict Content
// Security Policy they serve the page under.
import { chromium } from 'playwright-core';

export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

// No GPU, no QUIC, nothing fetched in the background: loads time only the page.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const CHROMIUM_OPTIONS = { executablePath: '/usr/bin/chromium', args: ARGS };
export const launchChromium = () => chromium.launch(CHROMIUM_OPTIONS);

// The browser tests' Chromium: the one scripts/test.sh launched for every test file (its endpoint in
// ATTENTION_CHROMIUM; each file's contexts stay its own), else one of this process's own. A launch
// costs a file 1.4 CPU-seconds more than connecting.
export const connectChromium = () =>
  process.env.ATTENTION_CHROMIUM ? chromium.connect(process.env.ATTENTION_CHROMIUM) : launchChromium();
