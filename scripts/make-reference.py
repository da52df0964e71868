#!/usr/bin/python3
"""Reference values for the tests, computed by numpy independently of the C++ core.

Cases: every preset the engine defines (read through scripts/print-presets.mjs, so that sizes
live in one place), and the named specs of CUSTOM below (specs that are no preset; the tests
read them back from the fixture). For each case numpy draws what the engine draws, or builds
the designed heads from the tokens, and computes every stage as the lesson does
(scripts/numpy_attention.py; kind backward's gradients: scripts/numpy_backward.py, checked
against central differences before they are written).

Writes tests/fixtures/lesson-reference.json, which the native tests (tests/native/reference.hpp)
and the WASM tests (tests/wasm/support.mjs) both read: the sizes numpy used for each case under
"presets" and "custom" ({name: {spec, sizes}}; each custom spec as engine.run takes it), and
each matrix as its rows under "matrices" (null for a masked cell, −∞). Keys: `case:stage`,
`case:stage/head`; a decode step's or a tile's stage `case:stage/head@step` (head `-` for
none), and the operands that change from step to step under `case:stage/head@step:operand`;
drawn or built operands by name (`case:W_Q/2`, kind mla's `case:W_DKV`, `case:M`,
`case:gate`), each head's share of the output `case:contribution/h`, a pruned case's
`case:outputChange` (1 × 1), and the row totals of the backward pass's d_scaled under the stage
(`case:d_scaled/h:totals`).

Writes tests/fixtures/pairwise-reference.json too: every feature alone and in pairs in each kind
(scripts/combinations.mjs, the ones the engine runs), {name: {spec, sizes}} under "cases" and
their stages' matrices keyed as above under "matrices" (no operands: is_stage_key).

Writes tests/fixtures/model-reference.json too: the attention-only model's cases (MODELS;
scripts/numpy_model.py, its gradients checked against central differences first) and the
tasks' batches (TASK_CASES), under "models", "tasks" and "matrices". A model case's keys:
`name:tokens` (B, T + 1) and `name:mask` (B, T), the batch; each drawn matrix by the name JS
gives it (`name:W_E`, `name:layers[1].W_Q[0]`), after Adam's step t `name:W_E@t`; the gradients
at the model of each step but the last `name:grad:W_E`, `name:grad:W_E@t`; `name:logits/b`
(T, V) of sequence b; `name:loss`, `name:loss@t` (1 × 1); the head scores
`name:previousToken`, `name:firstToken`, `name:self`, `name:induction` (L, H).
A task's: `task:tokens@k` and `task:mask@k`, drawn from stream k (0: the held-out sequences).
Each value is written as repr writes it, so both readers get numpy's doubles back bit for bit.
Regenerate only with this script, after building the engine:
    /usr/bin/python3 scripts/make-reference.py   (Debian python3-numpy)
"""
import base64
import json
import pathlib
import subprocess

import numpy as np

from numpy_attention import stages
from numpy_backward import backward, check_by_differences
import numpy_model

VERSION = 7  # tests/native/reference.hpp and tests/wasm/support.mjs expect it
ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures"

