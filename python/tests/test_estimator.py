"""The estimator's parts: token lists, transform, top_words, progress (and stopping, and an
exception raised in it), the GIL released while training, load, pyLDAvis's data, the pandas
frame with the documents' names, and the README's example."""
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import ldagpu
from conftest import REPO, run_cli

FAST = dict(n_topics=4, model="collapsed", n_iter=10, seed=2, device="cpu", threads=2)


def test_token_lists_are_taken_as_given():
    docs = [["Apple", "pie", "apple"], ["engine", "Rotor"], ["pie", "apple", "engine"]] * 5
    lda = ldagpu.LDA(**FAST).fit(docs)
    assert lda.vocabulary_ == ["Apple", "pie", "apple", "engine", "Rotor"]  # no case folding, no stop words
    assert lda.components_.shape == (4, 5)
    assert np.allclose(lda.components_.sum(axis=1), 1, atol=1e-5)
    assert np.allclose(lda.doc_topic_.sum(axis=1), 1, atol=1e-5)
    theta = lda.transform([["apple", "pie", "unknown"], ["zzz"]])
    assert theta.shape == (2, 4) and np.allclose(theta[1], 0.25)  # no known word: uniform


def test_transform_top_words_and_a_folder_round_trip(texts, tmp_path):
    lda = ldagpu.LDA(**FAST).fit(texts)
    top = lda.top_words(5)
    assert len(top) == 4 and all(len(t) == 5 for t in top)
    k = 0
    order = np.argsort(-lda.components_[k], kind="stable")[:5]
    assert top[k] == [lda.vocabulary_[w] for w in order]
    theta = lda.transform(texts[:10], n_iter=20, seed=3)
    assert theta.shape == (10, 4) and np.allclose(theta.sum(axis=1), 1, atol=1e-5)
    assert np.array_equal(theta, lda.transform(texts[:10], n_iter=20, seed=3))  # keyed on the seed
    lda.save(tmp_path / "m")
    back = ldagpu.LDA.load(tmp_path / "m", device="cpu")
    assert np.array_equal(back.components_, lda.components_)
    assert np.array_equal(back.doc_topic_, lda.doc_topic_)
    assert back.vocabulary_ == lda.vocabulary_
    assert np.array_equal(back.transform(texts[:10], n_iter=20, seed=3), theta)
    # `ldagpu infer` on the same texts in a file: the same θ (its TSV rounds to 6 digits).
    (tmp_path / "new.txt").write_text("".join(t + "\n" for t in texts[:10]), encoding="utf-8")
    out, _ = run_cli("infer", tmp_path / "m", tmp_path / "new.txt", "-n", "20", "-s", "3", "--device", "cpu")
    rows = np.array([[float(v) for v in line.split("\t")[1:]] for line in out.splitlines()[1:] if line[:1].isdigit()])
    assert np.allclose(rows, theta, rtol=1e-5, atol=1e-6)
    # The stop words travel with the folder.
    back.save(tmp_path / "again")
    assert (tmp_path / "again" / "stopwords.txt").read_bytes() == (tmp_path / "m" / "stopwords.txt").read_bytes()


def test_progress_every_iteration_stop_and_exceptions(texts):
    seen = []
    lda = ldagpu.LDA(**FAST, progress=lambda p: seen.append((p.iteration, p.last_iteration, p.evaluated))).fit(texts)
    assert [s[0] for s in seen] == list(range(1, 11)) and seen[-1][1] == 10 and seen[-1][2]
    lda = ldagpu.LDA(**FAST, progress=lambda p: p.iteration == 3).fit(texts)
    assert lda.n_iter_ == 3

    def boom(p):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        ldagpu.LDA(**FAST, progress=boom).fit(texts)


def test_training_releases_the_gil(texts):
    ticks, done = [0], threading.Event()

    def count():
        while not done.is_set():
            ticks[0] += 1

    entered, left = [], []

    def progress(p):
        entered.append(ticks[0])
        left.append(ticks[0])

    t = threading.Thread(target=count)
    t.start()
    try:
        ldagpu.LDA(n_topics=50, n_iter=20, device="cpu", threads=1, progress=progress).fit(texts)
    finally:
        done.set()
        t.join()
    # While the library ran an iteration (between one callback and the next) the counting
    # thread ran: the GIL was not held.
    while_training = [entered[i + 1] - left[i] for i in range(len(left) - 1)]
    assert sum(1 for n in while_training if n > 0) >= len(while_training) - 1, while_training


def test_pyldavis_data(texts):
    lda = ldagpu.LDA(**FAST).fit(texts)
    data = lda.pyldavis_data()
    assert set(data) == {"topic_term_dists", "doc_topic_dists", "doc_lengths", "vocab", "term_frequency"}
    assert data["topic_term_dists"].shape == (4, len(lda.vocabulary_))
    assert data["doc_topic_dists"].shape == (len(texts), 4)
    assert data["doc_lengths"].sum() == data["term_frequency"].sum()
    new = lda.pyldavis_data(texts[:20])
    assert new["doc_topic_dists"].shape == (20, 4) and len(new["doc_lengths"]) == 20
    try:
        import pyLDAvis
    except ImportError:
        return
    pyLDAvis.prepare(**data)


def test_doc_topics_frame_with_names(texts):
    pd = pytest.importorskip("pandas")
    names = ["doc%03d" % i for i in range(40)]
    lda = ldagpu.LDA(**FAST).fit(texts[:40], names=names)
    frame = lda.doc_topics_frame()
    assert list(frame.index) == names and list(frame.columns) == ["topic0", "topic1", "topic2", "topic3"]
    assert isinstance(frame, pd.DataFrame) and np.array_equal(frame.to_numpy(), lda.doc_topic_)
    assert list(lda.doc_topics_frame(names=list(range(40))).index) == list(range(40))


def test_the_readme_example_runs(tmp_path):
    readme = (REPO / "python" / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert len(blocks) == 1 and len(blocks[0].strip().splitlines()) <= 15
    (tmp_path / "data").symlink_to(REPO / "data")
    p = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r)\n" % str(REPO / "python") + blocks[0]],
                       cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    assert p.stdout.count("\n") >= 8
    out, _ = run_cli("topics", tmp_path / "py-model", "--top", "5")
    assert out.count("topic") == 20


def test_ctrl_c_stops_training_and_raises_keyboard_interrupt(texts):
    import _thread

    seen = []

    def interrupt(p):
        seen.append(p.iteration)
        if p.iteration == 2:
            # Ctrl-C as Python sees it, in this (the main) thread: os.kill may hand the signal to
            # one of the library's worker threads, and the main thread then notices it only later
            _thread.interrupt_main()

    with pytest.raises(KeyboardInterrupt):
        ldagpu.LDA(**FAST, progress=interrupt).fit(texts)
    assert seen[-1] == 2, seen  # no iteration after the interrupt
    assert ldagpu.LDA(**FAST).fit(texts[:20]).n_iter_ == 10  # the library is still usable
