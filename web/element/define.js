// Defines <attention-stepper> once (a page may load the bundle twice) and exports its class.
import { AttentionStepper } from './attention-stepper.js';

if (!customElements.get('attention-stepper')) customElements.define('attention-stepper', AttentionStepper);

export { AttentionStepper };