# Specs that are no preset, run by the tests from the fixture: the multi-head example's sizes
# with weights drawn at scale 1, and with heads 1 and 3 pruned before W_O.
CUSTOM = {
    "weight-scale-1": {"seed": 42, "seqLen": 5, "dModel": 16, "numHeads": 4, "weightScale": 1},
    "pruned-heads-1-3": {"seed": 42, "seqLen": 5, "dModel": 16, "numHeads": 4,
                         "prunedHeads": [1, 3]},
    # Positions and masks beyond the presets: RoPE on 2 of 4 columns with base 100 under grouped
    # K/V heads; ALiBi without a mask over 3 heads (no power of two); decoding with RoPE, ALiBi
    # and a window of 3 (a ring of 3 cache rows); a prefix inside documents, with padding.
    "rope-dims-2-gqa": {"seed": 42, "seqLen": 5, "dModel": 16, "numHeads": 4, "numKvHeads": 2,
                        "weightScale": 1, "causal": True,
                        "rope": {"base": 100, "dims": 2, "convention": "half-split"}},
    "alibi-3-heads": {"seed": 3, "seqLen": 5, "dModel": 12, "numHeads": 3, "weightScale": 1,
                      "alibi": True},
    "kv-cache-rope-alibi-window": {"kind": "kv-cache", "seed": 5, "seqLen": 6, "dModel": 16,
                                   "numHeads": 4, "numKvHeads": 2, "weightScale": 1,
                                   "rope": {"offset": 2}, "alibi": True, "window": 3},
    "prefix-documents-padding": {"seed": 11, "seqLen": 7, "dModel": 8, "numHeads": 2,
                                 "weightScale": 1, "prefix": 2, "documents": [4, 3],
                                 "validKeys": 6},
    # QK-norm with learned gains: before half-split RoPE under grouped K/V heads and a window;
    # and decoding, each new query and key normalised before it is turned and cached.
    "qk-norm-gains-gqa-rope": {"seed": 42, "seqLen": 6, "dModel": 16, "numHeads": 4,
                               "numKvHeads": 2, "weightScale": 2, "causal": True, "window": 4,
                               "qkNorm": True, "qNormGain": [1.5, -0.5, 2, 0.25],
                               "kNormGain": [0.75, 1, -1.25, 3],
                               "rope": {"convention": "half-split"}},
    "qk-norm-kv-cache-window": {"kind": "kv-cache", "seed": 8, "seqLen": 6, "dModel": 16,
                                "numHeads": 4, "numKvHeads": 2, "weightScale": 2,
                                "qkNorm": True, "kNormGain": [2, 0.5, 1, -1],
                                "rope": {"offset": 2}, "window": 3},
    # StreamingLLM's sink tokens: a window of 4 whose first 2 tokens stay seen (the window keeps
    # the 2 latest keys) under grouped K/V heads and RoPE; and decoding, a cache of 5 rows, 2 of
    # them pinned and a ring of 3, with RoPE (offset 1) and ALiBi at the tokens' own positions.
    "sink-tokens-window": {"seed": 42, "seqLen": 8, "dModel": 16, "numHeads": 4,
                           "numKvHeads": 2, "weightScale": 1, "window": 4, "sinkTokens": 2,
                           "rope": {}},
    "sink-tokens-kv-cache": {"kind": "kv-cache", "seed": 42, "seqLen": 9, "dModel": 16,
                             "numHeads": 4, "numKvHeads": 2, "weightScale": 1, "window": 5,
                             "sinkTokens": 2, "rope": {"offset": 1}, "alibi": True},
    # The backward pass (kind backward; scripts/numpy_backward.py), dO drawn after every other
    # draw unless given: multi-head with W_O; causal grouped K/V heads; no W_O (dO as wide as the
    # concat) with padding keys; the ablation without ÷√d_k; dO given, with drawn matrices and
    # with explicit ones (explicit_backward below); a window with ALiBi; sinusoidal positions; a
    # prefix inside documents with padding, one K/V head; RoPE in both pairings (the gradients at
    # q_rot and k_rot taken back by the conjugate turn).
    "gradients-mha": {"kind": "backward", "seed": 42, "seqLen": 5, "dModel": 16, "numHeads": 4,
                     "weightScale": 1},
    "gradients-gqa-4-2-causal": {"kind": "backward", "seed": 42, "seqLen": 6, "dModel": 16,
                                "numHeads": 4, "numKvHeads": 2, "causal": True,
                                "weightScale": 1},
    "gradients-no-wo": {"kind": "backward", "seed": 11, "seqLen": 4, "dModel": 8, "numHeads": 2,
                       "dK": 3, "dV": 5, "outputProjection": False, "validKeys": 3,
                       "weightScale": 1},
    "gradients-unscaled": {"kind": "backward", "seed": 3, "seqLen": 5, "dModel": 12,
                          "numHeads": 3, "scaleScores": False, "weightScale": 1},
    "gradients-given-d-output": {"kind": "backward", "seed": 8, "seqLen": 3, "dModel": 4,
                                "numHeads": 2, "weightScale": 1,
                                "dOutput": [[1, -0.5, 0.25, 2], [0, 3, -1.5, 0.125],
                                            [-2, 0.75, 1, -0.25]]},
    "gradients-window-alibi": {"kind": "backward", "seed": 5, "seqLen": 7, "dModel": 12,
                              "numHeads": 3, "window": 3, "alibi": True, "weightScale": 1},
    "gradients-sinusoidal": {"kind": "backward", "seed": 9, "seqLen": 5, "dModel": 8,
                            "numHeads": 2, "positionalEncoding": "sinusoidal", "weightScale": 1},
    "gradients-rope": {"kind": "backward", "seed": 21, "seqLen": 6, "dModel": 12, "numHeads": 2,
                      "numKvHeads": 1, "causal": True, "weightScale": 1,
                      "rope": {"base": 10000}},
    "gradients-rope-half-split": {"kind": "backward", "seed": 22, "seqLen": 5, "dModel": 12,
                                  "numHeads": 2, "weightScale": 1,
                                  "rope": {"convention": "half-split", "dims": 4, "offset": 3}},
    "gradients-prefix-documents-padding": {"kind": "backward", "seed": 13, "seqLen": 7,
                                          "dModel": 8, "numHeads": 2, "numKvHeads": 1,
                                          "prefix": 2, "documents": [4, 3], "validKeys": 6,
                                          "weightScale": 1},
    # Multi-head latent attention (kind mla, DeepSeek-V2): K and V decompressed from a latent of
    # d_c per token, with a decoupled RoPE key of d_r shared by every head, causal; without the
    # RoPE part (d_r 0), d_v unlike d_h; half-split pairs at base 100, d_h 3 and d_v 5, causal.
    "mla-rope-causal": {"kind": "mla", "seed": 42, "seqLen": 6, "dModel": 16, "numHeads": 4,
                        "dK": 4, "dV": 4, "dLatent": 8, "dRope": 4, "causal": True},
    "mla-no-rope": {"kind": "mla", "seed": 7, "seqLen": 5, "dModel": 12, "numHeads": 3, "dK": 4,
                    "dV": 2, "dLatent": 6, "dRope": 0},
    "mla-half-split-base-100": {"kind": "mla", "seed": 3, "seqLen": 5, "dModel": 8,
                                "numHeads": 2, "dK": 3, "dV": 5, "dLatent": 4, "dRope": 2,
                                "causal": True, "weightScale": 0.5,
                                "rope": {"base": 100, "convention": "half-split"}},
}


