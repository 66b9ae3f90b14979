"""The library is the command line's trainer: the same seed, documents and settings give the
same φ (and θ) byte for byte through Python and through `ldagpu train`; a saved model is a
folder the commands read."""
import numpy as np
import scipy.sparse

import ldagpu
from conftest import run_cli

SETTINGS = dict(n_topics=5, model="collapsed", n_iter=12, seed=11, threads=2, device="cpu")
CLI = ["-K", "5", "-m", "collapsed", "-n", "12", "-s", "11", "-j", "2", "--device", "cpu", "-q"]


def test_strings_give_the_cli_s_model_of_the_same_text_file(texts, tmp_path):
    corpus = tmp_path / "texts.txt"
    corpus.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    lda = ldagpu.LDA(**SETTINGS).fit(texts)
    lda.save(tmp_path / "py")
    run_cli("train", corpus, *CLI, "-o", tmp_path / "cli")
    for name in ("phi.npy", "theta.npy", "vocab.txt", "topic_tokens.npy", "z.npy"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    assert np.array_equal(lda.components_, np.load(tmp_path / "cli" / "phi.npy"))
    assert np.array_equal(lda.doc_topic_, np.load(tmp_path / "cli" / "theta.npy"))
    out, _ = run_cli("topics", tmp_path / "py", "--top", "5")
    assert out.startswith("topic    0")


def test_a_sparse_matrix_gives_the_cli_s_model_of_the_same_uci_file(tmp_path):
    rng = np.random.default_rng(3)
    X = scipy.sparse.random(80, 40, density=0.15, random_state=rng, format="csr")
    X.data = np.ceil(X.data * 4)
    vocab = ["w%02d" % i for i in range(40)]
    with open(tmp_path / "docword.t.txt", "w") as f:
        f.write("%d\n%d\n%d\n" % (X.shape[0], X.shape[1], X.nnz))
        for d in range(X.shape[0]):
            for i in range(X.indptr[d], X.indptr[d + 1]):
                f.write("%d %d %d\n" % (d + 1, X.indices[i] + 1, X.data[i]))
    (tmp_path / "vocab.t.txt").write_text("".join(w + "\n" for w in vocab))
    lda = ldagpu.LDA(**SETTINGS).fit(X, vocabulary=vocab)
    lda.save(tmp_path / "py")
    run_cli("train", tmp_path / "docword.t.txt", *CLI, "-o", tmp_path / "cli")
    assert (tmp_path / "py" / "phi.npy").read_bytes() == (tmp_path / "cli" / "phi.npy").read_bytes()
    assert lda.vocabulary_ == vocab
    # The columns are the model's words: transform takes the same matrix without a vocabulary.
    assert lda.transform(X[:5]).shape == (5, 5)


def test_a_loaded_cli_model_infers_and_scores_as_infer_and_eval(texts, tmp_path):
    corpus = tmp_path / "texts.txt"
    corpus.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    run_cli("train", corpus, *CLI, "-o", tmp_path / "cli")
    lda = ldagpu.LDA.load(tmp_path / "cli", device="cpu")
    assert lda.model == "collapsed" and lda.n_topics == 5
    out, _ = run_cli("eval", tmp_path / "cli", corpus, "-n", "20", "-s", "4", "--device", "cpu")
    expected = float(out.split("loglik_per_token ")[1].split()[0])
    assert abs(lda.score(texts, n_iter=20, seed=4) - expected) < 1e-6
    assert abs(lda.score(str(corpus), n_iter=20, seed=4) - expected) < 1e-6
