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

export const launchChromium = () => chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
