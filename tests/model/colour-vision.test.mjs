// The palettes as readers with colour-vision deficiencies see them: every fill simulated for
// protanopia, deuteranopia and tritanopia (Machado, Oliveira and Fernandes 2009, severity 1, in
// linear RGB), compared in CIELAB (ΔE*ab). What must survive: a value and its negative stay
// apart on the diverging ramp; a larger |value| is always further in lightness from 0's colour;
// the sequential ramp's lightness moves one way from 0 to its top; the heads' colours stay apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fillRgb } from '../../web/model/palette.js';
import { THEMES } from '../../web/theme.js';

const SIMULATIONS = {
  none: null,
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  tritanopia: [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.3039],
  ],
};

const linear = (c) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
const channels = (packed) => [(packed >> 16) & 255, (packed >> 8) & 255, packed & 255];

// sRGB channels → CIELAB (D65), as the simulation's reader sees them.
function seen(rgb, simulation) {
  const l = rgb.map(linear);
  const [r, g, b] = (simulation ? simulation.map((row) => row[0] * l[0] + row[1] * l[1] + row[2] * l[2]) : l).map((v) =>
    Math.min(1, Math.max(0, v)),
  );
  const xyz = [
    (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
    0.2126 * r + 0.7152 * g + 0.0722 * b,
    (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
  ];
  const [fx, fy, fz] = xyz.map((t) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116));
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}
const deltaE = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

for (const theme of ['light', 'dark']) {
  for (const [name, simulation] of Object.entries(SIMULATIONS)) {
    const diverging = (v) => seen(channels(fillRgb(v, 1, theme)), simulation);
    const sequential = (v) => seen(channels(fillRgb(v, 1, theme, true)), simulation);

    test(`${theme}, ${name}: a value and its negative stay apart; a larger |value| lies further from 0`, () => {
      const zero = diverging(0)[0];
      let last = 0;
      for (const x of [0.25, 0.5, 0.75, 1]) {
        assert.ok(deltaE(diverging(-x), diverging(x)) >= 25, `±${x}: ΔE ${deltaE(diverging(-x), diverging(x))}`);
        const away = Math.min(Math.abs(diverging(-x)[0] - zero), Math.abs(diverging(x)[0] - zero));
        assert.ok(away > last + 5, `|${x}|: lightness ${away} from 0's`);
        last = away;
      }
    });

    test(`${theme}, ${name}: the sequential ramp's lightness moves one way, 0 to its top`, () => {
      const lightness = [0, 0.25, 0.5, 0.75, 1].map((v) => sequential(v)[0]);
      const sign = Math.sign(lightness[4] - lightness[0]);
      for (let i = 1; i < lightness.length; i += 1)
        assert.ok(sign * (lightness[i] - lightness[i - 1]) >= 5, `${lightness.map(Math.round)}`);
    });

    test(`${theme}, ${name}: the head colours stay apart (the first four well apart)`, () => {
      const heads = THEMES[theme].heads.map((hex) => seen(channels(parseInt(hex.slice(1), 16)), simulation));
      for (let i = 0; i < heads.length; i += 1)
        for (let j = i + 1; j < heads.length; j += 1) {
          const d = deltaE(heads[i], heads[j]);
          assert.ok(d >= (j < 4 ? 15 : 8), `heads ${i} and ${j}: ΔE ${d.toFixed(1)}`);
        }
    });
  }
}
