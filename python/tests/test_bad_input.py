"""Bad input raises a Python exception carrying the library's message; nothing brings the
interpreter down."""
import numpy as np
import pytest
import scipy.sparse

import ldagpu


def fit_err(docs, **kw):
    with pytest.raises(ldagpu.LdagpuInputError) as e:
        ldagpu.LDA(n_topics=2, n_iter=2, device="cpu").fit(docs, **kw)
    return str(e.value)


def test_ragged_arrays():
    msg = fit_err(([0, 2, 3], [0, 1, 2], [1, 1]), vocabulary=["a", "b", "c"])
    assert "3 word ids but 2 counts" in msg


def test_negative_counts():
    X = scipy.sparse.csr_matrix(np.array([[1, 0, 2], [0, -3, 1]]))
    assert "count -3 of entry 2 (document 1) is not a whole number of at least 0" in fit_err(X)


def test_nan_counts():
    X = scipy.sparse.csr_matrix(np.array([[1.0, 0, 2], [0, np.nan, 1]]))
    assert "count nan of entry 2 (document 1)" in fit_err(X)


def test_fractional_counts_and_bad_offsets():
    X = scipy.sparse.csr_matrix(np.array([[1.5, 0, 2]]))
    assert "count 1.5 of entry 0" in fit_err(X)
    assert "offset 2 (1) is less than offset 1 (2)" in fit_err(([0, 2, 1], [0, 1], [1, 1]), vocabulary=["a", "b"])


def test_unknown_model_names_and_settings():
    with pytest.raises(ldagpu.LdagpuInputError, match="model: expected one of .*got 'colapsed'"):
        ldagpu.LDA(model="colapsed")
    with pytest.raises(ldagpu.LdagpuInputError, match="unknown setting 'min-dff'"):
        ldagpu.LDA(min_dff=2)
    with pytest.raises(ldagpu.LdagpuInputError, match="topics"):
        ldagpu.LDA(n_topics=0)
    with pytest.raises(ldagpu.LdagpuInputError, match="sampler"):
        ldagpu.LDA(sampler="fastest")


def test_a_missing_folder_or_file(tmp_path):
    with pytest.raises(ldagpu.LdagpuInputError, match=str(tmp_path / "nothing")):
        ldagpu.LDA.load(tmp_path / "nothing")
    with pytest.raises(ldagpu.LdagpuInputError, match="no-such-corpus.txt"):
        ldagpu.LDA(n_topics=2, n_iter=1).fit(str(tmp_path / "no-such-corpus.txt"))


def test_wrong_shapes_and_types(texts):
    assert "a vocabulary of 2 words for 3 columns" in fit_err(scipy.sparse.csr_matrix(np.ones((2, 3))),
                                                              vocabulary=["a", "b"])
    assert "documents must be" in fit_err([1.5, 2.5])
    assert "a token list holds 3" in fit_err([["a", "b"], ["c", 3]])
    assert "2 names for 3 documents" in fit_err(texts[:3], names=["a", "b"])
    assert "document 1's name" in fit_err(texts[:2], names=["a", "b\tc"])
    with pytest.raises(ldagpu.LdagpuInputError, match="not trained"):
        ldagpu.LDA(n_topics=2).transform(texts[:2])


def test_a_saved_model_is_not_overwritten_without_force(texts, tmp_path):
    lda = ldagpu.LDA(n_topics=2, n_iter=2, device="cpu").fit(texts[:50])
    lda.save(tmp_path / "m")
    with pytest.raises(ldagpu.LdagpuInputError, match="--force"):
        lda.save(tmp_path / "m")
    lda.save(tmp_path / "m", force=True)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    with pytest.raises(ldagpu.LdagpuInputError):
        lda.save(tmp_path / "mine", force=True)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "mine"


def test_texts_with_nothing_left_after_the_tokenizer():
    with pytest.raises(ldagpu.LdagpuInputError):
        ldagpu.LDA(n_topics=2, n_iter=1).fit(["the and of", "a an"])


def test_nothing_to_train_on():
    assert "no tokens to train on (3 documents, all empty)" in fit_err(scipy.sparse.csr_matrix(np.zeros((3, 4))))
    assert "no tokens to train on (2 documents" in fit_err([[], []])
    assert "no tokens to train on (0 documents" in fit_err(([0], [], []), vocabulary=["a"])