def explicit_backward():
    """An explicit spec of kind backward: X, two query heads over one K/V head (d_k 3, d_v 2),
    W_O, causal, and dO given; its numbers from their own generator, to 3 decimals."""
    rng = np.random.RandomState(2026)
    m = lambda *shape: np.round(rng.randn(*shape), 3).tolist()
    return {"kind": "backward", "X": m(4, 6), "W_Q": [m(6, 3), m(6, 3)], "W_K": [m(6, 3)],
            "W_V": [m(6, 2)], "W_O": m(4, 6), "causal": True, "dOutput": m(4, 6)}


CUSTOM["gradients-explicit"] = explicit_backward()


def explicit_latent():
    """An explicit spec of kind mla: X (4, 6), two heads over a latent of d_c 3 (d_h 2, d_v 2)
    with a RoPE part of d_r 2, W_O, causal; its numbers from their own generator, to 3 decimals."""
    rng = np.random.RandomState(2027)
    m = lambda *shape: np.round(rng.randn(*shape), 3).tolist()
    return {"kind": "mla", "X": m(4, 6), "W_DKV": m(6, 3), "W_UK": [m(3, 2), m(3, 2)],
            "W_UV": [m(3, 2), m(3, 2)], "W_Q": [m(6, 2), m(6, 2)], "W_KR": m(6, 2),
            "W_QR": [m(6, 2), m(6, 2)], "W_O": m(4, 6), "causal": True}


CUSTOM["mla-explicit"] = explicit_latent()

# The attention-only model: its sizes, the seed it is drawn with, and Adam's learning rate and
# steps (each on the batch's gradients at the model of the step before).
MODELS = {
    "model-small": {"vocab": 7, "seqLen": 6, "dModel": 8, "numLayers": 2, "numHeads": 2, "dK": 4,
                    "dV": 3, "seed": 5, "learningRate": 0.01, "adamSteps": 2},
}
MODEL_SIZES = ("vocab", "seqLen", "dModel", "numLayers", "numHeads", "dK", "dV")

# Each task at the engine's default vocab and seqLen (default_train_spec in cpp/src/train.cpp;
# the native test checks they still are): the batch of `step` and the held-out sequences.
TASK_CASES = {
    name: {"vocab": vocab, "seqLen": seq_len, "seed": 9, "step": 3, "batch": 32, "heldOut": 64}
    for name, vocab, seq_len in [("induction", 32, 24), ("previous-token", 32, 23),
                                 ("two-relations", 30, 22)]
}


def engine_presets():
    """[{id, spec, …}] as dist/engine.js lists them."""
    script = ROOT / "scripts" / "print-presets.mjs"
    printed = subprocess.run(["node", str(script)], check=True, capture_output=True, text=True)
    return json.loads(printed.stdout)


def pairwise_specs():
    """[{name, spec}]: every feature alone and in pairs, in each kind, that the engine runs
    (scripts/combinations.mjs, which tests/wasm/combinations.test.mjs runs too)."""
    script = ROOT / "scripts" / "combinations.mjs"
    printed = subprocess.run(["node", str(script)], check=True, capture_output=True, text=True)
    return json.loads(printed.stdout)


def distinct_words(tokens):
    """Each token's word index among the distinct words (compared without case), in order of
    first appearance; and how many distinct words there are."""
    words = list(dict.fromkeys(t.lower() for t in tokens))
    return [words.index(t.lower()) for t in tokens], len(words)


