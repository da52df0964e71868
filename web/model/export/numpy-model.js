// The tiny attention-only model's forward pass as Python, written once for the two scripts that
// rebuild it: the stepper's numpy export of kind "model" (numpy-script.js) and the training page's
// take-away script (../training-export.js). Its layer is the exported multi_head_attention, the
// one every chapter's script defines (numpy-functions.js).

import { SOFTMAX, attentionMask, multiHeadAttention, selfAttention } from './numpy-functions.js';

const MODEL_FORWARD = `def model_forward(E, P, layers, W_U):
    """The attention-only model: x_0 = E + P (each token's row of W_E plus each position's row
    of W_P), each layer's causal multi-head attention added to the residual stream, then the
    logits. layers: a dict a layer, "W_Qs", "W_Ks", "W_Vs" (a matrix per head) and "W_O".
    Returns x_0, each layer's stages (its input x and its residual too) and the logits."""
    T = len(E)
    embedded = x = E + P                   # x_0 (T, d_model)
    mask = attention_mask(T, T, causal=True)
    passes = []
    for w in layers:
        output, stages = multi_head_attention(x, x, w["W_Qs"], w["W_Ks"], w["W_Vs"], w["W_O"], mask, scale=True)
        stages["x"] = x
        stages["residual"] = x = x + output  # R_{l+1} = R_l + MultiHead(R_l)
        passes.append(stages)
    return embedded, passes, x @ W_U       # logits (T, vocab)`;

/** The Python functions that run the model: model_forward(E, P, layers, W_U) → (x_0, each layer's
 *  stages, logits) and the exported functions it calls, in the order a script defines them. */
export const modelFunctions = () => [
  SOFTMAX,
  attentionMask(),
  selfAttention(),
  multiHeadAttention(false),
  MODEL_FORWARD,
];
