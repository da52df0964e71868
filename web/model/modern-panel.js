// The Modern attention chapter's panel: for each change the trace's config has in force, the
// published models that use it with the numbers their configs give, a reference each, and what the
// engine measured of it in this run. Pure: the numbers are the trace's, formatted.

import { formatCell } from './format.js';

// Each change: whether the config has it, what it is, the models and where their numbers are set.
const CHANGES = [
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