def designed_sizes(spec):
    """Kind designed: T tokens, V distinct words, d_model = T + V + 1, four heads, d_k = T,
    d_v = V; nothing is drawn (no seed, no weight scale)."""
    t, (_, v) = len(spec["tokens"]), distinct_words(spec["tokens"])
    return {
        "kind": "designed", "seed": None, "skip": 0, "seqLen": t, "kvLen": t,
        "dModel": t + v + 1, "numHeads": 4, "numKvHeads": 4, "dK": t, "dV": v, "dFF": None,
        "validKeys": None, "causal": spec.get("causal", False), "outputProjection": True,
        "scaleScores": True, "blockRows": None, "blockCols": None, "weightScale": None,
        "prunedHeads": spec.get("prunedHeads", []), **positions_of({}, t),
    }


def positions_of(spec, d_k):
    """The positions and masks fields with their defaults: RoPE's base 10000, interleaved
    pairs, offset 0 and every column of d_k (rope: true takes them all); no window, sink tokens
    or prefix; no documents; under qkNorm each gain 1 in every column of d_k (null without it, as the
    engine's config has them)."""
    rope = {} if spec.get("rope") is True else spec.get("rope")
    qk_norm = bool(spec.get("qkNorm"))
    gain = lambda name: spec.get(name, [1] * d_k) if qk_norm else None
    return {
        "positionalEncoding": spec.get("positionalEncoding"), "alibi": spec.get("alibi", False),
        "softcap": spec.get("softcap"), "sinks": spec.get("sinks"),
        "qkNorm": True if qk_norm else None, "qNormGain": gain("qNormGain"),
        "kNormGain": gain("kNormGain"),
        "rope": None if rope is None else {
            "base": rope.get("base", 10000), "convention": rope.get("convention", "interleaved"),
            "offset": rope.get("offset", 0), "dims": rope.get("dims", d_k)},
        "window": spec.get("window"), "sinkTokens": spec.get("sinkTokens"),
        "prefix": spec.get("prefix"), "documents": spec.get("documents", []),
    }


def explicit_sizes(spec):
    """An explicit spec's sizes, read off its matrices. It draws nothing (dO is given): no seed,
    no weight scale."""
    x, w_q, w_k, w_v = (np.array(spec[k]) for k in ("X", "W_Q", "W_K", "W_V"))
    assert "dOutput" in spec, "an explicit spec here gives dO: nothing is drawn"
    t, d = x.shape
    return {**sizes_of({**spec, "X": None, "seqLen": t, "dModel": d, "numHeads": len(w_q),
                        "numKvHeads": len(w_k), "dK": w_q.shape[2], "dV": w_v.shape[2],
                        "outputProjection": "W_O" in spec}),
            "seed": None, "weightScale": None}


# Kind model's shipped model: the default induction run (web/checkpoints/induction.json, whose
# last model is "trained" and whose spec's seed draws "untrained" at step 0).
CHECKPOINT = json.loads((ROOT / "web" / "checkpoints" / "induction.json").read_text())


def checkpoint_model(name):
    """(config, params): the shipped model, its matrices read back from the file's base64 float64s
    (trained), or numpy_model.init_model of its run's config and seed (untrained)."""
    c = CHECKPOINT["model"]["config"]
    if name == "untrained":
        return c, numpy_model.init_model(c, CHECKPOINT["spec"]["seed"])
    m = lambda e: np.frombuffer(base64.b64decode(e["values"]), dtype="<f8").reshape(e["shape"])
    p = CHECKPOINT["model"]["params"]
    layers = [{k: [m(w) for w in l[k]] for k in ("W_Q", "W_K", "W_V")} | {"W_O": m(l["W_O"])}
              for l in p["layers"]]
    return c, {"W_E": m(p["W_E"]), "W_P": m(p["W_P"]), "W_U": m(p["W_U"]), "layers": layers}


def model_sizes(spec):
    """Kind model: a layer's causal self-attention at the shipped model's sizes, its V and L;
    built, not drawn: no seed, no weight scale."""
    c, _ = checkpoint_model(spec["checkpoint"])
    t, h = len(spec["tokens"]), c["numHeads"]
    return {
        "kind": "model", "seed": None, "skip": 0, "seqLen": t, "kvLen": t, "dModel": c["dModel"],
        "numHeads": h, "numKvHeads": h, "dK": c["dK"], "dV": c["dV"], "dFF": None,
        "validKeys": None, "causal": True, "outputProjection": True, "scaleScores": True,
        "blockRows": None, "blockCols": None, "weightScale": None, "prunedHeads": [],
        **positions_of({}, c["dK"]), "vocab": c["vocab"], "numLayers": c["numLayers"],
    }


