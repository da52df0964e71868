// One headless Chromium for several test processes: prints its WebSocket endpoint (for
// connectChromium in chromium.mjs, through ATTENTION_CHROMIUM) and serves until it is stopped.
import { chromium } from 'playwright-core';
import { CHROMIUM_OPTIONS } from './chromium.mjs';

const server = await chromium.launchServer(CHROMIUM_OPTIONS);
console.log(server.wsEndpoint());
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close().then(() => process.exit(0)));
