#!/usr/bin/python3
"""Reference values for the tests, computed by numpy independently of the C++ core.

Writes tests/fixtures/lesson-reference.json (for node) and .txt (for Catch2; one matrix
a line: `name rows cols v…`, -inf for masked cells). Regenerate only with this script:
    /usr/bin/python3 scripts/make-reference.py   (Debian python3-numpy)
"""
import json
import pathlib

import numpy as np

VERSION = 1
OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures"

# The lesson's three examples, as (name, T, d_model, heads, d_k, d_v, causal, W_O).
EXAMPLES = [
    ("lesson-self-attention", 5, 8, 1, 4, 4, False, False),
    ("lesson-multi-head", 5, 16, 4, 4, 4, False, True),
    ("lesson-causal", 4, 8, 1, 4, 4, True, False),
]


def row_softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def example(t, d, heads, dk, dv, causal, with_wo):
    """Every intermediate of one example, keyed like the engine's stages (id or id/head)."""
    np.random.seed(42)
    x = np.random.randn(t, d)
    w_q = [np.random.randn(d, dk) * 0.1 for _ in range(heads)]
    w_k = [np.random.randn(d, dk) * 0.1 for _ in range(heads)]
    w_v = [np.random.randn(d, dv) * 0.1 for _ in range(heads)]
    w_o = np.random.randn(heads * dv, d) * 0.1 if with_wo else None
    out = {"x": x}
    outputs = []
    for h in range(heads):
        q, k, v = x @ w_q[h], x @ w_k[h], x @ w_v[h]
        scores = q @ k.T
        scaled = scores / np.sqrt(dk)
        logits = scaled
        if causal:
            logits = scaled + np.triu(np.full((t, t), -np.inf), k=1)
            out[f"masked/{h}"] = logits
        weights = row_softmax(logits)
        outputs.append(weights @ v)
        out.update({f"W_Q/{h}": w_q[h], f"W_K/{h}": w_k[h], f"W_V/{h}": w_v[h],
                    f"q/{h}": q, f"k/{h}": k, f"v/{h}": v, f"scores/{h}": scores,
                    f"scaled/{h}": scaled, f"weights/{h}": weights, f"head/{h}": outputs[-1]})
    if with_wo:
        concat = np.concatenate(outputs, axis=-1)
        out.update({"W_O": w_o, "concat": concat, "output": concat @ w_o})
    return out


def randn_cases():
    cases = {}
    for seed, r, c in [(42, 2, 5), (0, 3, 3), (1, 1, 7), (2**32 - 1, 4, 2)]:
        np.random.seed(seed)
        cases[f"randn/{seed}/{r}x{c}"] = np.random.randn(r, c)
    return cases


def main():
    matrices = {}
    for name, *sizes in EXAMPLES:
        for key, m in example(*sizes).items():
            matrices[f"{name}:{key}"] = m
    matrices.update(randn_cases())

    as_json = {k: [[None if np.isinf(v) else float(v) for v in row] for row in m.tolist()]
               for k, m in matrices.items()}
    meta = {"version": VERSION, "numpy": np.__version__, "generator": "scripts/make-reference.py"}
    (OUT / "lesson-reference.json").write_text(json.dumps({**meta, "matrices": as_json}) + "\n")

    lines = [f"# version {VERSION} numpy {np.__version__} (scripts/make-reference.py)"]
    for k, m in matrices.items():
        values = " ".join("-inf" if np.isinf(v) else repr(float(v)) for v in m.ravel())
        lines.append(f"{k} {m.shape[0]} {m.shape[1]} {values}")
    (OUT / "lesson-reference.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
