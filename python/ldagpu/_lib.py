"""The C library (libldagpu.so, include/ldagpu.h) through ctypes: finding it, its functions'
signatures, and its errors as Python exceptions.

ctypes releases the GIL for every foreign call, so training, inference and scoring run while
other Python threads do; the library calls back (progress, messages) on the calling thread,
taking the GIL for the callback only."""
import ctypes
import os
import types
from pathlib import Path

API_VERSION = 1  # LDAGPU_API_VERSION of the header this module was written against


class LdagpuError(RuntimeError):
    """A failure while running (out of memory, a device, a file that cannot be written)."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


class LdagpuInputError(LdagpuError, ValueError):
    """Bad input or a bad setting: the library's message says what and where."""


class _Error(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("message", ctypes.c_char * 1024)]


class Progress(ctypes.Structure):
    """One iteration's figures, as the progress callback receives them."""

    _fields_ = [
        ("iteration", ctypes.c_uint32),
        ("last_iteration", ctypes.c_uint32),
        ("seconds", ctypes.c_double),
        ("tokens_per_second", ctypes.c_double),
        ("evaluated", ctypes.c_int),
        ("loglik_per_token", ctypes.c_double),
        ("loglik_joint", ctypes.c_double),
        ("heldout_evaluated", ctypes.c_int),
        ("heldout_loglik_per_token", ctypes.c_double),
    ]


def progress_info(p):
    """A copy of one iteration's figures (the struct lives only during the callback)."""
    return types.SimpleNamespace(**{name: getattr(p, name) for name, _ in Progress._fields_})


PROGRESS_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(Progress))
MESSAGE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)


def _candidates():
    """Where the library is looked for, in order: LDAGPU_LIBRARY, the package's own copy (pip
    install puts one there), then the checkout's build (make's ./libldagpu.so, build/*/)."""
    env = os.environ.get("LDAGPU_LIBRARY")
    if env:
        return [Path(env)]
    here = Path(__file__).resolve().parent
    repo = here.parent.parent
    return [here / "libldagpu.so", repo / "libldagpu.so", repo / "build" / "cuda" / "libldagpu.so",
            repo / "build" / "cpu" / "libldagpu.so"]


def _load():
    tried = _candidates()
    for path in tried:
        if path.exists():
            lib = ctypes.CDLL(str(path))
            break
    else:
        raise ImportError("libldagpu.so not found (looked at %s); build it with 'make lib' in the ldagpu "
                          "checkout or set LDAGPU_LIBRARY to its path" % ", ".join(map(str, tried)))
    if lib.ldagpu_api_version() != API_VERSION:
        raise ImportError("%s has API version %d; this package needs %d" % (path, lib.ldagpu_api_version(),
                                                                             API_VERSION))
    lib.path = str(path)
    _declare(lib)
    return lib


def _declare(lib):
    P, E = ctypes.c_void_p, ctypes.POINTER(_Error)
    S, Z, U32, U64 = ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.c_uint64
    I64P, DP = ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_double)
    FP, U32P, U64P = ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint64)
    SP = ctypes.POINTER(ctypes.c_char_p)
    sig = {
        "ldagpu_api_version": (ctypes.c_int, []),
        "ldagpu_version": (S, []),
        "ldagpu_settings_new": (P, [E]),
        "ldagpu_settings_free": (None, [P]),
        "ldagpu_settings_set": (ctypes.c_int, [P, S, S, E]),
        "ldagpu_settings_name": (S, [Z]),
        "ldagpu_corpus_read": (P, [S, P, E]),
        "ldagpu_corpus_from_texts": (P, [SP, Z, SP, P, E]),
        "ldagpu_corpus_from_arrays": (P, [Z, I64P, Z, I64P, Z, DP, Z, SP, SP, E]),
        "ldagpu_corpus_free": (None, [P]),
        "ldagpu_corpus_num_docs": (Z, [P]),
        "ldagpu_corpus_num_tokens": (Z, [P]),
        "ldagpu_corpus_vocab_size": (Z, [P]),
        "ldagpu_corpus_num_unknown_tokens": (Z, [P]),
        "ldagpu_corpus_word": (S, [P, Z]),
        "ldagpu_corpus_doc_name": (S, [P, Z]),
        "ldagpu_corpus_doc_lengths": (None, [P, U64P]),
        "ldagpu_corpus_word_counts": (None, [P, U64P]),
        "ldagpu_train": (P, [P, P, PROGRESS_FN, MESSAGE_FN, P, E]),
        "ldagpu_model_load": (P, [S, E]),
        "ldagpu_model_save": (ctypes.c_int, [P, S, ctypes.c_int, E]),
        "ldagpu_model_free": (None, [P]),
        "ldagpu_model_num_topics": (U32, [P]),
        "ldagpu_model_vocab_size": (U32, [P]),
        "ldagpu_model_num_docs": (U64, [P]),
        "ldagpu_model_iterations": (U32, [P]),
        "ldagpu_model_word": (S, [P, U32]),
        "ldagpu_model_doc_name": (S, [P, U64]),
        "ldagpu_model_setting": (ctypes.c_int, [P, S, ctypes.c_char_p, Z, E]),
        "ldagpu_model_phi": (None, [P, FP]),
        "ldagpu_model_theta": (ctypes.c_int, [P, FP, E]),
        "ldagpu_model_topic_tokens": (None, [P, U32P]),
        "ldagpu_model_alpha": (None, [P, DP]),
        "ldagpu_model_beta": (ctypes.c_double, [P]),
        "ldagpu_model_read_corpus": (P, [P, S, E]),
        "ldagpu_model_texts": (P, [P, SP, Z, SP, E]),
        "ldagpu_infer": (ctypes.c_int, [P, P, U32, U64, S, ctypes.c_int, FP, E]),
        "ldagpu_score": (ctypes.c_int, [P, P, U32, U64, S, ctypes.c_int, DP, U64P, E]),
    }
    for name, (restype, argtypes) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, argtypes


lib = _load()


def call(fn, *args):
    """Calls fn(*args, &err); raises the library's error when it fails (NULL or non-zero)."""
    err = _Error()
    result = fn(*args, ctypes.byref(err))
    if err.status:
        message = err.message.decode("utf-8", "replace")
        raise (LdagpuInputError if err.status == 2 else LdagpuError)(message, err.status)
    return result


def strings(items):
    """A NULL-free char*[] of items (str, UTF-8), kept alive with the array."""
    encoded = [s.encode("utf-8") if isinstance(s, str) else bytes(s) for s in items]
    array = (ctypes.c_char_p * max(len(encoded), 1))(*encoded)
    return array
