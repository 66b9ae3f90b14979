"""The GPU path through Python: the same φ and θ, byte for byte, as `ldagpu train --device cuda`
with the same seed and settings, for the sparse and the butterfly sampler. Skips where the
library has no GPU to train on (its own refusal says so)."""
import pytest

import ldagpu
from conftest import run_cli


@pytest.fixture(scope="module")
def gpu(texts):
    try:
        ldagpu.LDA(n_topics=2, n_iter=1, device="cuda").fit(texts[:20])
    except ldagpu.LdagpuInputError as e:
        if "--device cuda" in str(e):
            pytest.skip("no GPU: %s" % e)
        raise


@pytest.mark.parametrize("model", ["collapsed", "uncollapsed"])
def test_the_gpu_gives_the_cli_s_model(gpu, texts, tmp_path, model):
    corpus = tmp_path / "texts.txt"
    corpus.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    lda = ldagpu.LDA(n_topics=16, model=model, n_iter=12, seed=11, device="cuda").fit(texts)
    lda.save(tmp_path / "py")
    run_cli("train", corpus, "-K", "16", "-m", model, "-n", "12", "-s", "11", "--device", "cuda", "-q",
            "-o", tmp_path / "cli")
    for name in ("phi.npy", "theta.npy", "z.npy", "topic_tokens.npy"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
