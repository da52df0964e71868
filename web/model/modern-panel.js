// The Modern attention chapter's panel: for each change the trace's config has in force, the
// published models that use it with the numbers their configs give, a reference each, and what the
// engine measured of it in this run. Pure: the numbers are the trace's, formatted.

import { formatCell, formatPlain, formatSci } from './format.js';

// MLA's cache per token and layer, from the engine's config.kv.perToken: MLA, multi-head attention
// and each grouped-query split of the same heads (1 K/V head: multi-query).
function latentCache(config) {
  const { mla, mha, gqa } = config.kv.perToken;
  const times = (floats) => `${formatPlain(floats / mla)}\u00d7 MLA\u2019s`;
  return {
    headers: ['this layer caches per token', 'numbers', 'against MLA'],
    rows: [
      [`MLA: d_c + d_r = ${config.dLatent} + ${config.dRope}`, String(mla), '1\u00d7'],
      [`multi-head: h\u00b7(d_k + d_v), ${config.numHeads} K/V heads`, String(mha), times(mha)],
      ...gqa.map(({ kvHeads, floats }) => [
        `${kvHeads === 1 ? 'multi-query' : 'grouped-query'}: ${kvHeads} K/V head${kvHeads === 1 ? '' : 's'}`,
        String(floats),
        times(floats),
      ]),
      ['largest |\u0394| between the absorbed and the direct route', formatSci(config.absorbedDifference), ''],
    ],
  };
}

