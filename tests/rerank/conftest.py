"""A tiny randomly initialised BERT cross-encoder (BertForSequenceClassification layout) and a
plain loop-based reference forward pass to check the numpy one against."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

from citewise.embed.safetensors import write_safetensors

WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "aspirin", "heart", "risk", "lowers", "the", "of",
         "cat", "sat", "on", "mat", "stock", "market", "fell", "does", "reduce", "?", "."]
HIDDEN, HEADS, LAYERS, INTER, POSITIONS, LABELS = 16, 2, 2, 32, 40, 1


def write_tokenizer(path: Path) -> None:
    vocab = {w: i for i, w in enumerate(WORDS)}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tok.save(str(path))


def random_tensors(seed: int = 0, labels: int = LABELS) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)

    def normal(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.3).astype(np.float32)

    def linear(name: str, n_in: int, n_out: int) -> dict[str, np.ndarray]:
        return {f"{name}.weight": normal(n_out, n_in), f"{name}.bias": normal(n_out)}

    def norm(name: str) -> dict[str, np.ndarray]:
        return {f"{name}.weight": 1 + normal(HIDDEN) * 0.1, f"{name}.bias": normal(HIDDEN)}

    t = {"bert.embeddings.word_embeddings.weight": normal(len(WORDS), HIDDEN),
         "bert.embeddings.position_embeddings.weight": normal(POSITIONS, HIDDEN),
         "bert.embeddings.token_type_embeddings.weight": normal(2, HIDDEN),
         **norm("bert.embeddings.LayerNorm")}
    for i in range(LAYERS):
        p = f"bert.encoder.layer.{i}."
        for part in ("query", "key", "value"):
            t |= linear(p + f"attention.self.{part}", HIDDEN, HIDDEN)
        t |= linear(p + "attention.output.dense", HIDDEN, HIDDEN)
        t |= norm(p + "attention.output.LayerNorm")
        t |= linear(p + "intermediate.dense", HIDDEN, INTER)
        t |= linear(p + "output.dense", INTER, HIDDEN)
        t |= norm(p + "output.LayerNorm")
    t |= linear("bert.pooler.dense", HIDDEN, HIDDEN)
    t |= linear("classifier", HIDDEN, labels)
    return t


def write_cross_encoder(folder: Path, seed: int = 0, labels: int = LABELS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_tokenizer(folder / "tokenizer.json")
    config = {"architectures": ["BertForSequenceClassification"], "model_type": "bert",
              "hidden_act": "gelu", "hidden_size": HIDDEN, "num_attention_heads": HEADS,
              "num_hidden_layers": LAYERS, "intermediate_size": INTER,
              "max_position_embeddings": POSITIONS, "type_vocab_size": 2,
              "vocab_size": len(WORDS), "layer_norm_eps": 1e-12,
              "id2label": {str(i): f"LABEL_{i}" for i in range(labels)}}
    (folder / "config.json").write_text(json.dumps(config))
    write_safetensors(folder / "model.safetensors", random_tensors(seed, labels))
    return folder


def reference_logits(t: dict[str, np.ndarray], ids: list[int], types: list[int]) -> np.ndarray:
    """One unpadded sequence through BERT + pooler + classifier, written out loop by loop in
    float64 (exact erf GELU, per-head attention), as in Devlin et al. (2019)."""
    g = {k: v.astype(np.float64) for k, v in t.items()}

    def ln(x: np.ndarray, name: str) -> np.ndarray:
        mu, var = x.mean(), x.var()
        return (x - mu) / math.sqrt(var + 1e-12) * g[name + ".weight"] + g[name + ".bias"]

    def lin(x: np.ndarray, name: str) -> np.ndarray:
        return g[name + ".weight"] @ x + g[name + ".bias"]

    e = "bert.embeddings."
    h = [ln(g[e + "word_embeddings.weight"][tok] + g[e + "position_embeddings.weight"][pos]
            + g[e + "token_type_embeddings.weight"][typ], e + "LayerNorm")
         for pos, (tok, typ) in enumerate(zip(ids, types, strict=True))]
    d = HIDDEN // HEADS
    for layer in range(LAYERS):
        p = f"bert.encoder.layer.{layer}."
        q = [lin(x, p + "attention.self.query") for x in h]
        k = [lin(x, p + "attention.self.key") for x in h]
        v = [lin(x, p + "attention.self.value") for x in h]
        new_h = []
        for i in range(len(h)):
            ctx = np.zeros(HIDDEN)
            for head in range(HEADS):
                s = slice(head * d, (head + 1) * d)
                logits = [q[i][s] @ k[j][s] / math.sqrt(d) for j in range(len(h))]
                top = max(logits)
                w = [math.exp(x - top) for x in logits]
                ctx[s] = sum(w[j] * v[j][s] for j in range(len(h))) / sum(w)
            a = ln(h[i] + lin(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            inner = lin(a, p + "intermediate.dense")
            inner = np.array([0.5 * x * (1 + math.erf(x / math.sqrt(2))) for x in inner])
            new_h.append(ln(a + lin(inner, p + "output.dense"), p + "output.LayerNorm"))
        h = new_h
    pooled = np.tanh(lin(h[0], "bert.pooler.dense"))
    return lin(pooled, "classifier")
