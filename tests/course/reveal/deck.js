// The deck's own script (a file, so the deck also runs under a CSP without inline scripts).
// 1200 × 800: room for a stage of the stepper under a slide heading (README, reveal.js).
Reveal.initialize({ width: 1200, height: 800 });