def at_layer(key, l):
    """A layer's key as the model's trace steps it: q/0 → q/0@l, x → x/-@l."""
    return f"{key}@{l}" if "/" in key else f"{key}/-@{l}"


def model_stages(spec, s):
    """Kind model's stages: x₀, then each layer's causal self-attention (numpy_attention's
    stages, keyed by layer; a head's contribution to the output is no stage of its own here)
    and residual x_l + output, then the logits, their row softmax, −ln p of each next token and
    the mean over the positions scored."""
    c, p = checkpoint_model(spec["checkpoint"])
    tokens = np.asarray(spec["tokens"], dtype=int)
    x = p["W_E"][tokens] + p["W_P"][: len(tokens)]
    out = {"embedded": x}
    for l, w in enumerate(p["layers"]):
        layer = stages({**s, "kind": "self"}, {"x": x, "x_kv": x, **w})
        out.update((at_layer(k, l), m) for k, m in layer.items() if not k.startswith("contribution"))
        x = x + layer["output"]
        out[at_layer("residual", l)] = x
    out["W_U"] = p["W_U"]
    out["logits"] = x @ p["W_U"]
    e = np.exp(out["logits"] - out["logits"].max(axis=1, keepdims=True))
    out["probabilities"] = e / e.sum(axis=1, keepdims=True)
    rows = np.arange(len(tokens) - 1)
    out["token_loss"] = -np.log(out["probabilities"][rows, tokens[1:]])[:, None]
    scored = np.asarray(spec.get("scored", rows), dtype=int)
    out["loss"] = np.array([[out["token_loss"][scored, 0].mean()]])
    return out


