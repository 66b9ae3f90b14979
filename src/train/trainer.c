/* trainer.c — the training driver. It talks to the backend only through backend.h, so the
 * same loop runs on the CPU and on the GPU. */
#include "train/trainer.h"

#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "backend/backend.h"
#include "backend/device_bytes.h"
#include "backend/layout.h"
#include "corpus/corpus_cache.h"
#include "corpus/corpus_read.h"
#include "model/checkpoint.h"
#include "model/checksum.h"
#include "model/model.h"
#include "model/model_folder.h"
#include "model/model_stopwords.h"
#include "model/train_log.h"
#include "train/heldout.h"
#include "train/phi_cvb.h"
#include "train/phi_expected.h"
#include "train/run_memory.h"
#include "train/cvb_start.h"
#include "train/sample_start.h"
#include "train/theta_fetch.h"
#include "util/atomic_file.h"
#include "util/clock.h"
#include "util/ranks.h"

/* Everything one run holds. */
typedef struct {
    const lda_train_options *o;
    const corpus *borrowed;   /* o->documents: the caller's, never freed here */
    corpus *c;                /* the documents trained on */
    corpus *heldout;          /* the documents held out (NULL: none) */
    uint64_t corpus_checksum; /* of the corpus as read, before the split */
    char *corpus_path, *vocab_path; /* as recorded: absolute where possible */
    stopword_list stopwords;  /* read once at the start: the model keeps them (model_stopwords.h) */
    lda_layout *L;
    lda_backend *b;
    lda_completion completion;
    int has_completion;
    float *phi;               /* V × K, for held-out evaluations and the expected φ */
    int phi_is_current;       /* phi holds the expected φ of the state as it is now */
    size_t *heldout_index;    /* input indices of the held-out documents */
    size_t num_heldout;
    lda_train_log log;
    uint32_t first, done;     /* iterations done when this run started, and now */
    lda_doc_topics doc_topics; /* --doc-topics, auto resolved for this corpus and K */
    lda_model_folder folder;   /* -o, locked; opened by the process that writes (MPI rank 0) */
    int has_folder;
    uint64_t run_id;           /* model.conf's run_id: the resumed state's, or lda_run_id's */
    int stopped_by_caller;     /* the progress callback asked to stop */
    double start_seconds;      /* --sample-start's or --cvb-start's, counted in the first iteration's time */
} run;

static void drop_corpus(const run *r, corpus *c)
{
    if (c != r->borrowed)
        corpus_free(c);
}

/* A line for stderr, or for the caller's message callback. */
static void emit(const lda_train_options *o, const char *format, va_list args)
{
    if (!o->message) {
        vfprintf(stderr, format, args);
        return;
    }
    char line[2048];
    vsnprintf(line, sizeof line, format, args);
    size_t n = strlen(line);
    if (n && line[n - 1] == '\n')
        line[n - 1] = '\0';
    o->message(o->callback_ctx, line);
}

