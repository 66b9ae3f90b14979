"""LDA: a scikit-learn-shaped estimator over ldagpu's trainer (the library the command line runs)."""
import ctypes
import os
import sys
import warnings

import numpy as np

from . import _lib
from ._lib import lib, call


def _setting_value(value):
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


class _Handle:
    """A library handle, freed by close() (or leaving a with block)."""

    def __init__(self, handle, free):
        self.handle, self._free = handle, free

    def close(self):
        if self.handle:
            self._free(self.handle)
            self.handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class _Settings(_Handle):
    """A settings handle: train's options by name (min_df or min-df), values as train takes them."""

    def __init__(self, pairs):
        super().__init__(call(lib.ldagpu_settings_new), lib.ldagpu_settings_free)
        try:
            for name, value in pairs.items():
                if value is None:
                    continue
                call(lib.ldagpu_settings_set, self.handle, name.replace("_", "-").encode(),
                     _setting_value(value).encode())
        except BaseException:
            self.close()
            raise


class _Corpus(_Handle):
    """A corpus handle."""

    def __init__(self, handle):
        super().__init__(handle, lib.ldagpu_corpus_free)

    @property
    def num_docs(self):
        return lib.ldagpu_corpus_num_docs(self.handle)

    def doc_lengths(self):
        out = np.zeros(self.num_docs, dtype=np.uint64)
        lib.ldagpu_corpus_doc_lengths(self.handle, out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint64)))
        return out

    def word_counts(self):
        out = np.zeros(lib.ldagpu_corpus_vocab_size(self.handle), dtype=np.uint64)
        lib.ldagpu_corpus_word_counts(self.handle, out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint64)))
        return out

    def doc_names(self):
        if self.num_docs == 0 or lib.ldagpu_corpus_doc_name(self.handle, 0) is None:
            return None
        return [lib.ldagpu_corpus_doc_name(self.handle, d).decode() for d in range(self.num_docs)]


def _is_sparse(docs):
    return hasattr(docs, "tocsr") and hasattr(docs, "shape")


def _arrays_corpus(offsets, word_ids, counts, vocab_size, vocab, names):
    """A corpus from CSR arrays: every value is checked by the library (ragged arrays, negative,
    fractional or NaN counts, word ids outside the vocabulary)."""
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    word_ids = np.ascontiguousarray(word_ids, dtype=np.int64)
    if offsets.ndim != 1 or offsets.size < 1 or word_ids.ndim != 1:
        raise _lib.LdagpuInputError("document offsets and word ids must be flat arrays, the offsets at least [0]", 2)
    counts_ptr, num_counts = None, 0
    if counts is not None:
        counts = np.ascontiguousarray(counts, dtype=np.float64)
        if counts.ndim != 1:
            raise _lib.LdagpuInputError("counts must be a flat array", 2)
        counts_ptr, num_counts = counts.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), counts.size
    vocab_arr = _lib.strings(vocab) if vocab is not None else None
    names_arr = _lib.strings(names) if names is not None else None
    if vocab is not None and len(vocab) != vocab_size:
        raise _lib.LdagpuInputError("a vocabulary of %d words for %d columns" % (len(vocab), vocab_size), 2)
    if names is not None and len(names) != offsets.size - 1:
        raise _lib.LdagpuInputError("%d names for %d documents" % (len(names), offsets.size - 1), 2)
    handle = call(lib.ldagpu_corpus_from_arrays, offsets.size - 1,
                  offsets.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)), word_ids.size,
                  word_ids.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)), num_counts, counts_ptr, vocab_size,
                  vocab_arr, names_arr)
    return _Corpus(handle)


def _token_lists(docs, names):
    """Token lists: the vocabulary in the order words first appear; the tokens as given."""
    index, vocab, ids, offsets = {}, [], [], [0]
    for doc in docs:
        for token in doc:
            if not isinstance(token, str):
                raise _lib.LdagpuInputError("a token list holds %r, not a string" % (token,), 2)
            w = index.get(token)
            if w is None:
                w = index[token] = len(vocab)
                vocab.append(token)
            ids.append(w)
        offsets.append(len(ids))
    return _arrays_corpus(offsets, ids, None, len(vocab), vocab, names)


def _corpus(docs, settings=None, vocabulary=None, names=None, model=None):
    """A corpus handle of docs: a path, raw strings, token lists, word-id lists, a scipy.sparse
    document-word matrix or a CSR triple (offsets, word_ids, counts). With model, texts and files are
    read in the model's vocabulary as `ldagpu infer` reads them."""
    if isinstance(docs, (str, os.PathLike)):
        path = os.fsencode(docs)
        if model is not None:
            return _Corpus(call(lib.ldagpu_model_read_corpus, model, path))
        return _Corpus(call(lib.ldagpu_corpus_read, path, settings))
    if _is_sparse(docs):
        m = docs.tocsr()
        return _arrays_corpus(m.indptr, m.indices, m.data, m.shape[1], vocabulary, names)
    if isinstance(docs, tuple) and len(docs) == 3:
        offsets, word_ids, counts = docs
        if vocabulary is None:
            raise _lib.LdagpuInputError("a CSR triple needs vocabulary= (its words, in column order)", 2)
        return _arrays_corpus(offsets, word_ids, counts, len(vocabulary), vocabulary, names)
    docs = list(docs)
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != len(docs):
            raise _lib.LdagpuInputError("%d names for %d documents" % (len(names), len(docs)), 2)
    if all(isinstance(d, str) for d in docs):
        texts, names_arr = _lib.strings(docs), _lib.strings(names) if names is not None else None
        if model is not None:
            return _Corpus(call(lib.ldagpu_model_texts, model, texts, len(docs), names_arr))
        return _Corpus(call(lib.ldagpu_corpus_from_texts, texts, len(docs), names_arr, settings))
    if all(isinstance(d, (list, tuple)) for d in docs):
        return _token_lists(docs, names)
    raise _lib.LdagpuInputError("documents must be a path, strings, token lists, a scipy.sparse matrix or a CSR "
                                "triple", 2)