// Each change: whether the config has it, what it is, the models and where their numbers are set.
const CHANGES = [
  {
    id: 'mla',
    applies: (config) => config.kind === 'mla',
    title: 'Multi-head latent attention (MLA)',
    models: {
      headers: ['model', 'heads \u00d7 d_h', 'latent d_c', 'RoPE part d_r', 'layers', 'set in'],
      rows: [
        ['DeepSeek-V2 (236B)', '128 \u00d7 128', '512', '64', '60', 'its report, \u00a72.1 and \u00a73.1'],
        [
          'DeepSeek-V2-Lite (16B)',
          '16 \u00d7 128',
          '512',
          '64',
          '27',
          'config.json: kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim',
        ],
        [
          'DeepSeek-V3 (671B)',
          '128 \u00d7 128',
          '512',
          '64',
          '61',
          'config.json: kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim',
        ],
      ],
    },
    references: [
      'DeepSeek-AI (2024), \u201cDeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language ' +
        'Model\u201d, arXiv:2405.04434, \u00a72.1: low-rank key-value joint compression, decoupled RoPE, and ' +
        'the absorbed W_UK and W_UV.',
      'DeepSeek-AI (2024), \u201cDeepSeek-V3 Technical Report\u201d, arXiv:2412.19437, \u00a72.1.1: the same ' +
        'attention at 61 layers.',
    ],
    // The engine's cache sizes for these heads, and how far apart it found the two routes.
    measured: latentCache,
  },
  {
    id: 'softcap',
    applies: (config) => config.softcap !== null && config.softcap !== undefined,
    title: 'Logit soft-capping',
    models: {
      headers: ['model', 'attention logits capped at', 'final logits capped at', 'set in'],
      rows: [
        ['Gemma 2 (2B, 9B, 27B)', '50', '30', 'config.json: attn_logit_softcapping, final_logit_softcapping'],
        ['Grok-1 (314B)', '30, after \u00f7\u221a128 (its d_k)', 'none', 'model.py: max_attn_val'],
        ['Gemma 3', 'none', 'none', 'QK-norm instead (its report, \u00a72)'],
      ],
    },
    references: [
      'Gemma Team (2024), \u201cGemma 2: Improving Open Language Models at a Practical Size\u201d, arXiv:2408.00118, ' +
        '\u00a72: soft-capping of the attention and final logits.',
      'xAI (2024), the Grok-1 open release (github.com/xai-org/grok-1): model.py caps the attention logits at 30.',
      'Gemma Team (2025), \u201cGemma 3 Technical Report\u201d, arXiv:2503.19786, \u00a72: soft-capping replaced by ' +
        'QK-norm.',
    ],
    // The engine's softcapChange: per query head, the largest |Δ| the cap made in its weights.
    measured: (config) =>
      config.softcapChange && {
        headers: ['head', 'largest change the cap made to a weight'],
        rows: Array.from(config.softcapChange, (d, h) => [String(h), formatCell(d)]),
      },
  },
  {
    id: 'qkNorm',
    applies: (config) => Boolean(config.qkNorm),
    title: 'QK-norm',
    models: {
      headers: ['model', 'what is normalised', '\u03b5', 'set in'],
      rows: [
        [
          'Qwen3 (0.6B \u2026 235B-A22B)',
          'each head\u2019s q and k, d_k = 128 columns, before RoPE',
          '10\u207b\u2076',
          'modeling_qwen3.py: q_norm, k_norm; config.json: rms_norm_eps',
        ],
        [
          'Gemma 3 (1B \u2026 27B)',
          'each head\u2019s q and k, before RoPE',
          '10\u207b\u2076',
          'modeling_gemma3.py: q_norm, k_norm; config.json: rms_norm_eps',
        ],
        [
          'OLMo 2 (7B, 13B, 32B)',
          'the whole q and k, all heads at once (d_model columns)',
          '10\u207b\u2076',
          'modeling_olmo2.py: q_norm, k_norm; config.json: rms_norm_eps',
        ],
      ],
    },
    references: [
      'Alex Henry, Prudhvi Raj Dachapally, Shubham Pawar, Yuxuan Chen (2020), \u201cQuery-Key Normalization for ' +
        'Transformers\u201d, Findings of EMNLP 2020, arXiv:2010.04245.',
      'Mostafa Dehghani et al. (2023), \u201cScaling Vision Transformers to 22 Billion Parameters\u201d, ' +
        'arXiv:2302.05442, \u00a73.1: attention logits that grow without bound, fixed by normalising q and k.',
      'Qwen Team (2025), \u201cQwen3 Technical Report\u201d, arXiv:2505.09388, \u00a72: QK-norm in every ' +
        'attention layer.',
      'Gemma Team (2025), \u201cGemma 3 Technical Report\u201d, arXiv:2503.19786, \u00a72: QK-norm in place of ' +
        'Gemma 2\u2019s soft-capping.',
      'Team OLMo (2024), \u201c2 OLMo 2 Furious\u201d, arXiv:2501.00656, \u00a73: QK-norm for a stable training run.',
    ],
    // The engine's qkNormLargest and qkNormWithout: per query head, its largest |S̃| with the norm
    // and with the same q and k unnormalised; qkNormBound, the most the norm allows.
    measured: (config) =>
      config.qkNormLargest && {
        headers: ['head', 'largest |S\u0303| with QK-norm', 'the same q, k unnormalised', 'QK-norm\u2019s bound'],
        rows: Array.from(config.qkNormLargest, (d, h) => [
          String(h),
          formatCell(d),
          formatCell(config.qkNormWithout[h]),
          formatCell(config.qkNormBound),
        ]),
      },
  },
  {
    id: 'sinks',
    applies: (config) => Boolean(config.sinks),
    title: 'Attention sinks',
    models: {
      headers: ['model', 'sink', 'set in'],
      rows: [
        [
          'gpt-oss-20b, gpt-oss-120b',
          'a learned logit \u03b6 per head, in every layer',
          'the attention\u2019s sinks parameter',
        ],
        ['StreamingLLM on Llama 2, MPT, Falcon, Pythia', 'the first 4 tokens kept in the cache as sinks', 'its cache'],
        ['Most trained models without one', 'a token made into a sink, often the first', 'nowhere: learned'],
      ],
    },
    references: [
      'OpenAI (2025), \u201cgpt-oss-120b & gpt-oss-20b Model Card\u201d: a learned bias per head in the ' +
        'softmax\u2019s denominator, so that a head can pay no attention.',
      'Guangxuan Xiao, Yuandong Tian, Beidi Chen, Song Han, Mike Lewis (2023), \u201cEfficient Streaming Language ' +
        'Models with Attention Sinks\u201d, arXiv:2309.17453 (ICLR 2024).',
      'Evan Miller (2023), \u201cAttention Is Off By One\u201d (blog post): a softmax whose row may sum to less ' +
        'than 1.',
    ],
    // The sink stages' shares: per head, the largest, and the rows it takes more than half of.
    measured: (config, steps) => ({
      headers: ['head', '\u03b6', 'largest share', 'rows with more than half on the sink'],
      rows: steps
        .filter((step) => step.id === 'sink')
        .map(({ stage: s }) => [
          String(s.head) + (s.step === null ? '' : ` (step ${s.step})`),
          String(config.sinks[s.head]),
          formatCell(Math.max(...s.values)),
          `${Array.from(s.values).filter((v) => v > 0.5).length} of ${s.values.length}`,
        ]),
    }),
  },
];

/**
 * config (the trace's), steps (navigation's, each with its stage) → { kind: 'modern', changes:
 * [{ id, title, models, references, measured }] }.
 */
export function modernPanel(config, steps = []) {
  const changes = CHANGES.filter((c) => c.applies(config)).map((c) => ({
    id: c.id,
    title: c.title,
    models: c.models,
    references: c.references,
    measured: c.measured(config, steps) || null,
  }));
  return { kind: 'modern', changes };
}
