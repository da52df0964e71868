// The later script's entry (see ./load.js): its exports as one global.
import { exportMenuData } from '../app/export-data.js';

globalThis.attentionStepperLater = Object.freeze({ exportMenuData });