class LDA:
    """Latent Dirichlet Allocation trained by ldagpu.

    LDA(n_topics=100, model=None, device='auto', seed=1, n_iter=100, progress=None, verbose=False,
    **settings): settings are train's options by name (alpha=0.1, min_df=2, holdout=0.1,
    token_pattern=..., threads=4, ...), as `ldagpu train --help` lists them; model is train's
    --model (collapsed, uncollapsed, ...). progress(info) is called after every iteration with the
    iteration's figures (iteration, last_iteration, seconds, tokens_per_second, evaluated,
    loglik_per_token, loglik_joint, heldout_evaluated, heldout_loglik_per_token);
    returning True stops training there. After fit: components_ (φ, K × V, rows sum to 1),
    doc_topic_ (θ, D × K), vocabulary_ (V words), alpha_ (K), beta_.
    """

    def __init__(self, n_topics=100, model=None, device="auto", seed=1, n_iter=100, progress=None, verbose=False,
                 **settings):
        self.n_topics, self.model, self.device, self.seed, self.n_iter = n_topics, model, device, seed, n_iter
        self.progress, self.verbose, self.settings = progress, verbose, settings
        self._handle = None
        with self._settings():  # refused here when a name or value is wrong
            pass

    def _settings(self):
        pairs = {"topics": self.n_topics, "model": self.model, "device": self.device, "seed": self.seed,
                 "iterations": self.n_iter}
        pairs.update(self.settings)
        return _Settings(pairs)

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and lib is not None:
            lib.ldagpu_model_free(handle)

    def _fitted(self):
        if not self._handle:
            raise _lib.LdagpuInputError("the model is not trained yet: call fit() or LDA.load()", 2)
        return self._handle

    # ---- training ----

    def fit(self, docs, vocabulary=None, names=None):
        """Trains on docs: a list of raw strings (read by the command line's tokenizer, with this
        model's reader settings), a list of token lists (taken as they are), a scipy.sparse
        document-word matrix (vocabulary=: its words in column order), a CSR triple (offsets,
        word_ids, counts) with vocabulary=, or a corpus file's path. names: one per document."""
        with self._settings() as s, _corpus(docs, s.handle, vocabulary, names) as c:
            handle = self._train(c, s)
            self._keep(handle)
            self.doc_lengths_ = c.doc_lengths()
            self.term_frequency_ = c.word_counts()
        return self

    def fit_transform(self, docs, vocabulary=None, names=None):
        return self.fit(docs, vocabulary, names).doc_topic_

    def _train(self, corpus, settings):
        caught = []

        def on_progress(_ctx, info):
            try:  # an exception (KeyboardInterrupt too) stops training and is raised after it
                return 1 if self.progress is not None and self.progress(_lib.progress_info(info.contents)) else 0
            except BaseException as e:
                caught.append(e)
                return 1

        def on_message(_ctx, line):
            text = line.decode("utf-8", "replace")
            if "warning:" in text:
                warnings.warn(text, stacklevel=3)
            elif self.verbose:
                print(text, file=sys.stderr)

        progress_fn, message_fn = _lib.PROGRESS_FN(on_progress), _lib.MESSAGE_FN(on_message)
        handle = call(lib.ldagpu_train, corpus.handle, settings.handle, progress_fn, message_fn, None)
        if caught:
            lib.ldagpu_model_free(handle)
            raise caught[0]
        return handle

    def _keep(self, handle):
        if self._handle:
            lib.ldagpu_model_free(self._handle)
        self._handle = handle
        K, V, D = (lib.ldagpu_model_num_topics(handle), lib.ldagpu_model_vocab_size(handle),
                   lib.ldagpu_model_num_docs(handle))
        self.n_topics = K
        self.components_ = np.empty((K, V), dtype=np.float32)
        lib.ldagpu_model_phi(handle, self.components_.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        self.doc_topic_ = np.empty((D, K), dtype=np.float32)
        try:
            call(lib.ldagpu_model_theta, handle, self.doc_topic_.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        except _lib.LdagpuInputError:  # doc-topics none: no θ kept
            self.doc_topic_ = None
        self.vocabulary_ = [lib.ldagpu_model_word(handle, w).decode("utf-8") for w in range(V)]
        first = lib.ldagpu_model_doc_name(handle, 0) if D else None
        self.doc_names_ = [lib.ldagpu_model_doc_name(handle, d).decode() for d in range(D)] if first else None
        self.alpha_ = np.empty(K)
        lib.ldagpu_model_alpha(handle, self.alpha_.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
        self.beta_ = lib.ldagpu_model_beta(handle)
        self.topic_tokens_ = np.empty(K, dtype=np.uint32)
        lib.ldagpu_model_topic_tokens(handle, self.topic_tokens_.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)))
        self.n_iter_ = lib.ldagpu_model_iterations(handle)

    # ---- folders ----

    def save(self, path, force=False):
        """Writes the model folder `ldagpu train -o` writes (every command reads it). A folder
        holding a model is replaced only with force=True; a folder of other files never."""
        call(lib.ldagpu_model_save, self._fitted(), os.fsencode(path), 1 if force else 0)
        return self

    @classmethod
    def load(cls, path, device="auto"):
        """A model folder written by `ldagpu train` or save()."""
        handle = call(lib.ldagpu_model_load, os.fsencode(path))
        self = cls.__new__(cls)
        self._handle = None
        self._keep(handle)
        buf = ctypes.create_string_buffer(256)

        def setting(key):
            call(lib.ldagpu_model_setting, handle, key.encode(), buf, len(buf))
            return buf.value.decode()

        self.model, self.device, self.seed = setting("model"), device, int(setting("seed"))
        self.n_iter, self.progress, self.verbose, self.settings = self.n_iter_, None, False, {}
        self.doc_lengths_ = self.term_frequency_ = None
        return self

    # ---- new documents ----

    def _docs(self, docs, vocabulary=None, names=None):
        if _is_sparse(docs) and vocabulary is None:
            vocabulary = self.vocabulary_  # columns are the model's words
        return _corpus(docs, None, vocabulary, names, model=self._fitted())

    def transform(self, docs, vocabulary=None, n_iter=50, seed=None, threads=0):
        """θ of new documents (D × K) with the topics fixed, as `ldagpu infer` (n_iter sweeps;
        words the model does not know are skipped; a document without a known word gets 1/K)."""
        with self._docs(docs, vocabulary) as c:
            out = np.empty((c.num_docs, self.n_topics), dtype=np.float32)
            call(lib.ldagpu_infer, self._fitted(), c.handle, n_iter, self.seed if seed is None else seed,
                 str(self.device).encode(), threads, out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        return out

    def score(self, docs, vocabulary=None, n_iter=20, seed=None, threads=0):
        """Held-out log-likelihood per token by document completion, as `ldagpu eval`: θ of each
        document from its first half, its second half scored (higher is better)."""
        ll, tokens = ctypes.c_double(), ctypes.c_uint64()
        with self._docs(docs, vocabulary) as c:
            call(lib.ldagpu_score, self._fitted(), c.handle, n_iter, self.seed if seed is None else seed,
                 str(self.device).encode(), threads, ctypes.byref(ll), ctypes.byref(tokens))
        return ll.value

    # ---- results ----

    def top_words(self, n=10):
        """The n most probable words of every topic, largest first (ties: the lower word id)."""
        self._fitted()
        order = np.argsort(-self.components_, axis=1, kind="stable")[:, :n]
        return [[self.vocabulary_[w] for w in row] for row in order]

    def pyldavis_data(self, docs=None, vocabulary=None):
        """The keyword arguments of pyLDAvis.prepare: for the training documents, or for docs
        (their θ inferred, their lengths and word counts in the model's vocabulary)."""
        self._fitted()
        if docs is None:
            if self.doc_lengths_ is None or self.doc_topic_ is None:
                raise _lib.LdagpuInputError("a loaded model has no training documents here: give docs", 2)
            theta, lengths, freq = self.doc_topic_, self.doc_lengths_, self.term_frequency_
        else:
            theta = self.transform(docs, vocabulary)
            with self._docs(docs, vocabulary) as c:
                lengths, freq = c.doc_lengths(), c.word_counts()
        return {"topic_term_dists": self.components_.astype(np.float64),
                "doc_topic_dists": np.asarray(theta, dtype=np.float64),
                "doc_lengths": np.asarray(lengths, dtype=np.int64), "vocab": list(self.vocabulary_),
                "term_frequency": np.asarray(freq, dtype=np.int64)}

    def doc_topics_frame(self, names=None):
        """θ as a pandas DataFrame, a row per training document indexed by names (given, or the
        documents' own names, or their numbers), a column per topic (topic0, topic1, ...)."""
        import pandas as pd  # only here: pandas is optional

        self._fitted()
        if self.doc_topic_ is None:
            raise _lib.LdagpuInputError("the model keeps no θ (doc_topics none)", 2)
        index = names if names is not None else self.doc_names_
        if index is not None and len(index) != len(self.doc_topic_):
            raise _lib.LdagpuInputError("%d names for %d documents" % (len(index), len(self.doc_topic_)), 2)
        return pd.DataFrame(self.doc_topic_, index=index, columns=["topic%d" % k for k in range(self.n_topics)])