/* A warning, or a line that says why a run stopped: printed with -q too. */
static void warn(const lda_train_options *o, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void warn(const lda_train_options *o, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    emit(o, format, args);
    va_end(args);
}

/* What a run says on stderr besides its errors and warnings: nothing with -q. */
static void say(const lda_train_options *o, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void say(const lda_train_options *o, const char *format, ...)
{
    if (o->quiet)
        return;
    va_list args;
    va_start(args, format);
    emit(o, format, args);
    va_end(args);
}

/* What the corpus is called in messages. */
static const char *corpus_shown(const lda_train_options *o)
{
    return o->corpus_path ? o->corpus_path : "the documents given";
}

static void print_corpus_summary(const lda_train_options *o, const corpus *c, double seconds)
{
    char empty[64] = "";
    if (c->num_empty_docs)
        snprintf(empty, sizeof empty, " (%zu empty, skipped)", c->num_empty_docs);
    say(o, "ldagpu: read %s (%s): %zu documents%s, %zu tokens, %u words in %.2f s\n", corpus_shown(o),
        corpus_format_name(c->format), c->num_docs, empty, c->num_tokens, c->vocab_size, seconds);
}

/* The corpus, through its cache when --cache asks for one (corpus_cache.h): the model records
 * the source either way, read as the source reads, so a cached run trains on the same corpus. */
static corpus *read_corpus(const lda_train_options *o, lda_error *err)
{
    char *cache_path;
    if (corpus_cache_choose(o->cache, o->corpus_path, &cache_path, err))
        return NULL;
    if (!cache_path)
        return corpus_read(o->corpus_path, &o->settings.corpus, err);
    corpus_cache_report report;
    corpus *c = corpus_read_cached(o->corpus_path, &o->settings.corpus, cache_path, &report, err);
    if (report.message[0] && (!o->quiet || strncmp(report.message, "warning:", 8) == 0))
        warn(o, "ldagpu: %s\n", report.message);
    free(cache_path);
    return c;
}

/* An absolute form of a path for model.conf (the path itself when it cannot be resolved). */
static int absolute_path(const char *path, char **out, lda_error *err)
{
    *out = NULL;
    if (!path)
        return 0;
    char *abs = realpath(path, NULL);
    *out = abs ? abs : strdup(path);
    if (!*out) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    return 0;
}

/* The settings of the run (no arrays) into a model: what model.conf records. */
static int set_settings(run *r, lda_model *m, lda_error *err)
{
    const lda_train_options *o = r->o;
    const lda_params params = m->settings.params; /* as the backend ran them, alpha resolved */
    lda_settings_free_strings(&m->settings);
    m->settings = o->settings;
    m->settings.params = params;
    m->settings.doc_topics = r->doc_topics;
    m->settings.corpus.format = r->c->format; /* as detected */
    m->settings.corpus.vocab_path = r->vocab_path;
    if (lda_settings_own_strings(&m->settings, err) || lda_model_keep_stopwords(m, &r->stopwords, err))
        return -1;
    m->heldout_docs = r->num_heldout;
    m->corpus_checksum = r->corpus_checksum;
    const lda_priors *priors = &r->b->priors;
    free(m->alpha_learned);
    m->alpha_learned = NULL;
    if (priors->learned) { /* part of the state: a resumed run goes on with them */
        if (!(m->alpha_learned = lda_malloc_array(priors->K, sizeof *m->alpha_learned, "learned alpha", err)))
            return -1;
        memcpy(m->alpha_learned, priors->alpha_float, priors->K * sizeof *m->alpha_learned);
        m->beta_learned = priors->beta;
    }
    if (!r->run_id)
        r->run_id = lda_run_id(&m->settings, r->corpus_checksum);
    m->run_id = r->run_id;
    return 0;
}

/* "theta.npy: 178.4 MiB" for the line saying how θ was written. */
static void describe_theta_files(const char *dir, lda_doc_topics_form form, char *buf, size_t size)
{
    uint64_t bytes = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (const char *const *f = lda_doc_topics_files(form); *f && used < size; f++) {
        char *path = lda_path_join(dir, *f, NULL);
        struct stat sb;
        if (path && stat(path, &sb) == 0)
            bytes += (uint64_t)sb.st_size;
        free(path);
        used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", *f);
    }
    if (used < size && used)
        snprintf(buf + used, size - used, ": %.1f MiB", (double)bytes / (1 << 20));
    else if (used < size)
        snprintf(buf, size, "no file");
}

typedef struct {
    const lda_model *m;
    const lda_train_log *log;
    const size_t *heldout_index;
    size_t num_heldout;
    uint32_t top_words;
} model_write;

/* Every file of the model into dir, the new folder that takes the old one's place. */
static int write_model_files(const char *dir, void *vctx, lda_error *err)
{
    const model_write *w = vctx;
    return lda_state_write_extras(dir, w->m, w->log, w->heldout_index, w->num_heldout, err) ||
                   lda_model_write(w->m, dir, w->top_words, err)
               ? -1
               : 0;
}

/* The finished model handed to the caller (o->keep): its own vocabulary, the log, the
 * held-out list and the stop words move there. */
static int keep_model(run *r, lda_model *m, lda_error *err)
{
    lda_trained *t = r->o->keep;
    char **vocab = copy_strings(m->vocab, m->vocab_size, err);
    if (!vocab)
        return -1;
    memset(t, 0, sizeof *t);
    t->m = *m;
    t->m.vocab = vocab;
    t->m.owns_vocab = 1;
    memset(m, 0, sizeof *m);
    t->log = r->log;
    t->log.out = NULL;
    memset(&r->log, 0, sizeof r->log);
    t->heldout_index = r->heldout_index;
    t->num_heldout = r->num_heldout;
    r->heldout_index = NULL;
    t->stopwords = r->stopwords;
    memset(&r->stopwords, 0, sizeof r->stopwords);
    t->m.stopwords = t->m.stopwords ? &t->stopwords : NULL;
    t->top_words = r->o->top_words;
    return 0;
}

/* φ made from z after the last iteration, by a pass (expected) or passes (cvb) over the tokens. */
static int phi_expected_wanted(const run *r)
{
    return r->b->params.phi_estimate == LDA_PHI_ESTIMATE_EXPECTED || r->b->params.phi_estimate == LDA_PHI_ESTIMATE_CVB;
}

/* r->phi: the expected φ of the state as it is now (train/phi_expected.h, or train/phi_cvb.h's after
 * its passes), made once a state. */
static int estimate_phi(run *r, lda_error *err)
{
    if (r->phi_is_current)
        return 0;
    const lda_layout *L = r->L;
    uint32_t *z_pos = lda_malloc_array(L->num_positions, sizeof(uint32_t), "z", err);
    uint32_t *z = lda_malloc_array(r->c->num_tokens ? r->c->num_tokens : 1, sizeof(uint32_t), "z", err);
    int rc = -1;
    if (z_pos && z && !r->b->ops->fetch(r->b, NULL, NULL, z_pos, err)) {
        lda_layout_z_to_corpus_order(L, z_pos, z);
        const lda_params *p = &r->b->params;
        rc = p->phi_estimate == LDA_PHI_ESTIMATE_CVB
                 ? lda_phi_cvb(r->c, z, p->num_topics, &r->b->priors, p->threads, lda_phi_cvb_passes(p->phi_passes, r->done), r->phi,
                               err)
                 : lda_phi_expected(r->c, z, p->num_topics, &r->b->priors, p->threads, r->phi, err);
    }
    free(z);
    free(z_pos);
    r->phi_is_current = rc == 0;
    return rc;
}

/* The φ the run writes and scores, V × K, into r->phi. */
static int current_phi(run *r, lda_error *err)
{
    return phi_expected_wanted(r) ? estimate_phi(r, err) : r->b->ops->fetch(r->b, NULL, r->phi, NULL, err);
}

static int save_model(run *r, lda_error *err)
{
    const lda_train_options *o = r->o;
    const lda_layout *L = r->L;
    lda_backend *b = r->b;
    const size_t K = b->params.num_topics;
    /* The expected φ is r->phi's (made after the last iteration, or here after none). */
    const int expected = phi_expected_wanted(r);
    float *phi = expected ? NULL : lda_malloc_array((size_t)L->vocab_size * K, sizeof(float), "phi", err);
    uint32_t *z = lda_malloc_array(L->num_positions, sizeof(uint32_t), "z", err);
    uint32_t *n_k = lda_malloc_array(K, sizeof(uint32_t), "topic counts", err);
    lda_model m = {0};
    int rc = -1;
    if ((!expected && !phi) || !z || !n_k || (expected && estimate_phi(r, err)))
        goto out;
    if (b->ops->fetch(b, NULL, phi, z, err) || b->ops->fetch_counts(b, NULL, NULL, n_k, err) ||
        lda_model_from_state(&m, r->c, L, &b->params, r->done, r->corpus_path, expected ? r->phi : phi, z, n_k,
                             err) ||
        set_settings(r, &m, err))
        goto out;
    m.z_checksum = lda_u32_checksum(m.z, m.num_tokens);
    free(phi); /* the model has its own copies */
    free(z);
    phi = NULL;
    z = NULL;
    double t0 = lda_now_seconds();
    if (lda_theta_fetch(&m.theta, b, r->c, m.num_docs, &r->doc_topics, 0, err))
        goto out;
    double t1 = lda_now_seconds();
    model_write w = {&m, &r->log, r->heldout_index, r->num_heldout, o->top_words};
    if (r->has_folder && lda_model_folder_replace(&r->folder, write_model_files, &w, r->run_id, err))
        goto out;
    if (r->has_folder && r->folder.replaced_cwd)
        say(o, "ldagpu: %s is a new folder now: a shell inside it sees the old one until it changes to it again "
               "(cd \"$PWD\")\n", o->output_dir);
    if (r->has_folder && !o->quiet) {
        char form[64], files[512];
        describe_theta_files(o->output_dir, r->doc_topics.form, files, sizeof files);
        say(o, "ldagpu: θ as %s (%s) built in %.2f s; the model written in %.2f s\n",
                lda_doc_topics_format(&r->doc_topics, form, sizeof form), files, t1 - t0, lda_now_seconds() - t1);
    }
    if (o->keep && keep_model(r, &m, err))
        goto out;
    rc = 0;
out:
    lda_model_free(&m);
    free(phi);
    free(z);
    free(n_k);
    return rc;
}

static int save_checkpoint(run *r, lda_error *err)
{
    const lda_backend *b = r->b;
    uint32_t *z_pos = lda_malloc_array(r->L->num_positions, sizeof(uint32_t), "z", err);
    lda_model m = {0};
    int rc = -1;
    if (!z_pos || r->b->ops->fetch(r->b, NULL, NULL, z_pos, err))
        goto out;
    m.num_topics = b->params.num_topics;
    m.vocab_size = r->c->vocab_size;
    m.num_docs = r->c->num_input_docs;
    m.num_tokens = r->c->num_tokens;
    m.settings.params = b->params;
    m.settings.params.alpha = lda_params_alpha(&b->params);
    m.iterations = r->done;
    if (!(m.corpus_path = strdup(r->corpus_path ? r->corpus_path : ""))) {
        lda_error_fail(err, "out of memory");
        goto out;
    }
    if (!(m.z = lda_malloc_array(m.num_tokens ? m.num_tokens : 1, sizeof *m.z, "z", err)) ||
        set_settings(r, &m, err))
        goto out;
    lda_layout_z_to_corpus_order(r->L, z_pos, m.z);
    m.z_checksum = lda_u32_checksum(m.z, m.num_tokens);
    if (lda_make_dirs(r->o->output_dir, err) ||
        lda_checkpoint_write(r->o->output_dir, &m, &r->log, r->heldout_index, r->num_heldout, err))
        goto out;
    rc = 0;
out:
    lda_model_free(&m);
    free(z_pos);
    return rc;
}

static int evaluate_into(run *r, lda_log_row *row, lda_error *err)
{
    row->evaluated = 1;
    if (r->b->ops->evaluate(r->b, &row->eval, err))
        return -1;
    if (!r->has_completion)
        return 0;
    row->heldout_evaluated = 1;
    return current_phi(r, err) ||
           lda_completion_run(&r->completion, r->phi, &r->b->priors, lda_heldout_seed(r->b->params.seed, row->iteration),
                              r->o->settings.holdout_iterations, &row->loglik_heldout, err);
}

static int stop_requested(const run *r)
{
    return (r->o->stop && *r->o->stop) || r->stopped_by_caller;
}

/* After the priors are learned: their spread, on the iteration log's stream. */
static void print_priors(const lda_train_options *o, uint32_t iteration, const lda_priors *p)
{
    double lo = p->alpha[0], hi = p->alpha[0];
    for (uint32_t k = 1; k < p->K; k++) {
        lo = p->alpha[k] < lo ? p->alpha[k] : lo;
        hi = p->alpha[k] > hi ? p->alpha[k] : hi;
    }
    say(o, "ldagpu: iteration %u: priors learned: alpha sum %.4g (from %.4g to %.4g), beta %.4g\n",
            iteration, p->alpha_sum, lo, hi, p->beta);
}

static int run_iterations(run *r, lda_error *err)
{
    const lda_train_options *o = r->o;
    const uint32_t n = o->settings.params.iterations, every = o->settings.params.eval_every, end = r->first + n;
    const uint32_t ckpt = o->checkpoint_every;
    if (every && !o->resume) {
        lda_log_row row = {0};
        if (evaluate_into(r, &row, err) || lda_train_log_add(&r->log, &row, err))
            return -1;
    }
    double train_seconds = r->log.count ? r->log.rows[r->log.count - 1].train_seconds : 0.0, run_seconds = 0.0;
    for (uint32_t it = r->first + 1; it <= end && !stop_requested(r); it++) {
        lda_log_row row = {.iteration = it};
        double t0 = lda_now_seconds();
        if (r->b->ops->iterate(r->b, it, &row.timing, err))
            return -1;
        r->phi_is_current = 0;
        if (lda_priors_due(it, &o->settings.params))
            print_priors(o, it, &r->b->priors);
        row.seconds = lda_now_seconds() - t0 + (it == 1 ? r->start_seconds : 0.0); /* the start is training */
        run_seconds += row.seconds;
        train_seconds += row.seconds;
        row.train_seconds = train_seconds;
        row.tokens_per_second = row.seconds > 0 ? (double)r->L->num_tokens / row.seconds : 0.0;
        r->done = it;
        int last = it == end || stop_requested(r);
        if (last && phi_expected_wanted(r)) { /* what the model will be written with: timed apart */
            const double phi_start = lda_now_seconds();
            if (estimate_phi(r, err))
                return -1;
            row.phi_seconds = lda_now_seconds() - phi_start;
        }
        if (((every && it % every == 0) || last) && evaluate_into(r, &row, err))
            return -1;
        if (lda_train_log_add(&r->log, &row, err))
            return -1;
        if (o->progress && o->progress(o->callback_ctx, &row, end))
            r->stopped_by_caller = 1;
        last |= r->stopped_by_caller;
        if (last)
            break;
        if (ckpt && it % ckpt == 0 && save_checkpoint(r, err))
            return -1;
    }
    lda_train_log_finish(&r->log);
    uint32_t ran = r->done - r->first;
    if (ran)
        say(o, "ldagpu: %u iterations in %.2f s (%.4f s per iteration, %.2f M tokens/s)\n", ran,
                run_seconds, run_seconds / ran, (double)r->L->num_tokens * ran / run_seconds / 1e6);
    if (ran && r->log.count && r->log.rows[r->log.count - 1].phi_seconds > 0)
        say(o, "ldagpu: φ from the expected counts%s in %.2f s (--phi-estimate %s)\n",
            r->b->params.phi_estimate == LDA_PHI_ESTIMATE_CVB ? " after passes of CVB0 from the last sample" : "",
            r->log.rows[r->log.count - 1].phi_seconds,
            lda_choice_name(lda_phi_estimate_choices, r->b->params.phi_estimate));
    return 0;
}

/* Splits off the held-out documents and prepares their evaluation. */
static int prepare_heldout(run *r, corpus *full, lda_error *err)
{
    const lda_train_options *o = r->o;
    if (!(o->settings.holdout > 0)) {
        r->c = full;
        return 0;
    }
    const int failed = lda_heldout_split(full, o->settings.holdout, o->settings.params.seed, &r->c, &r->heldout, err);
    drop_corpus(r, full); /* split or not, the whole corpus is no longer needed */
    if (failed)
        return -1;
    corpus *h = r->heldout;
    r->num_heldout = h->num_docs;
    if (!(r->heldout_index = lda_malloc_array(h->num_docs ? h->num_docs : 1, sizeof(size_t), "held-out list", err)))
        return -1;
    memcpy(r->heldout_index, h->input_index, h->num_docs * sizeof(size_t));
    say(o, "ldagpu: holding out %zu of %zu documents (%zu tokens) for evaluation\n", h->num_docs,
            h->num_docs + r->c->num_docs, h->num_tokens);
    return 0;
}

static int start_completion(run *r, lda_error *err)
{
    if (!r->heldout || r->num_heldout == 0)
        return 0;
    size_t scorable = 0;
    for (size_t d = 0; d < r->heldout->num_docs; d++)
        scorable += r->heldout->doc_offsets[d + 1] - r->heldout->doc_offsets[d] >= 2;
    if (!scorable) {
        warn(r->o, "ldagpu: warning: no held-out document has 2 tokens or more; no held-out figures\n");
        return 0;
    }
    lda_params p = r->b->params; /* same device, K, alpha (resolved), precision, sampler, threads */
    p.shards = 1;                /* the held-out documents are few: this process's device alone */
    p.over_ranks = 0;
    p.shard_devices = 0;
    if (lda_completion_init(&r->completion, r->heldout, &p, err))
        return -1;
    r->has_completion = 1;
    if (!(r->phi = lda_malloc_array((size_t)r->L->vocab_size * p.num_topics, sizeof(float), "phi", err)))
        return -1;
    return 0;
}

/* A new run's start from collapsed variational Bayes (train/cvb_start.h), where --cvb-start asks
 * for it: its passes, then every token's topic drawn, into z_pos (the layout's positions). */
static int start_from_cvb(run *r, uint32_t passes, uint32_t *z_pos, lda_error *err)
{
    uint32_t *z = lda_malloc_array(r->c->num_tokens ? r->c->num_tokens : 1, sizeof *z, "z", err);
    if (!z)
        return -1;
    const lda_params *p = &r->b->params;
    lda_cvb_start_report rep;
    const int rc = lda_cvb_start(r->c, &r->b->priors, p->num_topics, p->seed, p->threads, passes, z, &rep, err);
    if (!rc) {
        lda_layout_z_to_positions(r->L, z, z_pos);
        r->start_seconds = rep.seconds;
        say(r->o, "ldagpu: start: %u passes of collapsed variational Bayes (%zu document-word pairs), then every "
                  "token's topic drawn from them, in %.2f s (counted in iteration 1's time)\n",
            passes, rep.pairs, rep.seconds);
    }
    free(z);
    return rc;
}

/* A new run's start from CVB (--cvb-start) or from a sample of its documents
 * (train/sample_start.h, --sample-start), where one asks for it; else the random start. */
static int start_new(run *r, lda_error *err)
{
    const uint32_t iterations = lda_params_sample_start(&r->b->params, r->c->num_docs);
    const uint32_t passes = lda_params_cvb_start(&r->b->params, r->c->num_docs); /* not both: lda_params_check_starts */
    if ((!iterations && !passes) || r->c->num_docs == 0)
        return r->b->ops->start(r->b, NULL, 0, err);
    uint32_t *z_pos = lda_calloc(r->L->num_positions ? r->L->num_positions : 1, sizeof(uint32_t), "z", err);
    if (!z_pos)
        return -1;
    if (passes) {
        int rc = start_from_cvb(r, passes, z_pos, err) || r->b->ops->start(r->b, z_pos, 0, err);
        free(z_pos);
        return rc ? -1 : 0;
    }
    lda_sample_start_report rep;
    int rc = lda_sample_start(r->c, r->L, &r->b->params, &r->b->priors, iterations, z_pos, &rep, err);
    if (!rc) {
        r->start_seconds = rep.seconds;
        say(r->o, "ldagpu: start: %u iterations on every %uth document (%zu documents, %llu tokens), then every "
                  "token's topic drawn from them, in %.2f s (counted in iteration 1's time)\n",
            iterations, LDA_SAMPLE_START_STRIDE, rep.sample_docs, (unsigned long long)rep.sample_tokens,
            rep.seconds);
        rc = r->b->ops->start(r->b, z_pos, 0, err);
    }
    free(z_pos);
    return rc;
}

/* Sets the backend's state: a new run's start or the resumed z and learned priors. */
static int start_state(run *r, lda_error *err)
{
    const lda_resume_state *st = r->o->resume;
    if (!st)
        return start_new(r, err);
    if (st->m.alpha_learned) {
        lda_priors priors;
        if (lda_model_priors(&st->m, &priors, err))
            return -1;
        const int rc = lda_backend_set_priors(r->b, &priors, err);
        lda_priors_free(&priors);
        if (rc)
            return -1;
    }
    uint32_t *z_pos = lda_calloc(r->L->num_positions, sizeof(uint32_t), "z", err);
    if (!z_pos)
        return -1;
    lda_layout_z_to_positions(r->L, st->m.z, z_pos);
    int rc = r->b->ops->start(r->b, z_pos, r->first, err);
    free(z_pos);
    return rc;
}

static int check_resumed_corpus(const run *r, const corpus *full, lda_error *err)
{
    const lda_resume_state *st = r->o->resume;
    if (st->m.corpus_checksum && st->m.corpus_checksum != r->corpus_checksum) {
        lda_error_input(err, "%s is not the corpus %s was trained on (it reads differently: checksum %016llx, "
                        "model.conf says %016llx); resume with that corpus, read with the same options",
                        r->o->corpus_path, st->dir, (unsigned long long)r->corpus_checksum,
                        (unsigned long long)st->m.corpus_checksum);
        return -1;
    }
    if (full->vocab_size != st->m.vocab_size) {
        lda_error_input(err, "%s has %u words, the model %s has %u: not the corpus it was trained on",
                        r->o->corpus_path, full->vocab_size, st->dir, st->m.vocab_size);
        return -1;
    }
    return 0;
}

/* Where auto chose CVB0's passes (--phi-estimate cvb, --cvb-start) and the run does not fit in
 * memory with them: the expected counts' φ, then the random start, as far as the run then fits
 * (else it is refused after this, as any run that does not fit). */
static int fits(const run *r, const lda_params *planned)
{
    return !lda_run_check_memory(r->L, planned, r->c->num_input_docs, &r->doc_topics, r->heldout != NULL, NULL);
}

static void fit_auto_choices(const run *r, lda_params *params, lda_params *planned)
{
    const lda_train_options *o = r->o;
    const int phi = o->settings.params.phi_estimate == LDA_PHI_ESTIMATE_AUTO &&
                    params->phi_estimate == LDA_PHI_ESTIMATE_CVB,
              start = !o->resume && lda_params_cvb_start_is_auto(params) && lda_params_cvb_start(params, r->c->num_docs);
    if ((!phi && !start) || fits(r, planned))
        return;
    if (phi)
        params->phi_estimate = planned->phi_estimate = LDA_PHI_ESTIMATE_EXPECTED;
    const int start_dropped = start && !fits(r, planned);
    if (start_dropped)
        params->cvb_start = planned->cvb_start = 0;
    if (!fits(r, planned))
        return;
    if (phi)
        say(o, "ldagpu: --phi-estimate auto: its passes of collapsed variational Bayes would not fit in the memory "
               "available; φ from the expected counts\n");
    if (start_dropped)
        say(o, "ldagpu: --cvb-start auto: its passes would not fit in the memory available; starting at random\n");
}

/* What runs: the model and the sampler that ran; and on a new run of another model than the
 * recommended one, one line pointing to it (train --help says why). */
static void print_opening(const run *r)
{
    const lda_train_options *o = r->o;
    const lda_params *p = &r->b->params;
    const char *model = lda_choice_name(lda_model_choices, lda_params_model(p)),
               *sampler = lda_choice_name(lda_sampler_choices, p->sampler);
    if (o->resume) {
        say(o, "ldagpu: resuming %s at iteration %u: K=%u on %s, %u more iterations, model %s, sampler %s, "
                        "precision %s, seed %llu\n",
                o->resume->dir, r->first, p->num_topics, r->b->description, o->settings.params.iterations, model,
                sampler, lda_choice_name(lda_precision_choices, p->precision), (unsigned long long)p->seed);
        return;
    }
    say(o, "ldagpu: training K=%u on %s: model %s, sampler %s, alpha %g, beta %g, %u iterations, precision "
                    "%s, refresh %u, seed %llu\n",
            p->num_topics, r->b->description, model, sampler, p->alpha, p->beta, o->settings.params.iterations,
            lda_choice_name(lda_precision_choices, p->precision), p->refresh, (unsigned long long)p->seed);
    if (p->optimize_interval && p->num_topics >= LDA_OPTIMIZE_WORSE_FROM_K)
        warn(o, "ldagpu: warning: at K >= %d learned priors held out worse than the symmetric ones in every "
                        "measurement (docs/priors.md); --optimize-interval 0 keeps them symmetric\n",
                LDA_OPTIMIZE_WORSE_FROM_K);
    if (lda_params_model(p) == LDA_MODEL_RECOMMENDED)
        return;
    lda_params best = *p;
    lda_params_set_model(&best, LDA_MODEL_RECOMMENDED);
    best.sampler = LDA_SAMPLER_AUTO;
    lda_zplan_resolve_sampler(&best);
    say(o, "ldagpu: recommended: --model %s (sampler %s), a better held-out fit in less time\n",
            lda_choice_name(lda_model_choices, LDA_MODEL_RECOMMENDED), lda_choice_name(lda_sampler_choices, best.sampler));
}

/* What stopped the run: a signal, or the caller's progress callback. */
static const char *stop_cause(const run *r)
{
    const int sig = r->o->stop ? *r->o->stop : 0;
    return r->stopped_by_caller && !sig ? "the caller"
           : sig == SIGINT             ? "SIGINT"
           : sig == SIGTERM            ? "SIGTERM"
                                       : "a signal";
}

/* A signal before the first iteration: nothing is written, the folder stays as it was. */
static int stopped_before_training(const run *r)
{
    warn(r->o, "ldagpu: stopped by %s before the first iteration; %s left as it was\n", stop_cause(r),
         r->o->output_dir ? r->o->output_dir : "nothing");
    return 0;
}

int lda_train(const lda_train_options *o, lda_error *err)
{
    run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.first = r.done = o->resume ? o->resume->m.iterations : 0;
    lda_train_log_init(&r.log, o->quiet || o->message ? NULL : stderr, r.first,
                       r.first + o->settings.params.iterations);
    r.borrowed = o->documents;
    corpus *full = NULL;
    int rc = -1;
    /* Before any work: may -o take this run's model? Locked until the run ends. */
    if (lda_ranks_rank() == 0 && o->output_dir) {
        if (lda_model_folder_open(&r.folder, o->output_dir, o->force, o->resume ? o->resume->dir : NULL, err)) {
            lda_train_log_free(&r.log);
            return -1;
        }
        r.has_folder = 1;
    }
    r.run_id = o->resume ? o->resume->m.run_id : 0; /* else (or 0 in an older state) made at the first save */

    if (o->resume) {
        FILE *out = r.log.out; /* the old rows, kept and not printed again */
        r.log.out = NULL;
        for (size_t i = 0; i < o->resume->log.count; i++)
            if (lda_train_log_add(&r.log, &o->resume->log.rows[i], err)) {
                r.log.out = out;
                goto out;
            }
        r.log.out = out;
    }
    if (absolute_path(o->corpus_path, &r.corpus_path, err) ||
        absolute_path(o->settings.corpus.vocab_path, &r.vocab_path, err) ||
        stopword_list_load(&r.stopwords, &o->settings.corpus, err))
        goto out;

    lda_params params = o->settings.params; /* the sampler and the piece length resolved: the model records them */
    lda_zplan_resolve_sampler(&params);
    char no_gpu[256];
    lda_params_resolve_phi_estimate(&params, params.device == LDA_DEVICE_CPU ||
                                                 (params.device == LDA_DEVICE_AUTO &&
                                                  lda_cuda_device_count(no_gpu, sizeof no_gpu) == 0));
    if (lda_zplan_check(&params, err) || lda_params_check_phi_estimate(&params, err) ||
        lda_params_check_starts(&params, err)) /* before a long read */
        goto out;
    double t0 = lda_now_seconds();
    full = o->documents ? (corpus *)o->documents : read_corpus(o, err);
    if (stop_requested(&r)) { /* during the read (which a signal may cut short) */
        rc = stopped_before_training(&r);
        goto out;
    }
    if (!full)
        goto out;
    const double read_end = lda_now_seconds();
    print_corpus_summary(o, full, read_end - t0);
    r.corpus_checksum = lda_corpus_checksum(full);
    if (o->resume && check_resumed_corpus(&r, full, err))
        goto out;
    corpus *whole = full;
    full = NULL;
    if (prepare_heldout(&r, whole, err))
        goto out;
    if (o->resume && r.c->num_tokens != o->resume->m.num_tokens) {
        lda_error_input(err, "%s: %zu tokens to train on, %s/model.conf says %llu: not the same corpus or split",
                        corpus_shown(o), r.c->num_tokens, o->resume->dir, (unsigned long long)o->resume->m.num_tokens);
        goto out;
    }
    if (o->settings.params.device == LDA_DEVICE_AUTO) {
        char why[256];
        if (lda_cuda_device_count(why, sizeof why) == 0)
            say(o, "ldagpu: --device auto: %s; training on the CPU\n", why);
        else if (params.device == LDA_DEVICE_CPU)
            say(o, "ldagpu: --device auto: --sampler %s runs on the CPU only; training on the CPU\n",
                lda_choice_name(lda_sampler_choices, params.sampler));
    }
    params.piece_length = lda_params_piece_length(&params);
    char why[512];
    r.doc_topics = lda_doc_topics_resolve(&o->settings.doc_topics, r.c->num_input_docs, params.num_topics, why,
                                          sizeof why);
    if (o->settings.doc_topics.form == LDA_DOC_TOPICS_AUTO && r.doc_topics.form != LDA_DOC_TOPICS_DENSE)
        say(o, "ldagpu: --doc-topics auto: %s\n", why);
    const double layout_start = lda_now_seconds();
    if (!(r.L = lda_layout_build(r.c, params.piece_length, err)))
        goto out;
    const double layout_seconds = lda_now_seconds() - layout_start;
    lda_params planned = params;
    if (o->resume) /* a resumed run has started: no start to plan for */
        planned.cvb_start = 0;
    fit_auto_choices(&r, &params, &planned);
    if (lda_run_check_memory(r.L, &planned, r.c->num_input_docs, &r.doc_topics, r.heldout != NULL, err) ||
        !(r.b = lda_backend_create(r.L, &params, err)))
        goto out;
    if (r.b->tokens_streamed && r.heldout) { /* its scoring reads tokens kept on the GPU */
        lda_error_input(err, "--holdout: not with the tokens streamed from host memory (%s); train without "
                        "--holdout, or on more GPUs", r.b->stream_why);
        goto out;
    }
    if (r.b->following) { /* an MPI rank other than 0: its shard, as rank 0's training asks */
        rc = lda_backend_follow(r.b, err);
        goto out;
    }
    print_opening(&r);
    char shape[256];
    say(o, "ldagpu: layout: %s\nldagpu: z draw: %s\n", lda_layout_describe(r.L, shape, sizeof shape),
            r.b->zplan.why);
    char split[4096];
    if (lda_backend_describe_shards(r.b, split, sizeof split))
        say(o, "ldagpu: shards split %s\n", split);
    if (r.b->params.device == LDA_DEVICE_CUDA && r.b->params.shards <= 1) { /* a shard's are its own */
        lda_device_bytes bytes;
        char shares[1024];
        lda_device_bytes_plan(r.L, &r.b->params, &r.b->zplan, &bytes);
        lda_device_bytes_describe(&bytes, r.L->num_tokens, LDA_DEVICE_BYTES_MAX_ROWS, shares, sizeof shares);
        say(o, "ldagpu: device memory: %s\n", shares);
        if (r.b->stream_why[0])
            say(o, "ldagpu: %s\n", r.b->stream_why);
    }
    if (start_completion(&r, err))
        goto out;
    if (phi_expected_wanted(&r) && !r.phi &&
        !(r.phi = lda_malloc_array((size_t)r.L->vocab_size * r.b->params.num_topics, sizeof(float), "phi", err)))
        goto out;
    if (start_state(&r, err))
        goto out;
    /* Between the read and the first iteration: at 10^9 tokens this is tens of seconds (issue 14). */
    say(o, "ldagpu: set up in %.2f s (the layout built in %.2f s; the rest the backend's state and its "
                    "start)\n", lda_now_seconds() - read_end, layout_seconds);
    if (run_iterations(&r, err))
        goto out;
    if (stop_requested(&r) && r.done == r.first) { /* during the set-up: no iteration to save */
        rc = stopped_before_training(&r);
        goto out;
    }
    if (r.has_folder && stop_requested(&r) && save_checkpoint(&r, err))
        goto out;
    if (save_model(&r, err))
        goto out;
    if (!r.has_folder) {
        if (r.done < r.first + o->settings.params.iterations)
            warn(o, "ldagpu: stopped by %s after iteration %u of %u\n", stop_cause(&r), r.done,
                 r.first + o->settings.params.iterations);
    } else if (stop_requested(&r)) {
        uint32_t end = r.first + o->settings.params.iterations;
        if (r.done < end)
            warn(o, "ldagpu: stopped by %s after iteration %u of %u; checkpoint and model written to %s/; "
                            "continue with: ldagpu train --resume %s -n %u\n",
                    stop_cause(&r), r.done, end, o->output_dir, o->output_dir, end - r.done);
        else
            warn(o, "ldagpu: %s received after the last iteration (%u); model written to %s/\n",
                    stop_cause(&r), r.done, o->output_dir);
    } else {
        say(o, "ldagpu: model written to %s/ (top words in %s/topics.txt)\n", o->output_dir,
                o->output_dir);
    }
    rc = 0;
out:
    if (r.has_folder)
        lda_model_folder_close(&r.folder);
    lda_train_log_free(&r.log);
    if (r.has_completion)
        lda_completion_free(&r.completion);
    lda_backend_destroy(r.b);
    lda_layout_free(r.L);
    drop_corpus(&r, full);
    drop_corpus(&r, r.c);
    corpus_free(r.heldout);
    free(r.phi);
    free(r.heldout_index);
    free(r.corpus_path);
    free(r.vocab_path);
    stopword_list_free(&r.stopwords);
    return rc;
}

int lda_trained_write(const lda_trained *t, const char *dir, int force, lda_error *err)
{
    lda_model_folder folder;
    if (lda_model_folder_open(&folder, dir, force, NULL, err))
        return -1;
    model_write w = {&t->m, &t->log, t->heldout_index, t->num_heldout, t->top_words};
    const int rc = lda_model_folder_replace(&folder, write_model_files, &w, t->m.run_id, err);
    lda_model_folder_close(&folder);
    return rc;
}

void lda_trained_free(lda_trained *t)
{
    lda_model_free(&t->m);
    lda_train_log_free(&t->log);
    free(t->heldout_index);
    stopword_list_free(&t->stopwords);
    memset(t, 0, sizeof *t);
}
