"""ldagpu from Python: train, infer and score LDA topic models with ldagpu's library.

    import ldagpu
    lda = ldagpu.LDA(n_topics=20, model="collapsed", seed=1).fit(texts)
    lda.top_words(10); lda.transform(new_texts); lda.save("model")   # ldagpu topics model

The library is the command line's own code (libldagpu.so): the same seed, documents and
settings give the same model as `ldagpu train`, and the model folders are the same."""
from ._lib import LdagpuError, LdagpuInputError, lib as _library
from .lda import LDA

__version__ = _library.ldagpu_version().decode()
library_path = _library.path

__all__ = ["LDA", "LdagpuError", "LdagpuInputError", "__version__", "library_path"]