def latent_dims(spec):
    """Kind mla's T, D, h, d_h, d_v, d_c, d_r: read off an explicit spec's matrices (d_r 0
    without W_KR), or the generated spec's with their defaults (d_h = d_v = D / h, d_r 0)."""
    if spec.get("X") is not None:
        width = lambda m: np.array(m).shape[1]
        t, d = np.array(spec["X"]).shape
        d_r = width(spec["W_KR"]) if "W_KR" in spec else 0
        return (t, d, len(spec["W_Q"]), width(spec["W_Q"][0]), width(spec["W_UV"][0]),
                width(spec["W_DKV"]), d_r)
    d, h = spec["dModel"], spec.get("numHeads", 1)
    return (spec["seqLen"], d, h, spec.get("dK", d // h), spec.get("dV", d // h),
            spec["dLatent"], spec.get("dRope", 0))


def latent_sizes(spec):
    """Kind mla: self-attention's fields (h K/V heads, each decompressed from the latent; W_O;
    scaled unless scaleScores is false) and dLatent d_c, dRope d_r; RoPE turns every column of d_r, from position 0 (null
    when d_r is 0: nothing turns). An explicit spec draws nothing: no seed, no weight scale."""
    t, d, h, d_h, d_v, d_c, d_r = latent_dims(spec)
    explicit = spec.get("X") is not None
    rope = spec.get("rope") if isinstance(spec.get("rope"), dict) else {}
    return {
        "kind": "mla", "seed": None if explicit else spec.get("seed", 42), "skip": 0,
        "seqLen": t, "kvLen": t, "dModel": d, "numHeads": h, "numKvHeads": h, "dK": d_h,
        "dV": d_v, "dFF": None, "validKeys": None, "causal": spec.get("causal", False),
        "outputProjection": True, "scaleScores": spec.get("scaleScores", True), "blockRows": None,
        "blockCols": None, "weightScale": None if explicit else spec.get("weightScale", 0.1),
        "prunedHeads": [],
        **positions_of({}, d_h),
        "rope": {"base": rope.get("base", 10000),
                 "convention": rope.get("convention", "interleaved"),
                 "offset": 0, "dims": d_r} if d_r else None,
        "dLatent": d_c, "dRope": d_r,
    }


def sizes_of(spec):
    """Every size and switch of a spec with the engine's defaults filled in, named like its config."""
    kind = spec.get("kind", "self")
    if kind == "designed":
        return designed_sizes(spec)
    if kind == "mla":
        return latent_sizes(spec)
    if kind == "model":
        return model_sizes(spec)
    if spec.get("X") is not None:
        return explicit_sizes(spec)
    d, h = spec["dModel"], spec.get("numHeads", 1)
    cross, encoder, flash = kind == "cross", kind == "encoder-layer", kind == "flash"
    t = spec["queryLen"] if cross else spec["seqLen"]
    return {
        "kind": kind, "seed": spec.get("seed", 42), "skip": spec.get("skip", 0),
        "seqLen": t, "kvLen": spec["keyLen"] if cross else t, "dModel": d,
        "numHeads": h, "numKvHeads": spec.get("numKvHeads", h),
        "dK": spec.get("dK", d // h), "dV": spec.get("dV", d // h),
        "dFF": spec.get("dFF", 4 * d) if encoder else None,
        "validKeys": spec.get("validKeys"),
        "causal": kind == "kv-cache" or spec.get("causal", False),  # a cache holds only the past
        "outputProjection": encoder or (not flash and spec.get("outputProjection", True)),
        "scaleScores": spec.get("scaleScores", True),
        "blockRows": spec["blockRows"] if flash else None,
        "blockCols": spec["blockCols"] if flash else None,
        "weightScale": spec.get("weightScale", 0.1),
        "prunedHeads": spec.get("prunedHeads", []),
        **positions_of(spec, spec.get("dK", d // h)),
    }


def draw(s):
    """What the engine draws, in its order: X (or X_q, X_kv), every W_Q, every W_K, every W_V,
    W_O, then the encoder layer's W1, W2, b1, b2; every weight and bias randn · weightScale; then
    for sinks: true a sink logit per query head (randn, into the sizes). Kind mla: draw_latent."""
    if s["kind"] == "mla":
        return draw_latent(s)
    t, tkv, d, h, hkv = s["seqLen"], s["kvLen"], s["dModel"], s["numHeads"], s["numKvHeads"]

    def weight(*shape):
        return np.random.randn(*shape) * s["weightScale"]

    np.random.seed(s["seed"])
    if s["skip"] > 0:
        np.random.randn(s["skip"])  # lesson-causal: the lesson draws on without reseeding
    x = np.random.randn(t, d)
    x_kv = np.random.randn(tkv, d) if s["kind"] == "cross" else x
    p = {"x": x, "x_kv": x_kv}
    p["W_Q"] = [weight(d, s["dK"]) for _ in range(h)]
    p["W_K"] = [weight(d, s["dK"]) for _ in range(hkv)]
    p["W_V"] = [weight(d, s["dV"]) for _ in range(hkv)]
    if s["outputProjection"]:
        p["W_O"] = weight(h * s["dV"], d)
    if s["kind"] == "encoder-layer":
        p["W1"], p["W2"] = weight(d, s["dFF"]), weight(s["dFF"], d)
        p["b1"], p["b2"] = weight(s["dFF"]), weight(d)
    if s["sinks"] is True:  # a sink logit per query head, after every other draw (not scaled)
        s["sinks"] = np.random.randn(h).tolist()
    return p


def draw_latent(s):
    """Kind mla's draws, in the engine's order: X; then each randn · weightScale: W_DKV (D, DC),
    every W_UK (DC, DH), every W_UV (DC, DV), every W_Q (D, DH), with d_r > 0 W_KR (D, DR) and
    every W_QR (D, DR), then W_O (H·DV, D)."""
    d, h, d_c, d_r = s["dModel"], s["numHeads"], s["dLatent"], s["dRope"]

    def weight(*shape):
        return np.random.randn(*shape) * s["weightScale"]

    np.random.seed(s["seed"])
    p = {"x": np.random.randn(s["seqLen"], d), "W_DKV": weight(d, d_c)}
    p["W_UK"] = [weight(d_c, s["dK"]) for _ in range(h)]
    p["W_UV"] = [weight(d_c, s["dV"]) for _ in range(h)]
    p["W_Q"] = [weight(d, s["dK"]) for _ in range(h)]
    if d_r > 0:
        p["W_KR"] = weight(d, d_r)
        p["W_QR"] = [weight(d, d_r) for _ in range(h)]
    p["W_O"] = weight(h * s["dV"], d)
    return p


def designed(tokens):
    """The designed heads, built from the kind's description (not from the C++ code):
    X = [position one-hot (T) | word one-hot (V) | 1]; s = 8·√d_k. Head 0, previous token:
    W_Q position p → s·e_p, W_K position p → e_(p+1). Head 1, same word: W_Q word w → s·e_w,
    W_K word w → e_w. Head 2, sink: W_Q the constant → s·e_0, W_K position 0 → e_0. Head 3,
    broad: W_Q = W_K = 0. Every W_V: word w → e_w. W_O (4V, D): 0.25 at (h·V + w, T + w)."""
    ids, v = distinct_words(tokens)
    t = len(tokens)
    d, one, s = t + v + 1, t + v, 8 * np.sqrt(t)
    x = np.zeros((t, d))
    x[np.arange(t), np.arange(t)] = 1
    x[np.arange(t), t + np.array(ids)] = 1
    x[:, one] = 1
    w_q, w_k = [np.zeros((d, t)) for _ in range(4)], [np.zeros((d, t)) for _ in range(4)]
    for p in range(t):
        w_q[0][p, p] = s
        if p + 1 < t:
            w_k[0][p, p + 1] = 1
    for w in range(v):
        w_q[1][t + w, w], w_k[1][t + w, w] = s, 1
    w_q[2][one, 0], w_k[2][0, 0] = s, 1
    w_v = np.zeros((d, v))
    w_v[t + np.arange(v), np.arange(v)] = 1
    w_o = np.zeros((4 * v, d))
    for h in range(4):
        w_o[h * v + np.arange(v), t + np.arange(v)] = 0.25
    return {"x": x, "x_kv": x, "W_Q": w_q, "W_K": w_k, "W_V": [w_v] * 4, "W_O": w_o}


def given(spec):
    """An explicit spec's matrices as draw returns them."""
    if spec.get("kind") == "mla":
        one = lambda k: np.array(spec[k], dtype=float)
        heads = lambda k: [np.array(m, dtype=float) for m in spec[k]]
        rope = {"W_KR": one("W_KR"), "W_QR": heads("W_QR")} if "W_KR" in spec else {}
        return {"x": one("X"), "W_DKV": one("W_DKV"), "W_UK": heads("W_UK"),
                "W_UV": heads("W_UV"), "W_Q": heads("W_Q"), **rope, "W_O": one("W_O")}
    x = np.array(spec["X"], dtype=float)
    p = {k: [np.array(m, dtype=float) for m in spec[k]] for k in ("W_Q", "W_K", "W_V")}
    return {"x": x, "x_kv": x, **p, **({"W_O": np.array(spec["W_O"])} if "W_O" in spec else {})}


def backward_matrices(name, spec, s, p):
    """The forward and backward stages of kind backward, from dO as given or drawn right after
    the weights (randn, not scaled); the gradients checked against central differences first."""
    width = s["dModel"] if s["outputProjection"] else s["numHeads"] * s["dV"]
    d_o = (np.array(spec["dOutput"], dtype=float) if "dOutput" in spec
           else np.random.randn(s["seqLen"], width))
    out = {"x": p["x"]}
    grads = backward(s, p, d_o, out)
    worst = check_by_differences(name, s, p, d_o, grads)
    return out, worst


def case_matrices(name, spec, sizes):
    """Every matrix of one case under `name:key`."""
    if sizes["kind"] == "model":
        return {f"{name}:{key}": m for key, m in model_stages(spec, sizes).items()}
    if sizes["kind"] == "designed":
        p = designed(spec["tokens"])
    else:
        p = given(spec) if "X" in spec else draw(sizes)
    if sizes["kind"] == "backward":
        out, worst = backward_matrices(name, spec, sizes, p)
        print(f"{name}: gradients within {worst:.1e} of central differences")
    else:
        out = stages(sizes, p)
    return {f"{name}:{key}": m for key, m in out.items()}


def randn_cases():
    cases = {}
    for seed, r, c in [(42, 2, 5), (0, 3, 3), (1, 1, 7), (2**32 - 1, 4, 2)]:
        np.random.seed(seed)
        cases[f"randn/{seed}/{r}x{c}"] = np.random.randn(r, c)
    return cases


def model_batch(c):
    """Three sequences of T + 1 tokens from their own generator; every position counted with
    weight 1 but one not at all and one with 0.5."""
    tokens = np.random.RandomState(2026).randint(0, c["vocab"], size=(3, c["seqLen"] + 1))
    mask = np.ones((3, c["seqLen"]))
    mask[1, 2], mask[2, 4] = 0, 0.5
    return tokens, mask


def model_matrices(name, fields):
    """A model case's matrices under `name:key`, and how close its gradients came to central
    differences. The model moves in place through Adam's steps: each record copies it."""
    c = {key: fields[key] for key in MODEL_SIZES}
    p = numpy_model.init_model(c, fields["seed"])
    tokens, mask = model_batch(c)
    out = {"tokens": tokens.astype(float), "mask": mask}
    out.update((key, m.copy()) for key, m in numpy_model.named(p))
    out.update((f"logits/{b}", numpy_model.forward(c, p, seq[:-1])["logits"])
               for b, seq in enumerate(tokens))
    out["loss"] = np.array([[numpy_model.loss(c, p, tokens, mask)]])
    scores = numpy_model.head_scores(c, p, tokens)
    assert scores["induction"] is not None, f"{name}: no token of the batch repeats"
    out.update(scores)
    grads = numpy_model.gradients(c, p, tokens, mask)
    worst = numpy_model.check_by_differences(name, c, p, tokens, mask, grads)
    state = numpy_model.adam_start(p)
    for t in range(1, fields["adamSteps"] + 1):
        at = "" if t == 1 else f"@{t - 1}"
        out.update((f"grad:{key}{at}", m) for key, m in numpy_model.named(grads))
        numpy_model.adam_step(p, grads, state, fields["learningRate"])
        out.update((f"{key}@{t}", m.copy()) for key, m in numpy_model.named(p))
        out[f"loss@{t}"] = np.array([[numpy_model.loss(c, p, tokens, mask)]])
        grads = numpy_model.gradients(c, p, tokens, mask)
    return {f"{name}:{key}": m for key, m in out.items()}, worst


def task_matrices(name, fields):
    """A task's batch of fields' step and its held-out sequences, each from its stream."""
    out = {}
    for k, count in [(fields["step"], fields["batch"]), (0, fields["heldOut"])]:
        rng = np.random.RandomState(numpy_model.stream_seed(fields["seed"], k))
        tokens, mask = numpy_model.draw_batch(name, fields["vocab"], fields["seqLen"], count, rng)
        out[f"{name}:tokens@{k}"], out[f"{name}:mask@{k}"] = tokens.astype(float), mask
    return out


META = {"version": VERSION, "numpy": np.__version__, "generator": "scripts/make-reference.py"}


def json_rows(matrices):
    """Each matrix as its rows, −inf as null."""
    return {k: [[None if np.isinf(v) else float(v) for v in row] for row in m.tolist()]
            for k, m in matrices.items()}


def write(sizes, custom, matrices):
    (OUT / "lesson-reference.json").write_text(json.dumps(
        {**META, "presets": sizes, "custom": custom, "matrices": json_rows(matrices)}) + "\n")


# Operands numpy keys beside the stages (drawn, built, or one head's share): the pairwise reference
# keeps the stages alone, which every operand reaches (the presets' own check the draws bit for bit).
OPERAND_KEYS = {"W_Q", "W_K", "W_V", "W_O", "contribution", "M", "gate", "outputChange", "B", "PE",
                "W_DKV", "W_UK", "W_UV", "W_KR", "W_QR"}


def is_stage_key(key):
    """Whether `case:label` names a stage: no operand, no operand of a step (`case:label:name`)."""
    label = key.split(":", 1)[1]
    return ":" not in label and label.split("/")[0].split("@")[0] not in OPERAND_KEYS


def write_pairwise(cases, matrices):
    """tests/fixtures/pairwise-reference.json: the feature combinations and their matrices."""
    (OUT / "pairwise-reference.json").write_text(json.dumps(
        {**META, "cases": cases, "matrices": json_rows(matrices)}) + "\n")


def write_models(matrices):
    """tests/fixtures/model-reference.json: MODELS, TASK_CASES and their matrices."""
    (OUT / "model-reference.json").write_text(json.dumps(
        {**META, "models": MODELS, "tasks": TASK_CASES, "matrices": json_rows(matrices)}) + "\n")


def main():
    sizes, custom, matrices = {}, {}, {}
    for preset in engine_presets():
        sizes[preset["id"]] = sizes_of(preset["spec"])
        matrices.update(case_matrices(preset["id"], preset["spec"], sizes[preset["id"]]))
    for name, spec in CUSTOM.items():
        custom[name] = {"spec": spec, "sizes": sizes_of(spec)}
        matrices.update(case_matrices(name, spec, custom[name]["sizes"]))
    matrices.update(randn_cases())
    write(sizes, custom, matrices)
    print(f"{len(sizes)} presets, {len(custom)} custom specs, {len(matrices)} matrices")
    cases, pairwise = {}, {}
    for case in pairwise_specs():
        cases[case["name"]] = {"spec": case["spec"], "sizes": sizes_of(case["spec"])}
        matrices_of_case = case_matrices(case["name"], case["spec"], cases[case["name"]]["sizes"])
        pairwise.update({k: m for k, m in matrices_of_case.items() if is_stage_key(k)})
    write_pairwise(cases, pairwise)
    print(f"{len(cases)} feature combinations, {len(pairwise)} matrices")
    model_cases = {}
    for name, fields in MODELS.items():
        cases, worst = model_matrices(name, fields)
        print(f"{name}: gradients within {worst:.1e} of central differences")
        model_cases.update(cases)
    for name, fields in TASK_CASES.items():
        model_cases.update(task_matrices(name, fields))
    write_models(model_cases)
    print(f"{len(MODELS)} models, {len(TASK_CASES)} tasks, {len(model_cases)} matrices")


if __name__ == "__main__":
    main()
